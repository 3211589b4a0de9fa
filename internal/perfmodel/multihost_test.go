package perfmodel

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestReplayReproducesMultiHostLogs holds the replay at the recorded
// configuration to the wall time of every real Spark log whose tasks ran
// on two hosts or more (the open-source logs and the managed platforms'):
// median error at most 5%, worst at most 15%. Executors lost and replaced
// while tasks ran are replayed with their lives (application_1538416563558_0014:
// 37% off with constant slots, 4.3% with them).
func TestReplayReproducesMultiHostLogs(t *testing.T) {
	var errs []float64
	worst, worstName := 0.0, ""
	for _, sub := range []string{"logs", "platform-logs"} {
		root := sharedtest.Dir(t, sub)
		res, err := decodelogs.Paths([]string{root}, decodelogs.Options{Workers: 2})
		if err != nil && res == nil {
			t.Fatal(err)
		}
		for _, app := range res.Apps {
			if app.Engine != model.Spark || taskHosts(app) < 2 {
				continue
			}
			w, err := FromApp(app)
			if err != nil {
				continue
			}
			c, err := NewPlan(w).Check()
			if err != nil {
				t.Fatalf("%s: %v", app.Source, err)
			}
			errs = append(errs, c.ModelError)
			if c.ModelError > worst {
				worst, worstName = c.ModelError, app.Source
			}
		}
	}
	if len(errs) < 20 {
		t.Fatalf("only %d multi-host Spark logs", len(errs))
	}
	slices.Sort(errs)
	med := errs[len(errs)/2]
	rel, _ := filepath.Rel(sharedtest.Root(), worstName)
	t.Logf("%d multi-host Spark logs: median error %.2f%%, worst %.2f%% (%s)", len(errs), 100*med, 100*worst, rel)
	if med > 0.05 || worst > 0.15 {
		t.Errorf("replay at the recorded configuration: median error %.2f%%, worst %.2f%% (%s); want at most 5%% and 15%%", 100*med, 100*worst, rel)
	}
}

// taskHosts counts the hosts the application's task attempts ran on.
func taskHosts(app *model.App) int {
	seen := map[uint32]bool{}
	for _, st := range app.Stages {
		for i := range st.Tasks {
			if h := st.Tasks[i].Host; h != 0 {
				seen[h] = true
			}
		}
	}
	return len(seen)
}
