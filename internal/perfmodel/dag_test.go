package perfmodel

import (
	"errors"
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// diamond builds, by hand, one job whose stages form a diamond: stage 0
// (2 tasks of 10 s) feeds stages 1 (4 x 5 s) and 2 (1 x 30 s), which both
// feed stage 3 (2 x 4 s), on one executor of 2 cores. A second job (stage
// 4, 2 x 6 s) is submitted 5 s after the first completes. Recorded (s after
// the start 0), as Spark's FIFO scheduler runs it:
//
//	job 0 at 1; stage 0 1→11; stages 1 and 2 are submitted at 11, stage 1
//	(lower id) takes both cores 11→21, then stage 2 21→51 (it waited for
//	slots: 2 of stage 1's tasks held both at its submission); stage 3
//	51→55; job 0 completes 55; job 1 at 60, stage 4 60→66; the
//	application ends 70.
//
// Critical path: 10 + max(5, 30) + 4 = 44 in job 0, then 6 in job 1: 50,
// through stages 0, 2, 3, 4. Used: 20 + 20 + 30 + 8 + 12 = 90 core-s.
// Stage windows cover 1→55 and 60→66, so the driver has 1 + 5 + 4 = 10 s of
// 70; ideal 10 + 90/2 = 55 s; critical path with the driver 60 s.
func diamond() *model.App {
	const s = 1000
	app := &model.App{ID: "diamond", Engine: model.Spark, Start: 0 + 1, End: 70*s + 1, Complete: true}
	app.Executors = []*model.Executor{{ID: "1", Cores: 2, Added: 1}}
	id := int64(0)
	stage := func(sid int32, job int32, parents []int32, sub, comp int64, tasks ...[2]int64) {
		st := &model.Stage{ID: sid, JobIDs: []int32{job}, ParentIDs: parents, Submitted: sub*s + 1, Completed: comp*s + 1, Status: model.StageComplete}
		for _, t := range tasks {
			id++
			st.AddTask(model.Task{ID: id, Launch: t[0]*s + 1, Finish: t[1]*s + 1, Status: model.TaskSuccess}, &model.TaskMetrics{})
		}
		app.Stages = append(app.Stages, st)
	}
	stage(0, 0, nil, 1, 11, [2]int64{1, 11}, [2]int64{1, 11})
	stage(1, 0, []int32{0}, 11, 21, [2]int64{11, 16}, [2]int64{11, 16}, [2]int64{16, 21}, [2]int64{16, 21})
	stage(2, 0, []int32{0}, 11, 51, [2]int64{21, 51})
	stage(3, 0, []int32{1, 2}, 51, 55, [2]int64{51, 55}, [2]int64{51, 55})
	stage(4, 1, nil, 60, 66, [2]int64{60, 66}, [2]int64{60, 66})
	app.Jobs = []*model.Job{
		{ID: 0, Submitted: 1*s + 1, Completed: 55*s + 1, StageIDs: []int32{0, 1, 2, 3}},
		{ID: 1, Submitted: 60*s + 1, Completed: 66*s + 1, StageIDs: []int32{4}},
	}
	return app
}

func TestDiamondByHand(t *testing.T) {
	w, err := FromApp(diamond())
	if err != nil {
		t.Fatal(err)
	}
	e := Analyze(w)
	if e.CriticalPath.Ms != 50_000 || !slices.Equal(e.CriticalPath.Stages, []int32{0, 2, 3, 4}) {
		t.Errorf("critical path %+v, want 50000 ms through [0 2 3 4]", e.CriticalPath)
	}
	if e.AppMs != 70_000 || e.DriverMs != 10_000 || e.CoreMsUsed != 90_000 || e.IdealAppMs != 55_000 || e.CriticalPathAppMs != 60_000 {
		t.Errorf("driver %d used %d ideal %v critical-path app %d", e.DriverMs, e.CoreMsUsed, e.IdealAppMs, e.CriticalPathAppMs)
	}
	if w.Stages[2].BusyAtSubmit != 2 || w.Stages[1].BusyAtSubmit != 0 {
		t.Errorf("busy at submission: stage 1 %d, stage 2 %d; want 0, 2", w.Stages[1].BusyAtSubmit, w.Stages[2].BusyAtSubmit)
	}
	plan := NewPlan(w)
	// 2 slots: as recorded, 70 s (stage 2's 10 s wait is contention, not delay).
	// 1 slot: stage 0 1→21; stages 1 and 2 ready at 21, FIFO serves stage 1
	// first (lower id): 21→41, stage 2 41→71; stage 3 71→79; job 0 done 79;
	// job 1 after the 5 s gap at 84, stage 4 84→96; +4 s tail: 100 s.
	// 4 slots: stage 0 1→11; stage 1's 4 tasks take all 4 slots 11→16,
	// stage 2 16→46; stage 3 46→50; job 1 55→61; +4: 65 s. (Had stage 2's
	// recorded 10 s wait been kept as delay it would start at 21: 70 s.)
	for slots, want := range map[int]int64{1: 100_000, 2: 70_000, 4: 65_000} {
		got, err := plan.Replay(slots)
		if err != nil || got != want {
			t.Errorf("replay on %d slots = %d, %v; want %d", slots, got, err, want)
		}
	}
	if _, err := plan.Replay(0); err == nil {
		t.Error("replay on 0 slots accepted")
	}
}

// TestConcurrentJobsShareSlots: two jobs submitted together (overlapping
// windows) are not chained; at 1 slot they queue behind each other in FIFO
// order, job 0 first.
func TestConcurrentJobsShareSlots(t *testing.T) {
	const s = 1000
	app := &model.App{ID: "conc", Engine: model.Spark, Start: 1, End: 10*s + 1, Complete: true}
	app.Executors = []*model.Executor{{ID: "1", Cores: 2, Added: 1}}
	for j := int32(0); j < 2; j++ {
		st := &model.Stage{ID: j, JobIDs: []int32{j}, Submitted: 1, Completed: 10*s + 1}
		st.AddTask(model.Task{ID: int64(j), Launch: 1, Finish: 10*s + 1, Status: model.TaskSuccess}, &model.TaskMetrics{})
		app.Stages = append(app.Stages, st)
		app.Jobs = append(app.Jobs, &model.Job{ID: j, Submitted: 1, Completed: 10*s + 1, StageIDs: []int32{j}})
	}
	w, err := FromApp(app)
	if err != nil {
		t.Fatal(err)
	}
	if cp := FindCriticalPath(w); cp.Ms != 10*s {
		t.Errorf("critical path of parallel jobs = %d, want 10000", cp.Ms)
	}
	plan := NewPlan(w)
	for slots, want := range map[int]int64{1: 20 * s, 2: 10 * s} {
		if got, err := plan.Replay(slots); err != nil || got != want {
			t.Errorf("%d slots: %d, %v; want %d", slots, got, err, want)
		}
	}
}

func TestNoTasks(t *testing.T) {
	if _, err := FromApp(&model.App{ID: "empty"}); !errors.Is(err, ErrNoTasks) {
		t.Errorf("err = %v, want ErrNoTasks", err)
	}
}

// TestCoresFromTasks: without executor cores (old local logs) the slots are
// the most tasks observed running at once.
func TestCoresFromTasks(t *testing.T) {
	app := diamond()
	app.Executors = nil
	w, err := FromApp(app)
	if err != nil {
		t.Fatal(err)
	}
	c := CoresOf(w)
	if !c.FromTasks || c.Slots != 2 {
		t.Errorf("cores %+v, want 2 slots from tasks", c)
	}
}

// TestTaskCPUs: spark.task.cpus=2 on 4 cores leaves 2 slots, and used core
// time doubles.
func TestTaskCPUs(t *testing.T) {
	app := diamond()
	app.Executors[0].Cores = 4
	app.Env.Spark = [][2]string{{"spark.task.cpus", "2"}}
	w, err := FromApp(app)
	if err != nil {
		t.Fatal(err)
	}
	e := Analyze(w)
	if e.Cores.Slots != 2 || e.CoreMsUsed != 180_000 || e.IdealAppMs != 55_000 {
		t.Errorf("slots %d used %d ideal %v; want 2, 180000, 55000", e.Cores.Slots, e.CoreMsUsed, e.IdealAppMs)
	}
}
