package correlate

import (
	"cmp"
	"os"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// TestProfilesAcrossScenarios scores the profiles' dominant resource
// against the phases on six scenarios (faults, skew, four hardware
// generations) with three seeds each, from the logs' task metrics and,
// with the task metrics removed, from the samples alone. It takes seconds:
// set CLUSTERLENS_CORRELATE_EVAL=1 to run it.
func TestProfilesAcrossScenarios(t *testing.T) {
	if os.Getenv("CLUSTERLENS_CORRELATE_EVAL") == "" {
		t.Skip("set CLUSTERLENS_CORRELATE_EVAL=1 to score the profiles on 18 simulations")
	}
	for _, name := range []string{"", "cpu-hog", "disk-hog", "packet-loss-5", "skew", "heterogeneous"} {
		for _, seed := range []uint64{1, 2, 3} {
			r := runSim(t, name, seed)
			truth := truthDominant(r.phases)
			ok, n, fok, fn := 0, 0, 0, 0
			for _, app := range r.apps {
				c := New(app, r.frames, Options{})
				c.Profiles(func(tp *TaskProfile) {
					st := app.Stages[tp.Stage]
					tk := &st.Tasks[tp.Task]
					want, has := truth[attemptKey{app.ID, st.ID, tk.Index, tk.Attempt}]
					if !has {
						return
					}
					n++
					if tp.Dominant == want {
						ok++
					}
				})
				// The same application without task metrics: samples only.
				cp := *app
				cp.Stages = nil
				for _, st := range app.Stages {
					s2 := &model.Stage{ID: st.ID, Attempt: st.Attempt, Kind: st.Kind}
					var m model.TaskMetrics
					for _, tk := range st.Tasks {
						tk.HasMetrics = false
						s2.AddTask(tk, &m)
					}
					cp.Stages = append(cp.Stages, s2)
				}
				c2 := New(&cp, r.frames, Options{})
				c2.Profiles(func(tp *TaskProfile) {
					st := cp.Stages[tp.Stage]
					tk := &st.Tasks[tp.Task]
					want, has := truth[attemptKey{app.ID, st.ID, tk.Index, tk.Attempt}]
					if !has {
						return
					}
					fn++
					if tp.Dominant == want {
						fok++
					}
				})
			}
			t.Logf("%-14s seed %d: %d/%d = %.1f%%   samples only: %d/%d = %.1f%%", cmp.Or(name, "classes"), seed, ok, n, 100*float64(ok)/float64(n), fok, fn, 100*float64(fok)/float64(fn))
			if float64(ok) < 0.9*float64(n) || float64(fok) < 0.6*float64(fn) {
				t.Errorf("%s seed %d: %d/%d right from the logs (want 90%%), %d/%d from the samples alone (want 60%%)", cmp.Or(name, "classes"), seed, ok, n, fok, fn)
			}
		}
	}
}
