package perfmodel

import (
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// oneStageApp is a Spark application of one job and one stage whose tasks
// launch together on slots slots at 1000 and take durs ms; the application
// ends 100 ms after its last task.
func oneStageApp(slots int, durs ...int64) *model.App {
	app := &model.App{ID: "app", Engine: model.Spark, Start: 500, Complete: true}
	app.Executors = []*model.Executor{{ID: "1", Cores: int32(slots), Added: 1}}
	st := &model.Stage{ID: 0, Submitted: 1000, JobIDs: []int32{0}, Status: model.StageComplete}
	var last int64
	for k, d := range durs {
		launch := int64(1000)
		st.AddTask(model.Task{ID: int64(k), Index: int32(k), Launch: launch, Finish: launch + d, Status: model.TaskSuccess}, &model.TaskMetrics{})
		last = max(last, launch+d)
	}
	st.Completed = last
	app.Stages = []*model.Stage{st}
	app.Jobs = []*model.Job{{ID: 0, Submitted: 1000, Completed: last, StageIDs: []int32{0}}}
	app.End = last + 100
	return app
}

// TestWithoutStraggler: four tasks on four slots, one of them 10 s where
// the others take 1 s. Without the straggler (cut to the median, 1 s) the
// stage and the application end 9 s sooner, and 9 core-seconds go.
func TestWithoutStraggler(t *testing.T) {
	w, err := FromApp(oneStageApp(4, 1000, 1000, 10000, 1000))
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewPlan(w).Without(Edit{Duration: func(_, _ int, d int64) int64 { return min(d, 1000) }})
	if err != nil || s.WallMs != 9000 || s.CoreMs != 9000 || s.BaseMs != 10600 {
		t.Errorf("saving %+v (%v), want 9000 ms wall, 9000 core-ms, from 10600", s, err)
	}
	// On one slot the tasks run one after another: the straggler's excess
	// is the saving still.
	w1, _ := FromApp(oneStageApp(1, 1000, 1000, 10000, 1000))
	if s, _ := NewPlan(w1).Without(Edit{Duration: func(_, _ int, d int64) int64 { return min(d, 1000) }}); s.WallMs != 9000 {
		t.Errorf("one slot: saving %+v, want 9000 ms", s)
	}
	// An edit that changes nothing saves nothing.
	if s, _ := NewPlan(w).Without(Edit{}); s.WallMs != 0 || s.CoreMs != 0 {
		t.Errorf("empty edit saves %+v", s)
	}
}

// TestWithoutSlowMapMapReduce: a MapReduce job whose reduce launched at
// once (slow-start) and waited for its maps: 3 maps of 1 s and one of 20 s
// from 1000, a reduce from 1500 to 22500 (1 s of work after the last map at
// 21000, then 500 ms of its own). Without the slow map the maps end at
// 2000 and the reduce 1.5 s later: the job ends 19 s sooner. The plain
// replay, which keeps the reduce's recorded 21 s, would save nothing.
func TestWithoutSlowMapMapReduce(t *testing.T) {
	app := &model.App{ID: "job_1", Engine: model.MapReduce, Start: 0, Complete: true, End: 23000}
	app.Executors = []*model.Executor{{ID: "h", Cores: 8, Added: 1}}
	maps := &model.Stage{ID: 0, Kind: model.StageMap, Submitted: 1000, JobIDs: []int32{0}, Status: model.StageComplete, Completed: 21000}
	for k, d := range []int64{1000, 1000, 20000, 1000} {
		maps.AddTask(model.Task{ID: int64(k), Index: int32(k), Launch: 1000, Finish: 1000 + d, Status: model.TaskSuccess}, &model.TaskMetrics{})
	}
	red := &model.Stage{ID: 1, Kind: model.StageReduce, Submitted: 1500, JobIDs: []int32{0}, Status: model.StageComplete, Completed: 22500}
	red.AddTask(model.Task{ID: 10, Launch: 1500, Finish: 22500, Status: model.TaskSuccess}, &model.TaskMetrics{})
	app.Stages = []*model.Stage{maps, red}
	app.Jobs = []*model.Job{{ID: 0, Submitted: 1000, Completed: 22600, StageIDs: []int32{0, 1}}}
	w, err := FromApp(app)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(w)
	if c, _ := p.Check(); c.ModelError > 0.01 {
		t.Errorf("self-check %+v", c)
	}
	s, err := p.Without(Edit{Duration: func(stage, _ int, d int64) int64 {
		if w.Stages[stage].Kind == model.StageMap {
			return min(d, 1000)
		}
		return d
	}})
	if err != nil || s.WallMs != 19000 || s.CoreMs != 19000 {
		t.Errorf("saving %+v (%v), want 19000 ms wall and core", s, err)
	}
}

// TestWithoutChurn: an executor lost after the first task and the next
// one 5 s later, as application_1538416563558_0014's executors came and
// went. The replay at the recorded configuration follows their lives and
// reproduces the run; without the churn (Steady) the 5 s without an
// executor go.
func TestWithoutChurn(t *testing.T) {
	app := oneStageApp(1, 3000, 3000, 3000)
	// The executor dies after the first task; a new one comes 5 s later.
	app.Executors = []*model.Executor{{ID: "1", Cores: 1, Added: 1, Removed: 4000}, {ID: "2", Cores: 1, Added: 9000}}
	st := app.Stages[0]
	st.Tasks[1].Launch, st.Tasks[1].Finish = 9000, 12000
	st.Tasks[2].Launch, st.Tasks[2].Finish = 12000, 15000
	st.Completed, app.Jobs[0].Completed, app.End = 15000, 15000, 15100
	w, err := FromApp(app)
	if err != nil {
		t.Fatal(err)
	}
	p := NewPlan(w)
	if c, _ := p.Check(); c.ModelMs != 14600 {
		t.Errorf("self-check %+v, want the recorded 14600 ms", c)
	}
	if s, _ := p.Without(Edit{Steady: true}); s.WallMs != 5000 {
		t.Errorf("steady executor saves %+v, want the 5000 ms with none", s)
	}
}

// TestStageAloneResumes: the replay alone resumed from the recorded
// replay's checkpoints gives the end a replay from the start gives, for
// edits whose first change falls before, on and after a checkpoint.
func TestStageAloneResumes(t *testing.T) {
	durs := make([]int64, 3*aloneEvery+17)
	for k := range durs {
		durs[k] = int64(100 + (k*7919)%900)
	}
	p := NewPlan(&Workload{Stages: []Stage{{Durations: durs}}, Jobs: []Job{{Stages: []int{0}}}})
	p.peak = 13
	naive := func(e Edit) int64 {
		free := make([]int64, p.peak)
		ds := slices.Clone(durs)
		for k, d := range ds {
			if e.Duration != nil {
				ds[k] = max(0, min(d, e.Duration(0, k, d)))
			}
		}
		return aloneRun(free, 0, ds, nil)
	}
	for _, from := range []int{0, 5, aloneEvery - 1, aloneEvery, 2*aloneEvery + 3, len(durs) - 1} {
		e := Edit{Duration: func(_, k int, d int64) int64 {
			if k >= from && k%3 == 0 {
				return d / 4
			}
			return d
		}}
		rec, ed := p.StageAlone(0, e)
		if want := naive(Edit{}); rec != want {
			t.Errorf("from %d: recorded %d, want %d", from, rec, want)
		}
		if want := naive(e); ed != want {
			t.Errorf("from %d: edited %d, want %d", from, ed, want)
		}
	}
}
