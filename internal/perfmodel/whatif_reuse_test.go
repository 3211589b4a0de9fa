package perfmodel

import (
	"math/rand/v2"
	"testing"
)

// TestWhatIfReuseMatchesReplays checks that EstimateWhatIf, which reuses
// replays (one per slot count, and the first unstarved one for every larger
// count), gives exactly the times of replaying every setting on its own, on
// workloads that saturate their slots and on ones that never do.
func TestWhatIfReuseMatchesReplays(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var ws []*Workload
	for _, shape := range [][4]int{{3, 4, 50, 4}, {2, 3, 7, 10}, {1, 1, 3, 50}, {4, 5, 200, 2}} {
		ws = append(ws, synthetic(shape[0], shape[1], shape[2], shape[3]))
	}
	for range 30 {
		if w, err := FromApp(randomApp(rng)); err == nil {
			ws = append(ws, w)
		}
	}
	percents := []int{1, 10, 20, 50, 80, 100, 110, 120, 150, 200, 300, 400, 500, 5000}
	ample := 0
	for i, w := range ws {
		wi, err := EstimateWhatIf(w, percents)
		if err != nil {
			continue
		}
		plan := NewPlan(w)
		c := CoresOf(w)
		for _, e := range wi.Estimates {
			want, err := plan.Replay(e.Slots)
			if err != nil {
				t.Fatalf("workload %d: %v", i, err)
			}
			if e.AppMs != want {
				t.Errorf("workload %d at %d%% (%d slots): %d ms, replaying alone gives %d", i, e.Percent, e.Slots, e.AppMs, want)
			}
		}
		if want, _ := plan.Replay(max(1, c.Slots)); wi.ModelMs != want {
			t.Errorf("workload %d: model %d ms, replaying alone gives %d", i, wi.ModelMs, want)
		}
		if _, starved, _ := plan.replay(1 << 20); !starved {
			ample++
		}
	}
	if ample == 0 || len(ws) < 20 {
		t.Fatalf("%d workloads, %d never starved: the test exercises too little", len(ws), ample)
	}
}
