package hetero

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/history"
)

// judger is a fitted model that judges runs.
type judger interface {
	Judge([]*history.Run) []Verdict
}

// causeScore tallies one method on one of the real causes' scenarios,
// every judged run on its own: a faulty node's runs found degraded with
// the right resource, and the runs in which an innocent is a culprit.
type causeScore struct {
	method                     string
	faultyRuns, found, right   int
	runs, runsInnocent         int
	windows, windowFound, wRes int
}

func (c *causeScore) row(name string) string {
	r := func(a, b int) string {
		if b == 0 {
			return "–"
		}
		return fmt.Sprintf("%.3f", float64(a)/float64(b))
	}
	return fmt.Sprintf("| %s | %s | %d | %s | %s | %s of %d | %s | %s |", name, c.method, c.faultyRuns, r(c.found, c.faultyRuns), r(c.right, c.faultyRuns),
		r(c.runsInnocent, c.runs), c.runs, r(c.windowFound, c.windows), r(c.wRes, c.windows))
}

// maxInnocent is the share of runs with an innocent culprit each scenario
// may have: the 1%.
var maxInnocent = map[string]float64{"small-slow": 0.01, "fixed-recurring": 0.01, "single-task": 0.01}

// TestRealCauses measures the joint model on the simulator's scenarios of
// the causes seen on real clusters (internal/sim/nodecauses.go): CPU hogs
// on 3 of 4 like nodes at once (small-slow), a disk hog with fixed-size
// recurring jobs of 2–3 tasks per host (fixed-recurring) and a CPU hog
// with one task per host and stage (single-task). Each run after the
// faults began is judged on its own (a faulty node's run counts when the
// node ran a task in it, found when degraded and right when the resource
// is its fault's; a run with an innocent culprit is a false indictment),
// and all of them at once as a window, as TestParcEvaluation does. Beside:
// the run's other nodes alone as the expectation (the method before) and
// the plain baseline. The targets: the culprit with the right
// resource in ≥ 95% of the windows, an innocent culprit in ≤ 1% of runs. With CLUSTERLENS_EVAL=1 20 seeds per scenario
// (CLUSTERLENS_EVAL_SEED moves them: 100 while tuning), else 3 (CI).
func TestRealCauses(t *testing.T) {
	first, reported := evalFirstSeed(t)
	n := uint64(3)
	if os.Getenv("CLUSTERLENS_EVAL") == "1" {
		n = 20
	}
	var b strings.Builder
	fmt.Fprintf(&b, "seeds %d-%d\n| scenario | method | faulty node-runs | found | right resource | runs with an innocent culprit | windows: found | windows: right resource |\n|---|---|---|---|---|---|---|---|\n", first, first+n-1)
	for _, name := range []string{"small-slow", "fixed-recurring", "single-task"} {
		joint := &causeScore{method: "joint"}
		peers := &causeScore{method: "joint, --expect peers"}
		plain := &causeScore{method: "baseline"}
		for seed := first; seed < first+n; seed++ {
			p := simulateParc(t, name, seed, false, nil)
			pp := DefaultParams
			pp.Expect = ExpectPeers
			for _, x := range []struct {
				s   *causeScore
				fit func() (judger, error)
			}{
				{joint, func() (judger, error) { return Fit(p.hist, DefaultParams) }},
				{peers, func() (judger, error) { return Fit(p.hist, pp) }},
				{plain, func() (judger, error) { return FitBaseline(p.hist, DefaultParams) }},
			} {
				m, err := x.fit()
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range p.test {
					x.s.runs++
					v := verdictMap(m.Judge([]*history.Run{r}))
					innocent := false
					for h, res := range v {
						want, faulty := p.faulty[h]
						switch {
						case faulty:
							x.s.faultyRuns++
							if res != "" {
								x.s.found++
							}
							if res == want {
								x.s.right++
							}
						case res != "":
							innocent = true
						}
					}
					if innocent {
						x.s.runsInnocent++
					}
				}
				w := verdictMap(m.Judge(p.test))
				for h, want := range p.faulty {
					x.s.windows++
					if w[h] != "" {
						x.s.windowFound++
					}
					if w[h] == want {
						x.s.wRes++
					}
				}
			}
		}
		for _, x := range []*causeScore{joint, peers, plain} {
			fmt.Fprintln(&b, x.row(name))
		}
		right := float64(joint.wRes) / float64(joint.windows)
		innocent := float64(joint.runsInnocent) / float64(joint.runs)
		switch {
		case reported && n == 20 && (right < 0.95 || innocent > maxInnocent[name]):
			t.Errorf("%s: culprit with the right resource in %.3f of the windows (want ≥ 0.95), innocent culprits in %.3f of runs (want ≤ %.3f)", name, right, innocent, maxInnocent[name])
		case reported && n < 20 && (joint.wRes < joint.windows-1 || joint.runsInnocent > 2):
			// CI's 3 seeds: at most one window missed, two runs of ~85 with
			// an innocent culprit.
			t.Errorf("%s: culprit with the right resource in %d of %d windows, innocent culprits in %d of %d runs", name, joint.wRes, joint.windows, joint.runsInnocent, joint.runs)
		}
		if name == "small-slow" && joint.windowFound <= 2*peers.windowFound {
			t.Errorf("small-slow: the history expectation found %d windows, the run's other nodes %d: want the cancelled slowdowns found", joint.windowFound, peers.windowFound)
		}
	}
	t.Log("\n" + b.String())
}
