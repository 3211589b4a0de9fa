package perfmodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// retryLog is the hand-written FetchFailed retry log; its timeline is in
// internal/dataflow/failures_test.go. Task durations (ms): stage 0.0: 1000,
// 1200, 900, 1400 (task 3's output is lost: a Resubmitted TaskEnd repeats
// it); stage 1.0: 500 (FetchFailed), 300 (ExecutorLostFailure); stage 0.1:
// 800, 1100; stage 1.1: 1000, 3000, 1350 (killed speculative copy).
const retryLog = "testdata/app-fetchfailed-retry"

// TestRetryWorkloadByHand checks what the workload keeps of a retried
// stage: every attempt that held a core, failed and killed ones included
// (Sparklens's task time), and not the Resubmitted record.
func TestRetryWorkloadByHand(t *testing.T) {
	w, err := FromApp(loadOne(t, retryLog))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int64{{1000, 1200, 900, 1400, 800, 1100}, {500, 300, 1000, 3000, 1350}}
	if len(w.Stages) != 2 {
		t.Fatalf("%d stages, want 2", len(w.Stages))
	}
	for i, s := range w.Stages {
		if s.Attempts != 2 || !slices.Equal(s.Durations, want[i]) {
			t.Errorf("stage %d: %d attempts, durations %v; want 2, %v", s.ID, s.Attempts, s.Durations, want[i])
		}
	}
	if f := Sparklens(w); f.CoreMsUsed != 12550 {
		t.Errorf("core-ms used %d, want 12550", f.CoreMsUsed)
	}
	// Executor 2 is lost at 3000 and executor 3 added at 6000; executor 1
	// has no remove event and lives to the end (8000): 2 cores each,
	// 2 x (7900 + 2900 + 2000) = 25600 core-ms.
	wantSpan := map[string][2]int64{"1": {100, 8000}, "2": {100, 3000}, "3": {6000, 8000}}
	for _, e := range w.Executors {
		if sp, ok := wantSpan[e.ID]; !ok || e.Added-w.Start != sp[0] || e.Ended-w.Start != sp[1] {
			t.Errorf("executor %s alive [%d, %d], want %v", e.ID, e.Added-w.Start, e.Ended-w.Start, wantSpan[e.ID])
		}
	}
	if f := Sparklens(w); len(w.Executors) != 3 || f.CoreMsAvailableAutoScale != 25600 {
		t.Errorf("%d executors, %d core-ms available; want 3, 25600", len(w.Executors), f.CoreMsAvailableAutoScale)
	}
	// Stage 0's retry starts at its 5th task, launched 3500, submitted 3400;
	// stage 1's at its 3rd, 4800 and 4700. Their first attempts completed
	// at 2500 and 3300.
	wantRetry := [][]Retry{{{From: 4, Delay: 100}}, {{From: 2, Delay: 100}}}
	wantFirst := []int64{2500, 3300}
	for i, s := range w.Stages {
		if !slices.Equal(s.Retries, wantRetry[i]) || s.FirstCompleted-w.Start != wantFirst[i] {
			t.Errorf("stage %d: retries %v, first attempt completed at %d; want %v, %d",
				s.ID, s.Retries, s.FirstCompleted-w.Start, wantRetry[i], wantFirst[i])
		}
	}
}

// TestRetryReplayByHand checks the critical path and the replay of the
// retry log, worked out by hand. Attempts run one after another, so the
// critical path is 1400 + 1100 (stage 0.0, 0.1) + 500 + 3000 (1.0, 1.1) =
// 6000 ms; Sparklens's definition, the longest task over all attempts of
// each stage, gives 1400 + 3000 = 4400.
//
// Replay at 4 slots (the recorded 2 executors x 2 cores): job 0 is released
// at 1000, stage 0 launches 100 ms later (1100), attempt 0 ends with its
// longest task at 2500, the retry 100 ms later (its recorded submission to
// launch) at 2600 and ends at 3700; stage 1 becomes ready 200 ms later
// (recorded: 2700 launch - 2500 first completion of stage 0) at 3900, its
// attempt 0 ends at 4400, its retry starts at 4500 and ends at 7500 (the
// 3000 ms task), the stage completes 50 ms later, the job 50 and the
// application 50: 7650 ms for 8000 recorded; merging the attempts into one
// wave, as before, gave 6350. At 1 slot: 1100 + 4500 + 100 + 1900 = 7600,
// + 200 + 800 + 100 + 5350 = 14050, + 150 = 14200. At 2 slots the replay
// halves the executors at every moment, as the recorded ones came and went:
// 2 slots, 1 while executor 2 is lost (3000 to 6000), 2 again. Attempt 0
// of stage 0 ends at 3700 (1000 then 900 on one slot, 1200 then 1400 on the
// other), its retry runs on the one slot left: 800 from 3800, 1100 from
// 4600 to 5700; stage 1 is ready at 5900, its 500 ms task runs to 6400 and
// its 300 ms one from 6000 (executor 3) to 6300; its retry starts at 6500
// and its 3000 ms task ends at 9500: + 150 = 9650.
func TestRetryReplayByHand(t *testing.T) {
	w, err := FromApp(loadOne(t, retryLog))
	if err != nil {
		t.Fatal(err)
	}
	if cp := FindCriticalPath(w); cp.Ms != 6000 || !slices.Equal(cp.Stages, []int32{0, 1}) {
		t.Errorf("critical path %+v, want 6000 ms through stages 0, 1", cp)
	}
	if f := Sparklens(w); f.CriticalPathMs != 4400 {
		t.Errorf("Sparklens critical path %d, want 4400", f.CriticalPathMs)
	}
	p := NewPlan(w)
	for slots, want := range map[int]int64{1: 14200, 2: 9650, 4: 7650, 8: 7650} {
		if got, err := p.Replay(slots); err != nil || got != want {
			t.Errorf("replay at %d slots: %d ms (%v), want %d", slots, got, err, want)
		}
	}
	wi, err := EstimateWhatIf(w, []int{100})
	if err != nil || wi.ModelMs != 7650 || wi.RecordedMs != 8000 {
		t.Errorf("what-if: model %d of recorded %d (%v), want 7650 of 8000", wi.ModelMs, wi.RecordedMs, err)
	}
}

// TestResubmittedRealLog checks, on the real log with 50 Resubmitted
// records, that the workload has one task per TaskEnd event that is not
// one: expected-counts.tsv's task count (every TaskEnd, counted by a
// separate decoder) less the Resubmitted records counted in the raw bytes.
func TestResubmittedRealLog(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	rel := "rapids-tools/core/src/test/resources/spark-events-profiling/tasks_executors_fail_compressed_eventlog.zstd"
	taskEnds := expectedTasks(t, rel)
	raw, err := io.ReadAll(sharedtest.RawLog(t, filepath.Join(root, rel)))
	if err != nil {
		t.Fatal(err)
	}
	resub := bytes.Count(raw, []byte(`"Task End Reason":{"Reason":"Resubmitted"}`))
	w, err := FromApp(loadOne(t, filepath.Join(root, rel)))
	if err != nil {
		t.Fatal(err)
	}
	if resub != 50 || w.NumTasks() != taskEnds-resub {
		t.Errorf("%d task attempts, want %d TaskEnd events less %d Resubmitted records (want 50)", w.NumTasks(), taskEnds, resub)
	}
	// Executors live from their add to their remove event (two were lost),
	// or to the application's end.
	added, removed := map[string]int64{}, map[string]int64{}
	for _, line := range bytes.Split(raw, []byte("\n")) {
		var ev struct {
			Event     string
			Timestamp int64
			Executor  string `json:"Executor ID"`
		}
		if json.Unmarshal(line, &ev) != nil {
			continue
		}
		switch ev.Event {
		case "SparkListenerExecutorAdded":
			added[ev.Executor] = ev.Timestamp
		case "SparkListenerExecutorRemoved":
			removed[ev.Executor] = ev.Timestamp
		}
	}
	if len(removed) != 2 || len(w.Executors) != len(added) {
		t.Fatalf("%d executors, %d removed; the workload has %d", len(added), len(removed), len(w.Executors))
	}
	for _, e := range w.Executors {
		end, ok := removed[e.ID]
		if !ok {
			end = w.End
		}
		if e.Added != max(added[e.ID], w.Start) || e.Ended != end {
			t.Errorf("executor %s alive [%d, %d], want [%d, %d]", e.ID, e.Added, e.Ended, added[e.ID], end)
		}
	}
}

// expectedTasks is the tasks column of shared/data/logs/expected-counts.tsv
// for the log at rel.
func expectedTasks(t *testing.T, rel string) int {
	t.Helper()
	_, rows := sharedtest.ExpectedRows(t, "spark-eventlog", 1)
	for _, cols := range rows {
		if cols[1] == rel {
			n, err := strconv.Atoi(cols[8])
			if err != nil {
				t.Fatalf("expected-counts.tsv: tasks of %s: %v", rel, err)
			}
			return n
		}
	}
	t.Fatalf("expected-counts.tsv has no row for %s", rel)
	return 0
}

// TestMisdatedTasksLeftOut checks the sparkscope test logs whose task
// records were spliced in from other runs: every TaskEnd launches over a
// minute before its stage's submission (2018 in a 2023 application) or
// after the application's end (two months later), as a plain
// encoding/json scan shows, so no task is left to model.
func TestMisdatedTasksLeftOut(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	for _, name := range []string{"app-20231025121456-0004-eventLog-finished-exec-removed", "app-20231025121456-0004-eventLog-running-exec-removed"} {
		path := filepath.Join(root, "sparkscope/src/test/resources/eventlog", name)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var submitted, end int64
		var launches []int64
		for _, line := range bytes.Split(raw, []byte("\n")) {
			var ev struct {
				Event     string
				Timestamp int64
				Info      struct {
					Launch int64 `json:"Launch Time"`
				} `json:"Task Info"`
				Stage struct {
					Submitted int64 `json:"Submission Time"`
				} `json:"Stage Info"`
			}
			if json.Unmarshal(line, &ev) != nil {
				continue
			}
			switch ev.Event {
			case "SparkListenerStageSubmitted":
				submitted = ev.Stage.Submitted
			case "SparkListenerApplicationEnd":
				end = ev.Timestamp
			case "SparkListenerTaskEnd":
				launches = append(launches, ev.Info.Launch)
			}
		}
		kept := 0
		for _, l := range launches {
			if l >= submitted-60_000 && (end == 0 || l <= end+60_000) {
				kept++
			}
		}
		_, err = FromApp(loadOne(t, path))
		if len(launches) == 0 || kept != 0 || !errors.Is(err, ErrNoTasks) {
			t.Errorf("%s: %d of %d TaskEnd launches in the application's window; FromApp: %v, want %v", name, kept, len(launches), err, ErrNoTasks)
		}
	}
}
