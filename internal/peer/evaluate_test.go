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
// measured numbers (docs/PEER.md) clear with margin: against the
// simulator's ground truth, the workload-aware diagnosis must find CPU and
// disk hogs without blaming an innocent node, stay quiet on clean runs,
// and stop 50% packet loss from blaming the culprit's peers at 50 nodes.
func TestEvaluateFast(t *testing.T) {
	prof := trainedProfile(t)
	seeds := []uint64{1, 2, 3}
	rows := evaluate(t, prof, prof.Params, 10, []string{"cpu-hog", "disk-hog", "clean"}, seeds)
	rows = append(rows, evaluate(t, prof, prof.Params, 50, []string{"packet-loss-50"}, seeds[:2])...)
	t.Log("\n" + table(rows))
	for _, r := range rows[:2] {
		if r.c.tpRatio() < 0.66 || r.c.fpRatio() > 0 {
			t.Errorf("%s: clusterlens TP %.2f FP %.2f, want ≥ 0.66 and 0", r.name, r.c.tpRatio(), r.c.fpRatio())
		}
		if r.g.tpRatio() < 0.66 {
			t.Errorf("%s: Ganesha TP %.2f, want ≥ 0.66", r.name, r.g.tpRatio())
		}
		if r.resOK < r.resN-1 {
			t.Errorf("%s: resource named right in %d of %d runs", r.name, r.resOK, r.resN)
		}
	}
	if clean := rows[2]; clean.c.fpRatio() > 0 || clean.c.alarmRate() > 0.03 || clean.c.alarmRate() > clean.g.alarmRate() {
		t.Errorf("clean: clusterlens FP %.2f, alarms/node-step %.4f (Ganesha %.4f), want 0, ≤ 0.03 and below Ganesha's",
			clean.c.fpRatio(), clean.c.alarmRate(), clean.g.alarmRate())
	}
	if pl := rows[3]; pl.c.fpRatio() >= pl.g.fpRatio() || pl.c.tpRatio() < 0.5 {
		t.Errorf("packet-loss-50: clusterlens TP %.2f FP %.2f, Ganesha FP %.2f: want a lower FP and TP ≥ 0.5",
			pl.c.tpRatio(), pl.c.fpRatio(), pl.g.fpRatio())
	}
}

// TestEvaluateRecalibratedRuns keeps the two evaluation runs the
// recalibrated simulator lost and two fixes restored (docs/PEER.md): the
// CPU hog of seed 12 at 10 nodes, whose busy group shrank under minNodes
// (found once its alarm count holds through steps without peers), and
// the hang of seed 11 at 10 nodes, too short to raise its load average
// HangLoadZ above its peers' (named hang from its idle CPU).
func TestEvaluateRecalibratedRuns(t *testing.T) {
	prof := trainedProfile(t)
	for _, r := range evaluate(t, prof, prof.Params, 10, []string{"cpu-hog"}, []uint64{12}) {
		if r.c.tp != 1 {
			t.Errorf("cpu-hog seed 12: culprit not found (clusterlens %v)", r.c)
		}
	}
	if r := evaluate(t, prof, prof.Params, 10, []string{"hang"}, []uint64{11})[0]; r.resN != 1 || r.resOK != 1 {
		t.Errorf("hang seed 11: resource named right %d of %d culprits found, want 1 of 1", r.resOK, r.resN)
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
	for _, n := range []int{10, 50} {
		rows = append(rows, evaluateObservable(t, prof, prof.Params, n, "hang", 20))
	}
	t.Logf("profile K=%d trained on %d vectors\n%s", prof.K, prof.Vectors, table(rows))
}

// evaluateObservable scores a fault over the first want seeds whose
// culprit ran attempts during the fault (Ganesha's hangs are tasks that
// hang: a node hung while it runs nothing shows nothing to compare), from
// seed 1 up, at most 4×want seeds. Its row is named "NAME (culprit busy)".
func evaluateObservable(t *testing.T, prof *Profile, p Params, nodes int, name string, want int) evalRow {
	var seeds []uint64
	for s := uint64(1); len(seeds) < want && s <= uint64(4*want); s++ {
		r := simulate(t, name, nodes, s)
		if f := r.res.Truth.Faults; len(f) > 0 && NewWorkload(r.res.Apps).Load(f[0].Host, f[0].StartMs, f[0].EndMs) > 0 {
			seeds = append(seeds, s)
		}
	}
	t.Logf("%s at %d nodes, culprit busy: seeds %v", name, nodes, seeds)
	row := evaluate(t, prof, p, nodes, []string{name}, seeds)[0]
	row.name += " (culprit busy)"
	return row
}
