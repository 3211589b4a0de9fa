package decodelogs

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
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
		apps, err := Log(l, Options{})
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

// TestRealLogsReadInPart: over every real log, exactly the logs with lost
// records (malformed lines in the middle, events lacking a field) are
// problems, one each naming the log; a log whose last line was cut off as
// it was written is not.
func TestRealLogsReadInPart(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	res, err := Paths([]string{root}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"rapids-tools/core/src/test/resources/spark-events-profiling/malformed_json_eventlog.zstd":   "1 malformed line skipped (first at ",
		"hadoop-mapreduce-0.21/src/test/tools/data/rumen/small-trace-test/truncated-job-tracker-log": "1 malformed line skipped (first at ",
		"sparkscope/src/test/resources/eventlog/app-20231122115433-0000-eventLog-corrupted-events":   "4 events without a field they need skipped (first at ",
	}
	got := map[string]bool{}
	for _, p := range res.Problems {
		// "<log>: <application id> read in part: <what>"
		head, msg, _ := strings.Cut(p.Error(), " read in part: ")
		name := head[:max(0, strings.LastIndex(head, ": "))]
		rel, _ := filepath.Rel(root, name)
		got[rel] = true
		if w, ok := want[rel]; !ok || !strings.HasPrefix(msg, w) {
			t.Errorf("problem %v, want %q", p, w)
		}
	}
	for rel := range want {
		if !got[rel] {
			t.Errorf("%s: no problem", rel)
		}
	}
	if len(res.Unreadable()) != 0 {
		t.Errorf("unreadable: %+v", res.Unreadable())
	}
}

// TestMemoryBudgetBoundsParallelDecoding decodes four parts on four
// goroutines with a budget that holds two line limits: never more than two
// decode at once, and all four get their turn. Parts whose zstd window
// takes most of the budget are decoded one at a time.
func TestMemoryBudgetBoundsParallelDecoding(t *testing.T) {
	line := []byte(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}` + "\n")
	// A zstd frame declaring a 128 MiB window (window descriptor 0x88) with
	// the line in one raw block.
	n := len(line)<<3 | 1
	zstd128 := append([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x88, byte(n), byte(n >> 8), byte(n >> 16)}, line...)
	for _, c := range []struct {
		data   []byte
		memory int64
		peak   int32
	}{
		{line, 2<<20 + 1, 2},
		{zstd128, 200 << 20, 1},
	} {
		if got := peakParts(t, c.data, Options{MaxLine: 1 << 20, Memory: c.memory}); got != c.peak {
			t.Errorf("budget %d MiB: %d parts decoded at once, want %d", c.memory>>20, got, c.peak)
		}
	}
}

// peakParts decodes four logs holding data on four goroutines and returns
// how many parts were decoded at once at most.
func peakParts(t *testing.T, data []byte, opts Options) int32 {
	dir := t.TempDir()
	for i := range 4 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("app-%d", i)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	logs, _, err := Find([]string{dir}, opts)
	if err != nil || len(logs) != 4 {
		t.Fatalf("%d logs, %v", len(logs), err)
	}
	ld := NewLoader(opts)
	var running, peak atomic.Int32
	var wg sync.WaitGroup
	for _, l := range logs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := ld.part(l, 0, func(io.Reader) error {
				n := running.Add(1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				time.Sleep(50 * time.Millisecond)
				running.Add(-1)
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	return peak.Load()
}
