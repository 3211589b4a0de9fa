package dataflow

import (
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
)

// retryLog is a hand-written Spark 3.4 event log (41 lines) with a
// FetchFailed stage retry; internal/perfmodel's tests use it too. Times are
// milliseconds after the application start:
//
//	executors 1 (host-a) and 2 (host-b), 2 cores, added at 100; 3 (host-c) at 6000
//	stage 0.0 (map): tasks 0..3, partitions 0..3: 0 on 1 1100→2100, 1 on 1 1100→2300,
//	                 2 on 2 1100→2000, 3 on 2 1100→2500
//	stage 1.0 (reduce): task 5 (p1, exec 2) 2700→3000 ExecutorLostFailure; executor 2
//	                 removed at 3000; a Resubmitted TaskEnd for task 3; task 4 (p0, exec 1)
//	                 2700→3200 FetchFailed; the stage attempt fails at 3300
//	stage 0.1: tasks 6 (p2) 3500→4300 and 7 (p3) 3500→4600 on executor 1
//	stage 1.1: tasks 8 (p0) 4800→5800 and 9 (p1) 4800→7800 on executor 1; task 10, a
//	                 speculative copy of p1 on executor 3, 6500→7850, killed
//	job 0 ends at 7950, the application at 8000
const retryLog = "../perfmodel/testdata/app-fetchfailed-retry"

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

// TestFetchFailedRetryByHand checks the reconstruction and breakdown of the
// hand-written retry log against numbers worked out from its timestamps:
// every stage attempt is its own breakdown row; the Resubmitted record is no
// attempt of its own; failed, killed, lost and re-run attempts are wasted;
// the lost executor's allocation ends at its removal.
func TestFetchFailedRetryByHand(t *testing.T) {
	app := loadApp(t, retryLog)
	if q := app.Quality; q.Lines != 41 || q.BadLines+q.UnknownEvents+q.Incomplete != 0 || len(q.Issues) != 0 || !app.Complete {
		t.Fatalf("the log reads with problems: %+v", q)
	}
	r, err := Reconstruct(app, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Attempts) != 11 || r.Resubmitted != 1 || r.Skipped != 0 {
		t.Fatalf("%d attempts, %d resubmitted records, %d skipped; want 11, 1, 0", len(r.Attempts), r.Resubmitted, r.Skipped)
	}
	b := BuildBreakdown(r)
	type row struct {
		id, attempt         int32
		attempts            int
		taskTime, wastedOut int64
	}
	want := []row{
		{0, 0, 4, 1000 + 1200 + 900 + 1400, 900 + 1400}, // task 2: partition re-run in 0.1; task 3: output lost
		{1, 0, 2, 500 + 300, 500 + 300},                 // FetchFailed and ExecutorLostFailure
		{0, 1, 2, 800 + 1100, 0},
		{1, 1, 3, 1000 + 3000 + 1350, 1350}, // the killed speculative copy
	}
	if len(b.Stages) != len(want) {
		t.Fatalf("%d stage rows, want %d", len(b.Stages), len(want))
	}
	var task, wasted int64
	for i, w := range want {
		s := &b.Stages[i]
		if s.ID != w.id || s.Attempt != w.attempt || s.Attempts != w.attempts || s.TaskTime() != w.taskTime || s.Wasted != w.wastedOut {
			t.Errorf("stage row %d: %d.%d, %d attempts, task time %d, wasted %d; want %d.%d, %d, %d, %d",
				i, s.ID, s.Attempt, s.Attempts, s.TaskTime(), s.Wasted, w.id, w.attempt, w.attempts, w.taskTime, w.wastedOut)
		}
		checkAddsUp(t, "stage", &s.Times)
		task += w.taskTime
		wasted += w.wastedOut
	}
	if b.App.TaskTime() != task || b.App.Wasted != wasted {
		t.Errorf("application task time %d, wasted %d; want %d, %d", b.App.TaskTime(), b.App.Wasted, task, wasted)
	}
	start := app.Start
	wantExec := map[string][3]int64{"1": {100, 8000, 2}, "2": {100, 3000, 2}, "3": {6000, 8000, 2}}
	for _, e := range b.Executors {
		w, ok := wantExec[e.ID]
		if !ok || e.Start-start != w[0] || e.End-start != w[1] || int64(e.Slots) != w[2] {
			t.Errorf("executor %s: [%d, %d] with %d slots; want %v", e.ID, e.Start-start, e.End-start, e.Slots, w)
		}
		checkAddsUp(t, "executor "+e.ID, &e.Times)
	}
	if len(b.Executors) != len(wantExec) {
		t.Errorf("%d executors, want %d", len(b.Executors), len(wantExec))
	}
	// The timeline marks the wasted attempts' bars: tasks 2, 3, 4, 5, 10.
	var wastedMs int64
	for _, l := range BuildTimeline(r, TimelineOptions{}).Lines {
		for _, x := range l.Bars {
			if x.Wasted {
				wastedMs += x.End - x.Start
			}
		}
	}
	if wastedMs != wasted {
		t.Errorf("timeline: %d ms of wasted bars, want %d", wastedMs, wasted)
	}
}

// TestSpeculativeDoubleSuccess checks a stage attempt in which a task and
// its speculative copy both succeeded (Spark logs both and keeps the
// first to finish): the later one's 3000 ms are wasted, the killed copy of
// the other task (500 ms) too, and the winners are not.
func TestSpeculativeDoubleSuccess(t *testing.T) {
	app := &model.App{ID: "spec", Engine: model.Spark, Start: 1000, End: 10000, Complete: true, Hosts: []string{"", "A", "B"}}
	app.Executors = []*model.Executor{{ID: "1", Host: "A", Cores: 2, Added: 1000}, {ID: "2", Host: "B", Cores: 2, Added: 1000}}
	app.Reasons = []model.Reason{{}, {Kind: "TaskKilled"}}
	st := &model.Stage{ID: 0, Kind: model.StageSpark, NumTasks: 2, Submitted: 1000, Completed: 8000}
	var m model.TaskMetrics
	for _, x := range []model.Task{
		{ID: 0, Index: 0, Launch: 1000, Finish: 7000, Executor: 0, Host: 1, Status: model.TaskSuccess},                              // original, finishes first
		{ID: 2, Index: 0, Launch: 5000, Finish: 8000, Executor: 1, Host: 2, Status: model.TaskSuccess, Speculative: true},           // copy, finishes later
		{ID: 1, Index: 1, Launch: 1000, Finish: 4000, Executor: 0, Host: 1, Status: model.TaskSuccess},                              // original wins
		{ID: 3, Index: 1, Launch: 3500, Finish: 4000, Executor: 1, Host: 2, Status: model.TaskKilled, Reason: 1, Speculative: true}, // killed copy
	} {
		st.AddTask(x, &m)
	}
	app.Stages = []*model.Stage{st}
	r, err := Reconstruct(app, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []bool{false, true, false, true}
	for i, a := range r.Attempts {
		if a.Wasted != want[i] {
			t.Errorf("task %d: wasted %v, want %v", st.Tasks[a.Task].ID, a.Wasted, want[i])
		}
	}
	if b := BuildBreakdown(r); b.App.Wasted != 3000+500 {
		t.Errorf("wasted %d ms, want 3500", b.App.Wasted)
	}
}
