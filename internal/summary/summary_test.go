package summary

import (
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// TestBuildByHand checks every total of a tiny application computed by hand.
func TestBuildByHand(t *testing.T) {
	app := &model.App{ID: "app-1", Engine: model.Spark, Start: 1000, End: 9000, Complete: true,
		Hosts: []string{"", "h1", "h2"}, Reasons: []model.Reason{{}, {Kind: "ExceptionFailure", Message: "boom\n at x"}},
		Executors: []*model.Executor{{ID: "1", Host: "h1", Cores: 2}, {ID: "2", Host: "h2", Cores: 2}}}
	st := &model.Stage{ID: 0, Status: model.StageComplete, Submitted: 1000, Completed: 5000}
	add := func(exec, host uint32, launch, finish int64, status model.TaskStatus, reason uint32, input, gc int64) {
		var m model.TaskMetrics
		m[model.InputBytes], m[model.JVMGCTime] = input, gc
		m[model.ShuffleRemoteBytesRead], m[model.ShuffleLocalBytesRead] = 10, 5
		st.AddTask(model.Task{Executor: exec, Host: host, Launch: launch, Finish: finish, Status: status, Reason: reason}, &m)
	}
	// successful durations 100, 200, 300, 400, 2000 -> quantiles at floor(q*5): 100, 200, 300, 400, 2000
	add(0, 1, 1000, 1100, model.TaskSuccess, 0, 100, 1)
	add(0, 1, 1000, 1200, model.TaskSuccess, 0, 100, 1)
	add(1, 2, 1000, 1300, model.TaskSuccess, 0, 100, 1)
	add(1, 2, 1000, 1400, model.TaskSuccess, 0, 100, 1)
	add(1, 2, 1000, 3000, model.TaskSuccess, 0, 100, 1)
	add(0, 1, 1000, 1050, model.TaskFailed, 1, 0, 0)
	add(0, 1, 1000, 0, model.TaskRunning, 0, 0, 0)
	app.Stages = []*model.Stage{st}
	app.Jobs = []*model.Job{{ID: 0, Status: model.JobSucceeded, Submitted: 1000, Completed: 5000, StageIDs: []int32{0}}}

	s := Build(app)
	if s.Totals.Tasks != 6 || s.Totals.FailedTasks != 1 || s.Totals.RunningTasks != 1 || s.Totals.Hosts != 2 {
		t.Fatalf("totals %+v", s.Totals)
	}
	want := []float64{100, 200, 300, 400, 2000}
	for i, v := range want {
		if s.Stages[0].TaskDurationMs[i] != v {
			t.Fatalf("quantiles %v, want %v", s.Stages[0].TaskDurationMs, want)
		}
	}
	if s.Stages[0].SkewRatio != 2000.0/300 {
		t.Errorf("max/median %v", s.Stages[0].SkewRatio)
	}
	e1 := s.Executors[0]
	if e1.Tasks != 3 || e1.Failed != 1 || e1.TaskTimeMs != 100+200+50 || e1.InputBytes != 200 || e1.ShuffleReadBytes != 45 {
		t.Errorf("executor 1 %+v", e1)
	}
	if len(s.Failures) != 1 || s.Failures[0].Message != "boom" || s.Failures[0].Where != "stage 0.0" {
		t.Errorf("failures %+v", s.Failures)
	}
	if s.App.DurationMs != 8000 || s.Stages[0].DurationMs != 4000 || s.Jobs[0].DurationMs != 4000 {
		t.Errorf("durations app %d stage %d job %d", s.App.DurationMs, s.Stages[0].DurationMs, s.Jobs[0].DurationMs)
	}
}

// TestBuildResubmitted checks that a Resubmitted record counts as a failed
// task, as the History Server counts it, and stays out of the quantiles.
func TestBuildResubmitted(t *testing.T) {
	app := &model.App{ID: "app-1", Engine: model.Spark, Hosts: []string{"", "h1"},
		Reasons:   []model.Reason{{}, {Kind: model.ReasonResubmitted, Message: "Resubmitted (resubmitted due to node loss)"}},
		Executors: []*model.Executor{{ID: "1", Host: "h1", Cores: 1}}}
	st := &model.Stage{ID: 0, Status: model.StageComplete}
	var m model.TaskMetrics
	st.AddTask(model.Task{ID: 1, Host: 1, Launch: 1000, Finish: 1100, Status: model.TaskSuccess}, &m)
	st.AddTask(model.Task{ID: 2, Host: 1, Launch: 1000, Finish: 1300, Status: model.TaskSuccess}, &m)
	// task 1's output was lost: the same attempt again, reason Resubmitted
	st.AddTask(model.Task{ID: 1, Host: 1, Launch: 1000, Finish: 1100, Status: model.TaskSuccess, Reason: 1}, &m)
	app.Stages = []*model.Stage{st}
	s := Build(app)
	ss := s.Stages[0]
	if ss.Tasks != 3 || ss.Failed != 1 || ss.Resubmitted != 1 || ss.Killed != 0 {
		t.Errorf("stage tasks %d failed %d resubmitted %d killed %d", ss.Tasks, ss.Failed, ss.Resubmitted, ss.Killed)
	}
	if s.Totals.Tasks != 3 || s.Totals.FailedTasks != 1 || s.Totals.ResubmittedTasks != 1 {
		t.Errorf("totals %+v", s.Totals)
	}
	if q := ss.TaskDurationMs; len(q) != 5 || q[0] != 100 || q[4] != 300 || q[2] != 300 {
		t.Errorf("quantiles %v, want those of 100 and 300", q)
	}
	if e := s.Executors[0]; e.Tasks != 3 || e.Failed != 1 {
		t.Errorf("executor %+v", e)
	}
	if len(s.Failures) != 1 || s.Failures[0].Kind != model.ReasonResubmitted || s.Failures[0].Count != 1 {
		t.Errorf("failures %+v", s.Failures)
	}
}

// TestImpossibleTimesLeftOutOfDurations: in a 16 s application, one task
// launched a year early and one that ends before it launches count as tasks
// but in no duration, quantile or task time.
func TestImpossibleTimesLeftOutOfDurations(t *testing.T) {
	const start = 1_700_000_000_000
	year := int64(365 * 24 * 3600 * 1000)
	app := &model.App{ID: "app-1", Engine: model.Spark, Start: start, End: start + 16_000, Complete: true,
		Hosts: []string{"", "h1"}, Reasons: []model.Reason{{}},
		Executors: []*model.Executor{{ID: "1", Host: "h1", Cores: 2}}}
	st := &model.Stage{ID: 0, Status: model.StageComplete, Submitted: start, Completed: start + 10_000}
	var m model.TaskMetrics
	for _, tk := range []model.Task{
		{ID: 1, Launch: start + 1000, Finish: start + 2000},
		{ID: 2, Launch: start + 1000, Finish: start + 4000},
		{ID: 3, Launch: start + 3000 - year, Finish: start + 5000}, // a year early
		{ID: 4, Launch: start + 6000, Finish: start + 5000},        // ends before it launches
	} {
		tk.Executor, tk.Host, tk.Status = 0, 1, model.TaskSuccess
		st.AddTask(tk, &m)
	}
	app.Stages = []*model.Stage{st}
	app.AuditTimes()
	s := Build(app)
	if s.Totals.Tasks != 4 || s.Quality.ImpossibleTimes != 2 {
		t.Fatalf("tasks %d, impossible times %d", s.Totals.Tasks, s.Quality.ImpossibleTimes)
	}
	if q := s.Stages[0].TaskDurationMs; len(q) != 5 || q[0] != 1000 || q[4] != 3000 {
		t.Errorf("quantiles %v, want 1000..3000 from the two sound tasks", q)
	}
	if got := s.Executors[0].TaskTimeMs; got != 4000 {
		t.Errorf("executor task time %d ms, want 4000", got)
	}
	if got := s.Stages[0].TaskTimeMs; got != 4000 {
		t.Errorf("stage task time %d ms, want 4000", got)
	}
}
