package dataflow

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// randomApp builds an application with random, often inconsistent, times
// and metrics: executors added late or removed early or never, attempts
// overlapping beyond the cores, unfinished, unlaunched or on unknown
// executors, metrics negative or larger than the attempt.
func randomApp(rng *rand.Rand, engine model.Engine) *model.App {
	app := &model.App{ID: "random", Engine: engine, Hosts: []string{"", "h0", "h1", "h2"}}
	if rng.IntN(4) > 0 {
		app.Start = rng.Int64N(1000)
	}
	if rng.IntN(4) > 0 {
		app.End = rng.Int64N(20000)
	}
	for e := range 1 + rng.IntN(4) {
		ex := &model.Executor{ID: strconv.Itoa(e), Host: app.Hosts[1+rng.IntN(3)], Cores: int32(rng.IntN(5))}
		if rng.IntN(3) > 0 {
			ex.Added = rng.Int64N(5000)
		}
		if rng.IntN(2) == 0 {
			ex.Removed = rng.Int64N(20000)
		}
		app.Executors = append(app.Executors, ex)
	}
	if rng.IntN(5) == 0 {
		app.Executors = append(app.Executors, nil)
	}
	kinds := []model.StageKind{model.StageSpark}
	if engine == model.MapReduce {
		kinds = []model.StageKind{model.StageMap, model.StageReduce, model.StageSetup}
	}
	for s := range 1 + rng.IntN(4) {
		st := &model.Stage{ID: int32(s), Kind: kinds[rng.IntN(len(kinds))]}
		for i := range rng.IntN(30) {
			var m model.TaskMetrics
			for k := range m {
				if rng.IntN(3) == 0 {
					m[k] = rng.Int64N(20000) - 2000
				}
			}
			m[model.ShuffleWriteNanos] *= 1e6
			t := model.Task{ID: int64(i), Launch: rng.Int64N(15000) - 100, Executor: uint32(rng.IntN(len(app.Executors) + 1)),
				Host: uint32(rng.IntN(5)), Status: model.TaskStatus(rng.IntN(5)), HasMetrics: rng.IntN(4) > 0}
			if rng.IntN(6) > 0 {
				t.Finish = t.Launch + rng.Int64N(6000) - 300
			}
			if rng.IntN(3) == 0 {
				t.GettingResult = t.Launch + rng.Int64N(7000)
			}
			st.AddTask(t, &m)
		}
		app.Stages = append(app.Stages, st)
	}
	return app
}

// TestRandomAppsAddUp checks, over thousands of random applications, that
// nothing panics, no number is negative and every breakdown adds up.
func TestRandomAppsAddUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for n := range 3000 {
		engine := model.Spark
		if n%2 == 1 {
			engine = model.MapReduce
		}
		app := randomApp(rng, engine)
		r, err := Reconstruct(app, Options{TailFraction: rng.Float64()})
		if err != nil {
			t.Fatalf("app %d: %v", n, err)
		}
		for i, a := range r.Attempts {
			var sum int64
			for _, d := range a.Dur {
				if d < 0 {
					t.Fatalf("app %d attempt %d: negative phase %v", n, i, a.Dur)
				}
				sum += int64(d)
			}
			if sum != a.End-a.Start || a.GC < 0 || a.Wait < 0 || int64(a.GC)+int64(a.Wait) > sum {
				t.Fatalf("app %d attempt %d: %+v", n, i, a)
			}
		}
		b := BuildBreakdown(r)
		var alloc int64
		for i := range b.Executors {
			e := &b.Executors[i]
			checkAddsUp(t, "executor", &e.Times)
			if e.Total != int64(e.Slots)*(e.End-e.Start) {
				t.Fatalf("app %d executor %s: total %d, slots %d, span %d..%d", n, e.ID, e.Total, e.Slots, e.Start, e.End)
			}
			alloc += e.Total
		}
		for i := range b.Stages {
			checkAddsUp(t, "stage", &b.Stages[i].Times)
		}
		checkAddsUp(t, "application", &b.App)
		if b.App.Total != alloc || b.DriverMs < 0 || b.DriverMs > b.WallMs {
			t.Fatalf("app %d: total %d vs %d, driver %d of wall %d", n, b.App.Total, alloc, b.DriverMs, b.WallMs)
		}
		tl := BuildTimeline(r, TimelineOptions{PerTask: n%3 == 0})
		var w sliceWriter
		w.b = new([]byte)
		if err := tl.WriteText(&w, 1+rng.IntN(50), 1+rng.IntN(5)); err != nil {
			t.Fatal(err)
		}
		if t.Failed() {
			t.Fatalf("app %d failed", n)
		}
	}
}
