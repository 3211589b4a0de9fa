package anomaly

import (
	"os"
	"testing"
)

// TestSMDSweep logs the SMD scores for variants of the parameters
// (docs/ANOMALY.md's table); it runs only with ANOMALY_SWEEP=1.
func TestSMDSweep(t *testing.T) {
	if os.Getenv("ANOMALY_SWEEP") == "" {
		t.Skip("set ANOMALY_SWEEP=1 to sweep the SMD parameters")
	}
	machines := loadAllSMD(t)
	type variant struct {
		name string
		p    NormalParams
	}
	def := DefaultNormalParams()
	var vs []variant
	for _, ccr := range []float64{0.95, 0.99, 1} {
		for _, orders := range []float64{0, 1} {
			for _, dmin := range []float64{0.3, 0.5} {
				for _, rep := range []Rep{RepMaxMin, RepMedian} {
					p := def
					p.CCR, p.Orders, p.DMin, p.Rep = ccr, orders, dmin, rep
					vs = append(vs, variant{"", p})
				}
			}
		}
	}
	refs := map[string]func(*smdMachine, int) [][]float64{
		"day before": smdDayBefore,
		"train file": func(m *smdMachine, _ int) [][]float64 { return m.train },
	}
	for _, rn := range []string{"train file"} {
		var all smdScore
		for _, m := range machines {
			all.add(scoreSMD(t, m, def, refs[rn]))
		}
		t.Logf("reference %s, defaults: HitRate@100%% %.3f @150%% %.3f  flagged P %.3f R %.3f",
			rn, all.hitRate100(), all.hitRate150(), all.precision(), all.recall())
	}
	for _, v := range vs {
		var all smdScore
		for _, m := range machines {
			all.add(scoreSMD(t, m, v.p, refs["day before"]))
		}
		t.Logf("ccr %.2f orders %.0f dmin %.1f rep %-6v  HitRate@100%% %.3f @150%% %.3f  flagged P %.3f R %.3f",
			v.p.CCR, v.p.Orders, v.p.DMin, v.p.Rep, all.hitRate100(), all.hitRate150(), all.precision(), all.recall())
	}
}
