package cli

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterlens/clusterlens/internal/sim"
)

// update rewrites the golden files: go test ./internal/cli -run Golden -update
var update = flag.Bool("update", false, "rewrite the golden files of the text and JSON output")

// TestGolden holds the exact text and JSON that summary and analyze print
// for the demo scenario's applications (a Spark application with a skewed
// stage, a MapReduce job, a CPU and a disk hog), as pprof's golden tests
// do: a change of wording, layout or numbers shows in the diff and is
// accepted with -update. The simulator gives the same bytes for a scenario
// and seed on every machine.
func TestGolden(t *testing.T) {
	sc, err := sim.Named("demo")
	if err != nil {
		t.Fatal(err)
	}
	sc.Metrics.Off = true
	dir := t.TempDir()
	if _, err := sim.Run(sc, 1, dir, encoders()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"summary.txt", []string{"summary", "--rows", "8", dir}},
		{"summary.json", []string{"summary", "--format", "json", dir}},
		{"analyze.txt", []string{"analyze", "--rows", "8", dir}},
		{"analyze.json", []string{"analyze", "--format", "json", dir}},
	} {
		t.Run(c.golden, func(t *testing.T) {
			code, out, errs := run(t, c.args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			got := strings.ReplaceAll(out, dir, "$DIR")
			path := filepath.Join("testdata", "golden", c.golden)
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			if diff := cmp.Diff(string(want), got); diff != "" {
				t.Errorf("%s differs from %s (-golden +now; -update accepts it):\n%s", strings.Join(c.args[:len(c.args)-1], " "), path, diff)
			}
		})
	}
}
