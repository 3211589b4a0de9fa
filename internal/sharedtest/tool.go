package sharedtest

import (
	"os"
	"os/exec"
	"testing"
)

// Tool finds a command-line tool that .ci/run installs from the Debian
// package pkg (.ci/packages-*.txt). Locally a missing tool skips the test;
// under CI=true it fails.
func Tool(t testing.TB, name, pkg string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("no %s, but CI=true: .ci/run installs the Debian package %s", name, pkg)
	}
	t.Skipf("no %s: install the Debian package %s to run this test", name, pkg)
	return ""
}
