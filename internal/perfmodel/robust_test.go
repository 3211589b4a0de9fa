package perfmodel

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// randomApp makes an application with arbitrary, often inconsistent times
// and links: tasks finishing before launch, stages with parents of higher
// ids or unknown ids, stages in no job or in unknown jobs, duplicate jobs,
// executors removed before they were added, missing application times.
func randomApp(rng *rand.Rand) *model.App {
	t := func() int64 { return rng.Int64N(2000) - 100 }
	app := &model.App{ID: "random", Engine: model.Spark, Start: t(), End: t(), Complete: rng.IntN(2) == 0}
	for e := 0; e < rng.IntN(4); e++ {
		app.Executors = append(app.Executors, &model.Executor{ID: string(rune('a' + e)), Cores: int32(rng.IntN(4)), Added: t(), Removed: t()})
	}
	nStages := rng.IntN(8)
	for s := 0; s < nStages; s++ {
		st := &model.Stage{ID: int32(rng.IntN(6)), Attempt: int32(rng.IntN(2)), Submitted: t(), Completed: t()}
		for p := 0; p < rng.IntN(3); p++ {
			st.ParentIDs = append(st.ParentIDs, int32(rng.IntN(8))-1)
		}
		if rng.IntN(3) > 0 {
			st.JobIDs = []int32{int32(rng.IntN(4))}
		}
		for k := 0; k < rng.IntN(6); k++ {
			launch := t()
			st.AddTask(model.Task{ID: int64(k), Launch: launch, Finish: launch + rng.Int64N(300) - 20, Status: model.TaskStatus(rng.IntN(5))}, &model.TaskMetrics{})
		}
		app.Stages = append(app.Stages, st)
	}
	for j := 0; j < rng.IntN(5); j++ {
		app.Jobs = append(app.Jobs, &model.Job{ID: int32(rng.IntN(4)), Submitted: t(), Completed: t(), StageIDs: []int32{int32(rng.IntN(6))}})
	}
	return app
}

// TestRandomAppsNeverPanic runs every analysis on thousands of inconsistent
// applications: each either has no tasks or yields consistent numbers, and
// the replay always finishes.
func TestRandomAppsNeverPanic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 3000; i++ {
		app := randomApp(rng)
		w, err := FromApp(app)
		if err != nil {
			if !errors.Is(err, ErrNoTasks) {
				t.Fatalf("app %d: %v", i, err)
			}
			continue
		}
		e := Analyze(w)
		if e.DriverMs < 0 || e.ExecutorMs < 0 || e.DriverMs+e.ExecutorMs != e.AppMs || e.CoreMsWasted < 0 {
			t.Fatalf("app %d: inconsistent %+v", i, e.WallClock)
		}
		if _, err := EstimateWhatIf(w, nil); err != nil {
			t.Fatalf("app %d: %v", i, err)
		}
		_ = Sparklens(w)
	}
}
