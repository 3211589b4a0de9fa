package dataflow

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// failureLogs are the real logs in shared/data/logs with the most failure
// handling: executor loss with FetchFailed and 50 Resubmitted records, a
// GPU out-of-memory run with 112 failed and 1 killed task, and a run with
// speculative copies, killed attempts and a failed job.
var failureLogs = []string{
	"rapids-tools/core/src/test/resources/spark-events-profiling/tasks_executors_fail_compressed_eventlog.zstd",
	"rapids-tools/core/src/test/resources/spark-events-profiling/gpu_oom_eventlog.zstd",
	"spark-rapids-2021/tools/src/test/resources/spark-events-profiling/task_job_failure_eventlog_compressed.zstd",
	"apache-spark/core/src/test/resources/spark-events/application_1538416563558_0014",
	"sparkscope/src/test/resources/eventlog/app-20231025121456-0004-eventLog-running-exec-removed",
	"sparkscope/src/test/resources/eventlog/app-20231025121456-0004-eventLog-finished-exec-removed",
}

// TestFailuresRealLogs checks the breakdown of real failure-heavy logs
// against a separate encoding/json scan of their events (scanRaw): per
// stage attempt, the attempts (Resubmitted records are not attempts), their
// task time and the wasted part (failed and killed attempts, and attempts
// whose output a Resubmitted record says was lost); per executor, the
// allocation from its add event to its remove event (or the application's
// end when it has none) widened to its tasks, never negative, with as many
// slots as its cores offer or its attempts overlapped. A task that claims
// to have launched years before its stage or months after its application
// (spliced test logs) is left out rather than stretching the application.
func TestFailuresRealLogs(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	for _, rel := range failureLogs {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			path := filepath.Join(root, rel)
			raw := scanRaw(t, path)
			app := loadApp(t, path)
			r, err := Reconstruct(app, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Resubmitted != raw.resubmitted || r.Skipped != raw.early {
				t.Errorf("%d Resubmitted records and %d attempts left out, the scan counts %d and %d launched before the application",
					r.Resubmitted, r.Skipped, raw.resubmitted, raw.early)
			}
			b := BuildBreakdown(r)
			var wasted int64
			seen := 0
			for i := range b.Stages {
				s := &b.Stages[i]
				w := raw.stages[rawKey{s.ID, s.Attempt}]
				if w == nil {
					if s.Attempts != 0 {
						t.Errorf("stage %d.%d: %d attempts, the scan has none", s.ID, s.Attempt, s.Attempts)
					}
					continue
				}
				seen++
				if raw.unfinished == 0 && (s.Attempts != w.attempts || s.TaskTime() != w.taskMs) {
					t.Errorf("stage %d.%d: %d attempts, task time %d ms; the scan: %d, %d", s.ID, s.Attempt, s.Attempts, s.TaskTime(), w.attempts, w.taskMs)
				}
				if s.Wasted != w.wasted {
					t.Errorf("stage %d.%d: wasted %d ms, the scan %d", s.ID, s.Attempt, s.Wasted, w.wasted)
				}
				wasted += w.wasted
			}
			if seen != len(raw.stages) {
				t.Errorf("%d stage attempts with tasks, the scan has %d", seen, len(raw.stages))
			}
			if b.App.Wasted != wasted {
				t.Errorf("application wasted %d ms, the scan %d", b.App.Wasted, wasted)
			}
			end := r.End
			for _, e := range b.Executors {
				x := raw.execs[e.ID]
				if x == nil {
					continue // the driver in local mode
				}
				wantStart, wantEnd := x.added, x.removed
				if wantEnd <= 0 || wantEnd < wantStart {
					wantEnd = end
				}
				if x.firstLaunch > 0 {
					wantStart, wantEnd = min(wantStart, x.firstLaunch), max(wantEnd, x.lastFinish)
				}
				if e.Start != wantStart || e.End != wantEnd || e.End < e.Start || e.Total < 0 {
					t.Errorf("executor %s: [%d, %d] total %d; want [%d, %d] from add %d, remove %d, tasks %d..%d",
						e.ID, e.Start, e.End, e.Total, wantStart, wantEnd, x.added, x.removed, x.firstLaunch, x.lastFinish)
				}
				if slots := max(x.concurrency(), x.cores/raw.taskCPUs, 1); e.Slots != slots {
					t.Errorf("executor %s: %d slots, want %d (%d cores, %d at once)", e.ID, e.Slots, slots, x.cores, x.concurrency())
				}
				checkAddsUp(t, "executor "+e.ID, &e.Times)
			}
			t.Logf("%d stage attempts, %d Resubmitted records, wasted %d of %d task-ms, %d executors",
				len(raw.stages), raw.resubmitted, wasted, b.App.TaskTime(), len(b.Executors))
		})
	}
}

// TestFailedMapReduceJobsAllWasted checks the failed MapReduce jobs in
// shared/data/logs: expected-counts.tsv, from a separate decoder, counts
// every one of their attempts as failed or killed, so all their task time
// is wasted.
func TestFailedMapReduceJobsAllWasted(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	dir := "hadoop/hadoop-mapreduce-project/hadoop-mapreduce-client/hadoop-mapreduce-client-hs/src/test/resources/"
	tsv, err := os.ReadFile(filepath.Join(root, "expected-counts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"job_0.23.9-FAILED.jhist", "job_2.0.3-alpha-FAILED.jhist", "job_2.4.0-FAILED.jhist",
		"job_1393307629410_0001-1393307687476-user-Sleep+job-1393307723835-0-0-FAILED-default-1393307693920.jhist"} {
		want := -1 // attempts, all failed or killed
		for _, line := range strings.Split(string(tsv), "\n") {
			if c := strings.Split(line, "\t"); len(c) > 9 && c[1] == dir+name && c[8] == c[9] {
				want, _ = strconv.Atoi(c[8])
			}
		}
		r, err := Reconstruct(loadApp(t, filepath.Join(root, dir+name)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := BuildBreakdown(r)
		if len(r.Attempts) != want || b.App.TaskTime() <= 0 || b.App.Wasted != b.App.TaskTime() {
			t.Errorf("%s: %d attempts (expected-counts.tsv: %d, all failed), wasted %d of %d task-ms; want all",
				name, len(r.Attempts), want, b.App.Wasted, b.App.TaskTime())
		}
		t.Logf("%s: %d attempts, %d task-ms, all wasted", name, len(r.Attempts), b.App.TaskTime())
	}
}
