package predict

import (
	"path/filepath"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/perfmodel"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestSparkPredictionIsTheWhatIf asks predict and analyze's what-if the
// same question on every real Spark log with tasks — the recorded
// executors, and twice as many — and wants one answer: both replay the
// recorded tasks through perfmodel's plan on the same slots. The
// prediction also carries the replay's self-check, the what-if's error at
// 100%.
func TestSparkPredictionIsTheWhatIf(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	res, err := decodelogs.Paths([]string{root}, decodelogs.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	for _, app := range res.Apps {
		if app.Engine != model.Spark {
			continue
		}
		name, _ := filepath.Rel(root, app.Source)
		sp, err := ProfileSpark(app)
		if err != nil {
			continue // no task to profile
		}
		w, err := perfmodel.FromApp(app)
		if err != nil {
			t.Fatal(err)
		}
		wi, err := perfmodel.EstimateWhatIf(w, []int{100, 200})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, e := range wi.Estimates {
			execs := sp.Executors * e.Percent / 100
			p, err := PredictSpark(sp, SparkTarget{Executors: execs, Replay: ReplayOptions{Runs: 20}})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			asked++
			if p.Slots != e.Slots || int64(p.EstimateMs) != e.AppMs || !p.SameWork {
				t.Errorf("%s at %d%% (%d executors): predict %d slots %.0f ms, the what-if %d slots %d ms", name, e.Percent, execs, p.Slots, p.EstimateMs, e.Slots, e.AppMs)
			}
			if p.SelfCheck != wi.SelfCheck {
				t.Errorf("%s: predict's self-check %+v, the what-if's %+v", name, p.SelfCheck, wi.SelfCheck)
			}
		}
	}
	if asked < 100 {
		t.Errorf("only %d questions asked of the real logs", asked)
	}
	t.Logf("%d questions, one answer each", asked)
}
