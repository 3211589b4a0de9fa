package hetero

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/clusterlens/clusterlens/internal/history"
)

// TestRunWideSlowdown judges runs of a recurring fixed-size job whose
// hosts all ran 1.8x slower than their history (one run of 6 tasks a host
// in two stages of two resource classes: at 1.6x a host's z is about 3.7,
// under the 3.78 that the three tests of such a node share, Joint.decide):
// each is degraded against
// its own history (each peer slower than its history is left out of the
// others' expectation) and
// the run says so as a run-wide slowdown; with the run's other nodes alone
// as the expectation (PARC's α*, eq. 5) the slowdown cancels and no node
// is degraded. One host slowed alone is degraded and the run is not
// run-wide.
func TestRunWideSlowdown(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	s := newSynth(6, rng)
	s.fixed, s.stages = true, 2
	hist := s.runs(rng, 120, 6, 3, 0.2, 0)
	m, err := Fit(hist, DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	pp := DefaultParams
	pp.Expect = ExpectPeers
	mp, err := Fit(hist, pp)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range s.nodes {
		s.degrade[h] = [2]float64{math.Log(1.8), math.Log(1.8)}
	}
	all := s.runs(rng, 1, 6, 3, 0.2, 1e9)
	rv := m.JudgeRuns(all)[0]
	if rv.RunWide == nil || math.Abs(rv.RunWide.Slowdown.Value-1.8) > 0.15 || len(rv.RunWide.Nodes) != 6 {
		t.Errorf("every host slowed 1.8x: run-wide %+v, want 1.8x over 6 nodes", rv.RunWide)
	}
	for _, v := range rv.Verdicts {
		if !v.Culprit() || v.Basis == BasisPeers || v.VsHistory == nil || v.VsHistory.Low > 1.8 || v.VsHistory.High < 1.8 {
			t.Errorf("%s: %s, basis %s, %s; want degraded about 1.8x against its history", v.Host, v.Status, v.Basis, v.Why)
		}
	}
	for _, v := range mp.Judge(all) {
		if v.Culprit() {
			t.Errorf("peers alone: %s degraded (%s); the run-wide slowdown should cancel", v.Host, v.Why)
		}
	}
	clear(s.degrade)
	s.degrade[s.nodes[2]] = [2]float64{math.Log(1.6), math.Log(1.6)}
	rv = m.JudgeRuns(s.runs(rng, 1, 6, 3, 0.2, 2e9))[0]
	if rv.RunWide != nil {
		t.Errorf("one host slowed: run-wide %+v", rv.RunWide)
	}
	for _, v := range rv.Verdicts {
		if v.Culprit() != (v.Host == s.nodes[2]) {
			t.Errorf("one host slowed (%s): %s is %s (%s)", s.nodes[2], v.Host, v.Status, v.Why)
		}
	}
}

// TestExpectations checks the exported per-stage expectation on one run:
// every (stage, host) of the run has one, from the history and the run's
// other nodes; the slowed host's tasks ran what its slowdown (1.5x on
// both resources) makes of each stage against its history, the others
// about 1x, each within its interval.
func TestExpectations(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s := newSynth(5, rng)
	s.fixed, s.stages = true, 2
	m, err := Fit(s.runs(rng, 100, 5, 4, 0.2, 0), DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	slow := s.nodes[1]
	s.degrade[slow] = [2]float64{math.Log(1.5), math.Log(1.5)}
	r := s.runs(rng, 1, 5, 4, 0.2, 1e9)[0]
	xs := m.Expectations(r)
	if len(xs) != len(r.Hosts) {
		t.Fatalf("%d expectations for %d host-stages", len(xs), len(r.Hosts))
	}
	for _, x := range xs {
		want := 1.0
		if x.Host == slow {
			// Stage 0 loads cpu 1 and io 0.1, stage 1 0.2 and 1.
			want = math.Pow(1.5, [2]float64{1.1, 1.2}[x.Stage])
		}
		if x.Basis != BasisHistoryPeers && x.Basis != BasisHistory || x.VsHistory == nil || x.ExpectedMs <= 0 || x.Tasks != 4 {
			t.Errorf("%+v: want a history expectation of 4 tasks", x)
			continue
		}
		if x.VsHistory.Low > want || x.VsHistory.High < want {
			t.Errorf("stage %d on %s: %.2fx (%.2f–%.2f) its history, want about %.1f", x.Stage, x.Host, x.VsHistory.Value, x.VsHistory.Low, x.VsHistory.High, want)
		}
		if got := x.ObservedMs / x.HistoryMs; math.Abs(got-x.VsHistory.Value) > 0.01*got {
			t.Errorf("observed/history %.3f, slowdown %.3f", got, x.VsHistory.Value)
		}
	}
}

// TestUnknownNodeHasNoSlowdown: a node with no history gets no slowdown
// (no "0.00x"), and one whose runs did not exercise a resource has that
// factor marked not measured.
func TestUnknownNodeHasNoSlowdown(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := newSynth(4, rng)
	s.fixed, s.stages = true, 1 // CPU stages only: io is never measured
	m, err := Fit(s.runs(rng, 60, 4, 3, 0.2, 0), DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	r := s.runs(rng, 1, 4, 3, 0.2, 1e9)[0]
	r.Hosts = append(r.Hosts, history.HostStage{Stage: 0, Host: "newhost", Tasks: 3, SumMs: 6000, SumLog: 3 * math.Log(2000), SumSqLog: 3 * math.Log(2000) * math.Log(2000), MinMs: 2000, MaxMs: 2000})
	for _, v := range m.Judge([]*history.Run{r}) {
		if v.Host == "newhost" && (v.Status != StatusUnknown || v.Slowdown != nil) {
			t.Errorf("newhost: %s, slowdown %v; want unknown without a slowdown", v.Status, v.Slowdown)
		}
	}
	for _, sp := range m.Speeds() {
		for _, f := range sp.Factors {
			if want := f.Resource == ResourceCPU; f.Measured != want {
				t.Errorf("%s %s: measured %v, want %v (interval %.2f–%.2f)", sp.Host, f.Resource, f.Measured, want, f.Factor.Low, f.Factor.High)
			}
		}
	}
}
