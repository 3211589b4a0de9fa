// Package sharedtest locates the real data in ../shared/data for tests. It
// never copies that data; tests skip with a message where it is absent, and
// fail instead when CI=true, because CI always has it. It also finds the
// real services CI starts and generates bounded load for the tests that
// compare samplers with reference tools.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Root returns the absolute path of shared/data, or "" when it cannot be found.
// CLUSTERLENS_SHARED_DATA overrides the search, which walks up from the working
// directory looking for shared/data beside a directory on the way.
func Root() string {
	if p := os.Getenv("CLUSTERLENS_SHARED_DATA"); p != "" {
		return p
	}
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		for _, cand := range []string{filepath.Join(dir, "shared", "data"), filepath.Join(dir, "..", "shared", "data")} {
			if st, err := os.Stat(cand); err == nil && st.IsDir() {
				abs, _ := filepath.Abs(cand)
				return abs
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Dir returns shared/data/sub, skipping the test when it is absent (failing under CI).
func Dir(t testing.TB, sub string) string {
	t.Helper()
	root := Root()
	if root == "" {
		missing(t, "shared/data not found (set CLUSTERLENS_SHARED_DATA)")
	}
	p := filepath.Join(root, sub)
	if _, err := os.Stat(p); err != nil {
		missing(t, "shared data "+sub+" absent: "+err.Error())
	}
	return p
}

func missing(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI must have it)")
	}
	t.Skip(msg)
}
