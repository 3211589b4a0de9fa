package sim

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/summary"
)

// TestReadBack writes every named scenario with several seeds, reads the
// folder back with the project's loader, and requires no skipped line and
// the summary's counts equal to truth.json's.
func TestReadBack(t *testing.T) {
	for _, name := range testScenarios() {
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%s/%d", name, seed), func(t *testing.T) {
				readBack(t, mustNamed(t, name), seed)
			})
		}
	}
}

// TestReadBackLayouts writes Spark logs compressed and rolling.
func TestReadBackLayouts(t *testing.T) {
	for _, out := range []OutputSpec{{SparkCodec: "zstd"}, {SparkCodec: "lz4"}, {Rolling: true, RollingPartMB: 1}, {Rolling: true, SparkCodec: "zstd", RollingPartMB: 1}} {
		t.Run(fmt.Sprintf("%+v", out), func(t *testing.T) {
			sc := mustNamed(t, "demo")
			sc.Output = out
			readBack(t, sc, 5)
		})
	}
}

func readBack(t *testing.T, sc *Scenario, seed uint64) {
	t.Helper()
	dir := t.TempDir()
	res, err := Run(sc, seed, dir, testEncoders)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := decodelogs.Paths([]string{dir}, decodelogs.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Problems) > 0 {
		t.Fatalf("problems: %v", loaded.Problems)
	}
	if len(loaded.Apps) != len(res.Truth.Apps) {
		t.Fatalf("read %d applications, truth has %d", len(loaded.Apps), len(res.Truth.Apps))
	}
	byID := map[string]AppTruth{}
	for _, a := range res.Truth.Apps {
		if a.Path == "" {
			t.Errorf("%s: not written", a.ID)
		}
		byID[a.ID] = a
	}
	for _, app := range loaded.Apps {
		q := app.Quality
		if q.BadLines != 0 || q.UnknownEvents != 0 || q.Incomplete != 0 || q.Truncated {
			t.Errorf("%s: bad %d, unknown %d, incomplete %d, truncated %v: %v", app.ID, q.BadLines, q.UnknownEvents, q.Incomplete, q.Truncated, q.Issues)
		}
		tr, ok := byID[app.ID]
		if !ok {
			t.Errorf("%s: not in truth", app.ID)
			continue
		}
		checkCounts(t, summary.Build(app), tr)
		if len(app.Conf) == 0 && tr.Engine == "mapreduce" {
			t.Errorf("%s: no job configuration read", app.ID)
		}
	}
	checkMetricsFile(t, filepath.Join(dir, MetricsFile), res.Truth.Metrics.Rows)
}

// checkMetricsFile reads metrics.csv.zst and counts its rows.
func checkMetricsFile(t *testing.T, path string, want int64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := codec.NewReader(codec.Zstd, path, f)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(r)
	var rows int64
	for sc.Scan() {
		rows++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if rows-1 != want || want == 0 {
		t.Errorf("metrics: %d rows after the header, truth says %d", rows-1, want)
	}
}
