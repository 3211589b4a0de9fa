package hetero

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/history"
)

// TestParcEvaluation measures the models on the simulator's PARC scenarios
// (14 and 50 heterogeneous nodes in 3 classes, a clean history, then a
// disk hog on one node and a CPU hog on another), evalSeeds seeds each,
// beside two baselines: straggler-nodes on each run (BDTune's peer rule)
// and a node's median ratio to its stages' medians against its own usual
// one (history node). Per seed the models are fitted on the runs that
// ended before the faults and judge:
//
//   - the window: every run started after the faults began, at once. A
//     faulty node is found when degraded (for straggler-nodes: flagged in
//     any of the runs), with the right resource when the model names its
//     fault's (cpu for the CPU hog, io for the disk hog). Every other node
//     judged is innocent; a culprit among them is a false indictment.
//   - each run alone: the share of runs in which an innocent node is
//     called a culprit.
//   - the same seed without faults (clean): the share of runs and of
//     windows with any culprit.
//
// docs/NODES.md has the table; the floors are the values on seeds 1–20.
func TestParcEvaluation(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 80 clusters")
	}
	first, reported := evalFirstSeed(t)
	var b strings.Builder
	fmt.Fprintf(&b, "seeds %d-%d\n", first, first+uint64(evalSeeds)-1)
	fmt.Fprintf(&b, "| method | faulty nodes | found | right resource | innocent culprits (window) | runs with an innocent culprit | clean runs with a culprit | clean windows with a culprit |\n|---|---|---|---|---|---|---|---|\n")
	for _, name := range []string{"parc", "parc-50"} {
		joint := &tally{method: "joint"}
		paper := &tally{method: "paper"}
		strag := &tally{method: "straggler-nodes"}
		ratio := &tally{method: "median ratio ≥ 1.3x usual"}
		peers := &tally{method: "joint, --expect peers"}
		plain := &tally{method: "baseline (nodes --model baseline)"}
		for seed := first; seed < first+uint64(evalSeeds); seed++ {
			p := simulateParc(t, name, seed, false, nil)
			c := simulateParc(t, name, seed, true, nil)
			m, err := Fit(p.hist, DefaultParams)
			if err != nil {
				t.Fatal(err)
			}
			judgeWindow(joint, p, verdictMap(m.Judge(p.test)))
			for _, r := range p.test {
				joint.runs++
				if anyInnocent(p, verdictMap(m.Judge([]*history.Run{r}))) {
					joint.runsInnocentCulprit++
				}
			}
			mc, err := Fit(c.hist, DefaultParams)
			if err != nil {
				t.Fatal(err)
			}
			cleanCheck(joint, c, func(runs []*history.Run) map[string]string { return verdictMap(mc.Judge(runs)) })

			pp := DefaultParams
			pp.Expect = ExpectPeers
			for _, x := range []struct {
				t   *tally
				fit func([]*history.Run) (interface {
					Judge([]*history.Run) []Verdict
				}, error)
			}{
				{peers, func(h []*history.Run) (interface {
					Judge([]*history.Run) []Verdict
				}, error) {
					return Fit(h, pp)
				}},
				{plain, func(h []*history.Run) (interface {
					Judge([]*history.Run) []Verdict
				}, error) {
					return FitBaseline(h, DefaultParams)
				}},
			} {
				j, err := x.fit(p.hist)
				if err != nil {
					t.Fatal(err)
				}
				judgeWindow(x.t, p, verdictMap(j.Judge(p.test)))
				for _, r := range p.test {
					x.t.runs++
					if anyInnocent(p, verdictMap(j.Judge([]*history.Run{r}))) {
						x.t.runsInnocentCulprit++
					}
				}
				jc, err := x.fit(c.hist)
				if err != nil {
					t.Fatal(err)
				}
				cleanCheck(x.t, c, func(runs []*history.Run) map[string]string { return verdictMap(jc.Judge(runs)) })
			}

			pm, err := FitPaper(p.hist, DefaultParams)
			if err != nil {
				t.Fatal(err)
			}
			judgeWindow(paper, p, verdictMap(pm.Judge(p.test)))
			for _, r := range p.test {
				paper.runs++
				if anyInnocent(p, verdictMap(pm.Judge([]*history.Run{r}))) {
					paper.runsInnocentCulprit++
				}
			}
			pmc, err := FitPaper(c.hist, DefaultParams)
			if err != nil {
				t.Fatal(err)
			}
			cleanCheck(paper, c, func(runs []*history.Run) map[string]string { return verdictMap(pmc.Judge(runs)) })

			// Baselines.
			flagged := map[string]string{}
			for _, r := range p.test {
				strag.runs++
				per := map[string]string{}
				for _, h := range p.apps[r.Key].diag {
					flagged[h], per[h] = "?", "?"
				}
				if anyInnocent(p, per) {
					strag.runsInnocentCulprit++
				}
			}
			judgeWindow(strag, p, withHosts(flagged, p.test))
			cleanCheck(strag, c, func(runs []*history.Run) map[string]string {
				out := map[string]string{}
				for _, r := range runs {
					for _, h := range c.apps[r.Key].diag {
						out[h] = "?"
					}
				}
				return withHosts(out, runs)
			})
			baseline := func(hist []*history.Run) func([]*history.Run) map[string]string {
				return func(runs []*history.Run) map[string]string {
					out := map[string]string{}
					for h := range medianRatioBaseline(hist, runs, 1.3) {
						out[h] = "?"
					}
					return withHosts(out, runs)
				}
			}
			judgeWindow(ratio, p, baseline(p.hist)(p.test))
			for _, r := range p.test {
				ratio.runs++
				if anyInnocent(p, baseline(p.hist)([]*history.Run{r})) {
					ratio.runsInnocentCulprit++
				}
			}
			cleanCheck(ratio, c, baseline(c.hist))
		}
		fmt.Fprintf(&b, "| **%s** | | | | | | | |\n", name)
		for _, x := range []*tally{joint, peers, paper, plain, strag, ratio} {
			fmt.Fprintln(&b, x.row())
		}
		if reported {
			floor(t, name, joint)
		}
	}
	t.Log("\n" + b.String())
}

// floor asserts the targets on the reported seeds (the right
// resource at 14 nodes as measured: 0.90, docs/NODES.md).
func floor(t *testing.T, name string, x *tally) {
	t.Helper()
	minRight := 0.95
	if name == "parc" {
		minRight = 0.90
	}
	if f := float64(x.found) / float64(x.faulty); f < 0.95 {
		t.Errorf("%s %s: degraded node found %.3f, want ≥ 0.95", name, x.method, f)
	}
	if f := float64(x.rightRes) / float64(x.faulty); f < minRight {
		t.Errorf("%s %s: degraded node found with the right resource %.3f, want ≥ %.2f", name, x.method, f, minRight)
	}
	if f := float64(x.runsInnocentCulprit) / float64(x.runs); f > 0.02 {
		t.Errorf("%s %s: innocent culprit in %.3f of runs, want ≤ 0.02", name, x.method, f)
	}
	if x.slowCulprit > 0 {
		t.Errorf("%s %s: %d slow-by-design nodes called culprits, want none", name, x.method, x.slowCulprit)
	}
}

// verdictMap maps each host to "" (judged, not a culprit) or the resource
// of a culprit ("node" when it names none).
func verdictMap(vs []Verdict) map[string]string {
	out := map[string]string{}
	for _, v := range vs {
		switch {
		case v.Culprit():
			out[v.Host] = v.Resource
		case v.Status != StatusUnknown:
			out[v.Host] = ""
		}
	}
	return out
}

// withHosts adds, as judged and not culprits, the hosts that ran tasks in
// runs and are not in flagged.
func withHosts(flagged map[string]string, runs []*history.Run) map[string]string {
	for _, r := range runs {
		for _, h := range r.Hosts {
			if _, ok := flagged[h.Host]; !ok {
				flagged[h.Host] = ""
			}
		}
	}
	return flagged
}

// judgeWindow tallies a window's verdicts against the faults.
func judgeWindow(x *tally, p *parcRun, v map[string]string) {
	for h, res := range v {
		if want, ok := p.faulty[h]; ok {
			x.faulty++
			if res != "" {
				x.found++
				if res == want {
					x.rightRes++
				}
			}
			continue
		}
		x.innocent++
		if res != "" {
			x.innocentCulprit++
			if p.slowClass[h] {
				x.slowCulprit++
			}
		}
	}
}

func anyInnocent(p *parcRun, v map[string]string) bool {
	for h, res := range v {
		if _, faulty := p.faulty[h]; !faulty && res != "" {
			return true
		}
	}
	return false
}

// cleanCheck judges the fault-free runs one at a time and as a window.
func cleanCheck(x *tally, c *parcRun, judge func([]*history.Run) map[string]string) {
	for _, r := range c.test {
		x.cleanRuns++
		if anyInnocent(c, judge([]*history.Run{r})) {
			x.cleanRunsCulprit++
		}
	}
	x.cleanWindows++
	if anyInnocent(c, judge(c.test)) {
		x.cleanCulprit++
	}
}
