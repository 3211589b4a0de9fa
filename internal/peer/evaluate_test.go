package peer

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

var evalScenarios = []string{"cpu-hog", "disk-hog", "hang", "packet-loss-5", "packet-loss-50", "slow-disk", "clean"}

// evalRow is one scenario and cluster size under both modes.
type evalRow struct {
	name        string
	nodes       int
	g, c        tally
	resOK, resN int // clusterlens verdicts naming the injected resource, of culprits found
	// observable counts the faulty runs with attempts on the culprit during
	// the fault, obsG and obsC those whose culprit Ganesha and clusterlens indicted.
	observable, obsG, obsC int
}

// evaluate scores both modes over seeds.
func evaluate(t *testing.T, prof *Profile, p Params, nodes int, names []string, seeds []uint64) []evalRow {
	var rows []evalRow
	for _, name := range names {
		row := evalRow{name: name, nodes: nodes}
		for _, seed := range seeds {
			r := simulate(t, name, nodes, seed)
			v := labelRun(t, prof, r)
			og, _ := judge(prof, p, ganesha, r, v)
			oc, verdicts := judge(prof, p, clusterlens, r, v)
			row.g.add(og)
			row.c.add(oc)
			if f := r.res.Truth.Faults; len(f) > 0 && NewWorkload(r.res.Apps).Load(f[0].Host, f[0].StartMs, f[0].EndMs) > 0 {
				row.observable++
				if og.culpritIndicted {
					row.obsG++
				}
				if oc.culpritIndicted {
					row.obsC++
				}
			}
			for _, vd := range verdicts {
				if vd.Host == oc.culprit && vd.Role == "culprit" {
					row.resN++
					if vd.Resource == truthResource(r) {
						row.resOK++
					}
				}
			}
		}
		rows = append(rows, row)
	}
	return rows
}

func table(rows []evalRow) string {
	var b strings.Builder
	b.WriteString("| scenario | nodes | runs | Ganesha TP | Ganesha FP | Ganesha alarms/node-step | clusterlens TP | clusterlens FP | clusterlens alarms/node-step | resource named right | runs with work on the culprit: found by Ganesha, clusterlens |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %d | %d | %.2f | %.2f | %.4f | %.2f | %.2f | %.4f | %d/%d | %d: %d, %d |\n", r.name, r.nodes, r.g.runs,
			r.g.tpRatio(), r.g.fpRatio(), r.g.alarmRate(), r.c.tpRatio(), r.c.fpRatio(), r.c.alarmRate(), r.resOK, r.resN,
			r.observable, r.obsG, r.obsC)
	}
	return b.String()
}

// TestEvaluateFast is a few seeds of the evaluation with floors that the
// measured numbers (docs/PEER.md) clear with margin.
func TestEvaluateFast(t *testing.T) {
	prof := trainedProfile(t)
	rows := evaluate(t, prof, prof.Params, 10, []string{"cpu-hog", "disk-hog", "clean"}, []uint64{1, 2, 3})
	t.Log("\n" + table(rows))
	for _, r := range rows[:2] {
		if r.g.tpRatio() < 0.66 || r.c.tpRatio() < 0.66 {
			t.Errorf("%s: TP Ganesha %.2f, clusterlens %.2f, want ≥ 0.66", r.name, r.g.tpRatio(), r.c.tpRatio())
		}
		if r.resOK < r.resN-1 {
			t.Errorf("%s: resource named right in %d of %d runs", r.name, r.resOK, r.resN)
		}
	}
	if clean := rows[2]; clean.c.alarmRate() > clean.g.alarmRate() {
		t.Errorf("clean: workload-aware alarm rate %.4f above Ganesha's %.4f", clean.c.alarmRate(), clean.g.alarmRate())
	}
}

// TestEvaluateFull is the whole evaluation (20 seeds per scenario and
// size); set CLUSTERLENS_PEER_EVAL=1.
func TestEvaluateFull(t *testing.T) {
	if os.Getenv("CLUSTERLENS_PEER_EVAL") == "" {
		t.Skip("set CLUSTERLENS_PEER_EVAL=1 for the full evaluation")
	}
	prof := trainedProfile(t)
	var seeds []uint64
	for s := uint64(1); s <= 20; s++ {
		seeds = append(seeds, s)
	}
	var rows []evalRow
	for _, n := range []int{10, 50} {
		rows = append(rows, evaluate(t, prof, prof.Params, n, evalScenarios, seeds)...)
	}
	t.Logf("profile K=%d trained on %d vectors\n%s", prof.K, prof.Vectors, table(rows))
}
