package diagnose

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// failureLogs are real logs in shared/data/logs heavy with failures: a
// lost executor with FetchFailed and 50 Resubmitted records; a GPU
// out-of-memory run with 112 failed tasks, 5 failed stages and a killed
// task; speculative copies and killed attempts in a failed job; executor
// loss with 8 failed tasks; a killed speculative attempt.
var failureLogs = []string{
	"rapids-tools/core/src/test/resources/spark-events-profiling/tasks_executors_fail_compressed_eventlog.zstd",
	"rapids-tools/core/src/test/resources/spark-events-profiling/gpu_oom_eventlog.zstd",
	"spark-rapids-2021/tools/src/test/resources/spark-events-profiling/task_job_failure_eventlog_compressed.zstd",
	"apache-spark/core/src/test/resources/spark-events/application_1538416563558_0014",
	"apache-spark/core/src/test/resources/spark-events/application_1628109047826_1317105",
}

// retryLog is the hand-written FetchFailed retry log (see
// internal/dataflow/failures_test.go for its timeline).
const retryLog = "../perfmodel/testdata/app-fetchfailed-retry"

// rawAttempt is a stage attempt as a raw event names it.
type rawAttempt struct{ stage, attempt int32 }

// scanSuccesses reads a plain or zstd event log with encoding/json,
// independently of internal/eventlog, and returns per stage attempt the
// ids of its successful task attempts (a TaskEnd that is neither failed nor
// killed, by its flags or, before Spark 2.2, its reason; Resubmitted
// records left out), the ids of every other TaskEnd, and per stage id the
// longest launch-to-finish time of a successful attempt and the most tasks
// an attempt declared at submission.
func scanSuccesses(t *testing.T, path string) (ok map[rawAttempt][]string, other map[string]bool, longest map[int32]int64, declared map[int32]int) {
	t.Helper()
	rd := sharedtest.RawLog(t, path)
	ok, other, longest, declared = map[rawAttempt][]string{}, map[string]bool{}, map[int32]int64{}, map[int32]int{}
	sc := bufio.NewScanner(rd)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var ev struct {
			Event   string
			Stage   int32                   `json:"Stage ID"`
			Attempt int32                   `json:"Stage Attempt ID"`
			Reason  struct{ Reason string } `json:"Task End Reason"`
			Info    struct {
				ID             int64 `json:"Task ID"`
				Launch         int64 `json:"Launch Time"`
				Finish         int64 `json:"Finish Time"`
				Failed, Killed bool
			} `json:"Task Info"`
			StageInfo struct {
				ID    int32 `json:"Stage ID"`
				Tasks int   `json:"Number of Tasks"`
			} `json:"Stage Info"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev.Event == "SparkListenerStageSubmitted" {
			declared[ev.StageInfo.ID] = max(declared[ev.StageInfo.ID], ev.StageInfo.Tasks)
		}
		if ev.Event != "SparkListenerTaskEnd" || ev.Reason.Reason == "Resubmitted" {
			continue
		}
		id := strconv.FormatInt(ev.Info.ID, 10)
		if ev.Info.Failed || ev.Info.Killed || ev.Reason.Reason != "Success" {
			other[id] = true
			continue
		}
		k := rawAttempt{ev.Stage, ev.Attempt}
		ok[k] = append(ok[k], id)
		longest[ev.Stage] = max(longest[ev.Stage], ev.Info.Finish-ev.Info.Launch)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ok, other, longest, declared
}

// loadApp reads the single application of a log.
func loadApp(t *testing.T, path string) *model.App {
	t.Helper()
	res, err := decodelogs.Paths([]string{path}, decodelogs.Options{Workers: 1})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	if len(res.Apps) != 1 {
		t.Fatalf("load %s: %d applications, want 1", path, len(res.Apps))
	}
	return res.Apps[0]
}

// TestFailedAttemptsNotStragglers checks, on real failure-heavy logs and the
// hand-written retry log, that the task records every straggler, skew and
// imbalance detector works from hold exactly each stage attempt's
// successful attempts as an encoding/json scan of the events lists them
// (no failed or killed attempt, no Resubmitted repeat), that no
// task-scoped finding names a failed or killed attempt or one task twice,
// and that critical-stage-tail's longest task is a successful attempt's
// (on task_job_failure_eventlog the longest attempts of stage 4, 1m55s and
// 1m52s, failed; the longest success ran 6.9s), and that low-parallelism
// counts the partitions a stage declared, not its attempts (gpu_oom_eventlog's
// stage 31 declared 141 tasks and ran 31 attempts before the application
// shut down).
func TestFailedAttemptsNotStragglers(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	paths := []string{retryLog}
	for _, rel := range failureLogs {
		paths = append(paths, filepath.Join(root, rel))
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ok, other, longest, declared := scanSuccesses(t, path)
			app := loadApp(t, path)
			seen := 0
			for si, st := range app.Stages {
				var ids []string
				for _, r := range buildStageRecords(app, si) {
					ids = append(ids, strconv.FormatInt(r.id, 10))
				}
				want := ok[rawAttempt{st.ID, st.Attempt}]
				slices.Sort(ids)
				slices.Sort(want)
				if !slices.Equal(ids, want) {
					t.Errorf("stage %d.%d: %d task records, the scan has %d successful attempts", st.ID, st.Attempt, len(ids), len(want))
				}
				if len(want) > 0 {
					seen++
				}
			}
			if seen != len(ok) {
				t.Errorf("%d stage attempts with records, the scan has %d", seen, len(ok))
			}
			for _, f := range Run(app, Options{}) {
				if f.ID == "low-parallelism" {
					id, _ := strconv.Atoi(f.Scope.IDs[0])
					for _, e := range f.Evidence {
						if e.Name == "tasks" && int(e.Value) != declared[int32(id)] {
							t.Errorf("low-parallelism: stage %d has %v tasks, it declared %d", id, e.Value, declared[int32(id)])
						}
					}
				}
				if f.ID == "critical-stage-tail" {
					id, _ := strconv.Atoi(f.Scope.IDs[0])
					for _, e := range f.Evidence {
						if e.Name == "maxTaskMs" && int64(e.Value) != longest[int32(id)] {
							t.Errorf("critical-stage-tail: stage %d's longest task %v ms, its longest successful attempt %d ms",
								id, e.Value, longest[int32(id)])
						}
					}
				}
				if f.Scope.Kind != ScopeTask {
					continue
				}
				dup := map[string]bool{}
				for _, id := range f.Scope.IDs {
					if other[id] || dup[id] {
						t.Errorf("%s names task %s, failed, killed or named twice: %s", f.ID, id, f.Summary)
					}
					dup[id] = true
				}
			}
		})
	}
}

// TestCancelledStageNotLowParallelism checks that gpu_oom_eventlog's stage
// 31, which declared 141 tasks on 32 slots and was cancelled after 31
// attempts, is not reported as having too few tasks.
func TestCancelledStageNotLowParallelism(t *testing.T) {
	app := loadApp(t, filepath.Join(sharedtest.Dir(t, "logs"), failureLogs[1]))
	for _, f := range Run(app, Options{Only: []string{"low-parallelism"}}) {
		if slices.Contains(f.Scope.IDs, "31") {
			t.Errorf("low-parallelism flags stage 31: %s", f.Summary)
		}
	}
}
