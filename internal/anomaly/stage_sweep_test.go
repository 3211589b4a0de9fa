package anomaly_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/clusterlens/clusterlens/internal/anomaly"
	"github.com/clusterlens/clusterlens/internal/correlate"
)

// TestStageSweep compares per-stage variants on the tuning seeds (1-10 on
// 12 nodes, 1-3 on 50), with ANOMALY_SWEEP=1: the table of
// docs/ANOMALY.md's choice of defaults.
func TestStageSweep(t *testing.T) {
	if os.Getenv("ANOMALY_SWEEP") == "" {
		t.Skip("set ANOMALY_SWEEP=1 to sweep the per-stage variants")
	}
	var methods []stageMethod
	methods = append(methods, stageMethod{name: "before", baseline: true, params: anomaly.DefaultNodeParams()})
	for _, vo := range []correlate.StageOptions{{DropSynonyms: true, ScaleQuantile: 0.99, PerServed: true}} {
		for _, sp := range []anomaly.StageParams{{RateRatio: 0.5, MinRateMs: 1000}, {RateRatio: 0.5, MinRateMs: 1000, MinRows: 15}, {RateRatio: 0.5, MinRateMs: 1000, MinRows: 20}, {RateRatio: 0.5, MinRateMs: 1000, MinShare: 0.25}, {RateRatio: 0.5, MinRateMs: 1000, MinShare: 0.25, MinRows: 15}} {
			for _, gap := range []float64{0.05, 0.06, 0.08} {
				for _, mads := range []float64{0} {
					for _, th := range []float64{0.95} {
						np := anomaly.DefaultNodeParams()
						np.Gap, np.Threshold = gap, th
						methods = append(methods, stageMethod{name: fmt.Sprintf("served%v/mads%.0f/rate%.1f/%.0f/rows%.1f/syn%v/q%.2f/share%.1f/minrows%d/gap%.2f/th%.2f", vo.PerServed, mads, sp.RateRatio, sp.MinRateMs,
							vo.MinRowShare, vo.DropSynonyms, vo.ScaleQuantile, sp.MinShare, sp.MinRows, gap, th),
							views: vo, params: np, stage: sp})
					}
				}
			}
		}
	}
	res := runEval(t, []int{12, 50}, seedRange(1, 5), methods)
	if os.Getenv("ANOMALY_SWEEP") == "table" {
		for i, m := range methods {
			line := m.name
			for _, n := range []string{"/12", "/50"} {
				var c evalCount
				for _, sc := range evalScenarios {
					c.add(res[sc+n][i])
				}
				line += fmt.Sprintf(" %s P %.2f R %.2f", n, c.precision(), c.recall())
			}
			for _, sc := range evalScenarios {
				c := res[sc+"/12"][i]
				c.add(res[sc+"/50"][i])
				line += fmt.Sprintf("  %s %d/%d/%d", sc, c.tp, c.fp, c.fn)
			}
			t.Log(line)
		}
	}
	total := make([]evalCount, len(methods))
	for _, cs := range res {
		for i, c := range cs {
			total[i].add(c)
		}
	}
	for i, m := range methods {
		c := total[i]
		f1 := 2 * c.precision() * c.recall() / max(1e-9, c.precision()+c.recall())
		t.Logf("%-45s tp %4d fp %4d fn %4d peer %3d  P %.2f R %.2f F1 %.3f", m.name, c.tp, c.fp, c.fn, c.peerFP, c.precision(), c.recall(), f1)
	}
}
