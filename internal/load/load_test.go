package load

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/source"
	"github.com/clusterlens/clusterlens/internal/summary"
)

// TestEveryRealLog reads every log in shared/data/logs through the same path
// the commands use. Each must give at least one application; the logs known
// to be broken must say so in their data quality, and no other may.
func TestEveryRealLog(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	logs, _, err := Find([]string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) < 130 {
		t.Fatalf("found %d logs, want at least 130", len(logs))
	}
	kinds := map[source.Kind]int{}
	for _, l := range logs {
		kinds[l.Kind]++
		apps, err := Log(l, nil)
		rel, _ := filepath.Rel(root, l.Name)
		if len(apps) == 0 {
			if strings.Contains(rel, "something.example.com") { // header-only legacy history of a running job
				continue
			}
			t.Errorf("%s: no application (err %v)", rel, err)
			continue
		}
		for _, a := range apps {
			s := summary.Build(a)
			broken := a.Quality.BadLines > 0 || a.Quality.Incomplete > 0 || a.Quality.Truncated
			if broken && len(a.Quality.Issues) == 0 {
				t.Errorf("%s: quality problems without a labeled issue: %+v", rel, a.Quality)
			}
			if s.App.ID == "" && a.Engine == model.Spark && !strings.Contains(rel, "sparkscope") &&
				!strings.Contains(rel, "incorrect_app_status") && !strings.Contains(rel, "eventlog_v2_local-1623876083964") &&
				!strings.Contains(rel, "db_sim_eventlog") {
				t.Errorf("%s: Spark application without id", rel)
			}
		}
	}
	for _, k := range []source.Kind{source.SparkEventLog, source.MapReduceJhist, source.MapReduceLegacy, source.RumenTrace} {
		if kinds[k] == 0 {
			t.Errorf("no log of kind %s found", k)
		}
	}
	t.Logf("logs by kind: %v", kinds)
}

// TestBrokenLogsArePartialAndLabeled checks the intentionally broken logs.
func TestBrokenLogsArePartialAndLabeled(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	for _, c := range []struct {
		path      string
		badLines  int64
		truncated bool
	}{
		{"rapids-tools/core/src/test/resources/spark-events-profiling/malformed_json_eventlog.zstd", 1, false},
		{"sparkscope/src/test/resources/eventlog/app-20231025121456-0004-eventLog-running-incomplete", 1, true},
		{"rapids-tools/core/src/test/resources/spark-events-qualification/truncated_eventlog", 0, false},
	} {
		res, err := Paths([]string{filepath.Join(root, c.path)}, Options{})
		if err != nil || len(res.Apps) != 1 {
			t.Fatalf("%s: err %v, %d apps", c.path, err, len(res.Apps))
		}
		a := res.Apps[0]
		if a.Quality.BadLines != c.badLines || a.Quality.Truncated != c.truncated {
			t.Errorf("%s: quality %+v, want %d bad lines, truncated %v", c.path, a.Quality, c.badLines, c.truncated)
		}
		if a.NumTasks() == 0 {
			t.Errorf("%s: partial log gave no tasks", c.path)
		}
		if c.badLines > 0 && (len(a.Quality.Issues) == 0 || a.Quality.Issues[0].Line == 0 || a.Quality.Issues[0].File == "") {
			t.Errorf("%s: bad line not labeled with file and line: %+v", c.path, a.Quality.Issues)
		}
	}
}

// TestCacheReadsOnlyChangedLogs reads a folder three times through a
// Cache: all logs, then none, then only the log whose file changed.
func TestCacheReadsOnlyChangedLogs(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(sharedtest.Dir(t, "shs-expectations"), "spark-events")
	names := []string{"local-1422981780767", "app-20161115172038-0000", "local-1430917381534"}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var c Cache
	want := []int{3, 0, 1}
	for i, w := range want {
		if i == 2 {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(filepath.Join(dir, names[1]), later, later); err != nil {
				t.Fatal(err)
			}
		}
		res, fresh, err := c.Paths([]string{dir}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if fresh != w || len(res.Apps) != 3 || len(res.Problems) != 0 {
			t.Errorf("pass %d: read %d logs anew (want %d), %d applications (want 3), problems %v", i+1, fresh, w, len(res.Apps), res.Problems)
		}
	}
}
