package anomaly

import (
	"os"
	"testing"
)

// TestThresholdSweep logs the abnormal-node test's precision and recall over the
// simulator's fault windows for a range of thresholds, under both scales
// (docs/ANOMALY.md's table). It takes ~10 s, so it runs only with
// ANOMALY_SWEEP=1.
func TestThresholdSweep(t *testing.T) {
	if os.Getenv("ANOMALY_SWEEP") == "" {
		t.Skip("set ANOMALY_SWEEP=1 to sweep the similarity threshold")
	}
	for _, sc := range []Scale{ScaleMax, ScaleMinMax} {
		var cul, healthy []float64
		for _, name := range append(faultScenarios, "clean") {
			for seed := uint64(1); seed <= 10; seed++ {
				w := simulate(t, name, seed, false, faultWindow)
				p := DefaultNodeParams()
				p.Scale = sc
				p.Gap = 0 // the threshold alone
				ns, err := AbnormalNodes(w.hosts, w.metrics, w.means, p)
				if err != nil {
					t.Fatal(err)
				}
				for _, n := range ns {
					if n.Host == culprit(w.truth) {
						cul = append(cul, n.Score)
					} else {
						healthy = append(healthy, n.Score)
					}
				}
			}
		}
		for _, th := range []float64{0.3, 0.4, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 0.85, 0.86, 0.87, 0.88, 0.89, 0.9} {
			tp, fp := 0, 0
			for _, c := range cul {
				if c < th {
					tp++
				}
			}
			for _, c := range healthy {
				if c < th {
					fp++
				}
			}
			t.Logf("%v th %.2f tp %d/%d fp %d/%d P %.2f", sc, th, tp, len(cul), fp, len(healthy), ratio(tp, tp+fp))
		}
	}
}

// TestOutlierSweep logs the outlier-metric results on the simulator for several
// CCRs, scales, transforms and representatives (docs/ANOMALY.md); it runs only with ANOMALY_SWEEP=1.
func TestOutlierSweep(t *testing.T) {
	if os.Getenv("ANOMALY_SWEEP") == "" {
		t.Skip("set ANOMALY_SWEEP=1 to sweep the outlier-metric parameters")
	}
	type variant struct {
		ccr float64
		sc  Scale
		tr  Transform
		rep Rep
	}
	var vs []variant
	for _, ccr := range []float64{0.95, 0.99, 1} {
		for _, sc := range []Scale{ScaleMax, ScaleMinMax} {
			vs = append(vs, variant{ccr, sc, TransformMean, RepMaxMin})
		}
	}
	vs = append(vs, variant{DefaultCCR, ScaleMax, TransformFFT, RepMaxMin}, variant{DefaultCCR, ScaleMax, TransformMean, RepMedian})
	for _, v := range vs {
		{
			op := DefaultOutlierParams()
			op.CCR, op.Scale, op.Transform, op.Rep = v.ccr, v.sc, v.tr, v.rep
			res := evalPeers(t, append(faultScenarios, "clean"), 10, DefaultNodeParams(), op)
			var all peerEval
			for _, e := range res {
				all.runs += e.runs
				all.topExpected += e.topExpected
				all.hasExpected += e.hasExpected
				all.flagged += e.flagged
				all.flaggedRight += e.flaggedRight
				all.otherFlags += e.otherFlags
				all.innocent += e.innocent
			}
			t.Logf("ccr %.2f %v %v %v: top expected %.2f, expected flagged %.2f, flagged expected %.2f, innocent flags/node %.3f", v.ccr, v.sc, v.tr, v.rep,
				ratio(all.topExpected, all.runs), ratio(all.hasExpected, all.runs), ratio(all.flaggedRight, all.flagged), ratio(all.otherFlags, all.innocent))
		}
	}
}
