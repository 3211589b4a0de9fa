package sim

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDeterministic runs every named scenario (but large) twice with the same seed into two folders
// and requires identical bytes in every file, and different bytes for
// another seed.
func TestDeterministic(t *testing.T) {
	for _, name := range testScenarios() {
		t.Run(name, func(t *testing.T) {
			a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
			for _, run := range []struct {
				dir  string
				seed uint64
			}{{a, 7}, {b, 7}, {c, 8}} {
				if _, err := Run(mustNamed(t, name), run.seed, run.dir, testEncoders); err != nil {
					t.Fatal(err)
				}
			}
			fa, fb, fc := readTree(t, a), readTree(t, b), readTree(t, c)
			if len(fa) < 3 || len(fa) != len(fb) {
				t.Fatalf("files: %d and %d", len(fa), len(fb))
			}
			for p, x := range fa {
				if !bytes.Equal(x, fb[p]) {
					t.Errorf("%s differs between two runs with the same seed", p)
				}
			}
			if bytes.Equal(fa[MetricsFile], fc[MetricsFile]) || bytes.Equal(fa[TruthFile], fc[TruthFile]) {
				t.Error("seeds 7 and 8 gave the same output")
			}
		})
	}
}

// readTree reads every file under dir by relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestScenarioFileReruns checks that the scenario.json a run writes runs
// again to the same bytes.
func TestScenarioFileReruns(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if _, err := Run(mustNamed(t, "demo"), 3, a, testEncoders); err != nil {
		t.Fatal(err)
	}
	sc, err := ReadScenario(filepath.Join(a, ScenarioFile))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(sc, 3, b, testEncoders); err != nil {
		t.Fatal(err)
	}
	fa, fb := readTree(t, a), readTree(t, b)
	for p, x := range fa {
		if !bytes.Equal(x, fb[p]) {
			t.Errorf("%s differs when re-run from scenario.json", p)
		}
	}
}
