package summary

import (
	"math/rand/v2"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// TestMinutes checks the per-minute bins of the simulator's applications
// against a plain recount: every ended attempt in the bin of its end,
// failures counted, and the quantiles those of stats.Quantiles over the
// bin's durations sorted with the standard library.
func TestMinutes(t *testing.T) {
	sc, err := sim.Named("imbalance")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	bins := 0
	for _, app := range res.Apps {
		const binMs = 30_000
		ms := Minutes(app, binMs)
		want := map[int64][]float64{}
		failed := map[int64]int{}
		for _, st := range app.Stages {
			for _, tk := range st.Tasks {
				if tk.Finish == 0 || tk.Finish < tk.Launch || tk.Status == model.TaskRunning {
					continue
				}
				k := (tk.Finish - ms[0].Start) / binMs
				want[k] = append(want[k], float64(tk.Finish-tk.Launch))
				if tk.Status != model.TaskSuccess {
					failed[k]++
				}
			}
		}
		if len(want) == 0 {
			t.Fatalf("%s: no ended task", app.ID)
		}
		for k, m := range ms {
			d := want[int64(k)]
			if m.Finished != len(d) || m.Failed != failed[int64(k)] {
				t.Errorf("%s bin %d: %d finished, %d failed; want %d, %d", app.ID, k, m.Finished, m.Failed, len(d), failed[int64(k)])
				continue
			}
			if len(d) == 0 {
				continue
			}
			q := stats.Quantiles(d, []float64{0.5, 0.9, 0.99, 1})
			if got := [4]int64{m.P50, m.P90, m.P99, m.Max}; got != [4]int64{int64(q[0]), int64(q[1]), int64(q[2]), int64(q[3])} {
				t.Errorf("%s bin %d: quantiles %v, want %v", app.ID, k, got, q)
			}
			bins++
		}
	}
	t.Logf("%d bins checked", bins)
	if bins < 5 {
		t.Errorf("only %d bins with tasks checked", bins)
	}
	if Minutes(&model.App{}, 0) != nil {
		t.Error("an application without tasks has bins")
	}
}

// BenchmarkMinutes bins a million task attempts over three hours.
func BenchmarkMinutes(b *testing.B) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(1, 2))
	app := &model.App{Start: 1_000_000}
	for s := 0; s < n/5000; s++ {
		st := &model.Stage{ID: int32(s)}
		for i := 0; i < 5000; i++ {
			launch := app.Start + rng.Int64N(3*3600_000)
			st.Tasks = append(st.Tasks, model.Task{Launch: launch, Finish: launch + 100 + rng.Int64N(60_000), Status: model.TaskSuccess})
		}
		app.Stages = append(app.Stages, st)
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(Minutes(app, 60_000)) < 180 {
			b.Fatal("too few bins")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/task")
}
