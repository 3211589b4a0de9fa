package anomaly_test

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/anomaly"
	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// evalScenarios are the faults the per-stage evaluation scores, and clean.
var evalScenarios = []string{"cpu-hog", "disk-hog", "slow-disk", "memory-pressure", "packet-loss-50", "clean"}

// evalRun is one simulated run ready to correlate.
type evalRun struct {
	name   string
	nodes  int
	seed   uint64
	res    *sim.Result
	frames *correlate.Frames
	bad    string
	fStart int64
	fEnd   int64
	peers  map[string]bool
}

// simulateRun simulates scenario name on n nodes with seed and reads its
// node metrics back into frames.
func simulateRun(t testing.TB, name string, n int, seed uint64) *evalRun {
	t.Helper()
	sc, err := sim.Named(name)
	if err != nil {
		t.Fatal(err)
	}
	if n > 0 {
		sc = sc.WithNodes(n)
	}
	var buf bytes.Buffer
	res, err := sim.Simulate(sc, seed, &buf)
	if err != nil {
		t.Fatalf("simulate %s/%d seed %d: %v", name, n, seed, err)
	}
	fs := correlate.NewFrames(0, 0)
	if err := metrics.ReadCSV(&buf, "metrics.csv", func(s *model.Sample) error { fs.Add(s); return nil }); err != nil {
		t.Fatal(err)
	}
	fs.Finish()
	r := &evalRun{name: name, nodes: n, seed: seed, res: res, frames: fs, peers: map[string]bool{}}
	if f := res.Truth.Faults; len(f) > 0 {
		r.bad, r.fStart, r.fEnd = f[0].Host, f[0].StartMs, f[0].EndMs
		for _, p := range f[0].Peers {
			r.peers[p] = true
		}
	}
	return r
}

// label is a host's truth in one stage: the faulty host is positive when
// the fault covers at least half of the stage's span on it, not counted
// when it covers less but some, and negative otherwise (as is every
// other host).
func (r *evalRun) label(app *model.App, si int, host string) int {
	if host != r.bad {
		return 0
	}
	var s, e int64 = 1 << 62, 0
	for i := range app.Stages[si].Tasks {
		t := &app.Stages[si].Tasks[i]
		if app.Hosts[t.Host] == host {
			s, e = min(s, t.Launch), max(e, t.Finish)
		}
	}
	covered := min(e, r.fEnd) - max(s, r.fStart)
	switch {
	case e < s || covered <= 0:
		return 0
	case 2*covered >= e-s:
		return 1
	}
	return -1
}

// stageMethod is one way to find a stage's abnormal hosts.
type stageMethod struct {
	name  string
	views correlate.StageOptions
	// baseline uses StageMatrices and AbnormalNodes as before.
	baseline bool
	params   anomaly.NodeParams
	stage    anomaly.StageParams
	// alone correlates each application without the others (no
	// Options.Others: their attempts are unknown).
	alone bool
}

// evalCount tallies per-stage decisions against the truth; peerFP are
// false alarms on a packet-loss fault's peers.
type evalCount struct{ tp, fp, fn, peerFP, stages int }

func (c *evalCount) add(o evalCount) {
	c.tp += o.tp
	c.fp += o.fp
	c.fn += o.fn
	c.peerFP += o.peerFP
	c.stages += o.stages
}

func (c evalCount) precision() float64 { return float64(c.tp) / float64(max(1, c.tp+c.fp)) }
func (c evalCount) recall() float64    { return float64(c.tp) / float64(max(1, c.tp+c.fn)) }

// evaluate runs every method on every stage of r that ran on at least
// three sampled hosts.
func (r *evalRun) evaluate(t testing.TB, methods []stageMethod) []evalCount {
	t.Helper()
	out := make([]evalCount, len(methods))
	for _, app := range r.res.Apps {
		c := correlate.New(app, r.frames, correlate.Options{Others: r.res.Apps})
		solo := correlate.New(app, r.frames, correlate.Options{})
		type viewKey struct {
			o     correlate.StageOptions
			alone bool
		}
		views := map[viewKey][]correlate.StageView{}
		var mats []correlate.StageMatrix
		for mi, m := range methods {
			var abnormal func(si int) (hosts []string, flags []bool, ok bool)
			if m.baseline {
				if mats == nil {
					mats = c.StageMatrices()
				}
				abnormal = func(si int) ([]string, []bool, bool) {
					sm := mats[si]
					if len(sm.Hosts) < 3 {
						return nil, nil, false
					}
					ns, err := anomaly.AbnormalNodes(sm.Hosts, sm.Metrics, sm.Rows(), m.params)
					if err != nil {
						t.Fatalf("%s seed %d stage %v: %v", r.name, r.seed, sm.Stage, err)
					}
					flags := make([]bool, len(ns))
					for i, n := range ns {
						flags[i] = n.Abnormal
					}
					return sm.Hosts, flags, true
				}
			} else {
				vs, ok := views[viewKey{m.views, m.alone}]
				if !ok {
					if m.alone {
						vs = solo.StageViews(m.views)
					} else {
						vs = c.StageViews(m.views)
					}
					views[viewKey{m.views, m.alone}] = vs
				}
				abnormal = func(si int) ([]string, []bool, bool) {
					v := vs[si]
					if len(v.Hosts) < 3 {
						return nil, nil, false
					}
					ns, err := anomaly.StageNodes(anomaly.StageInput{Hosts: v.Hosts, Metrics: v.Metrics, X: v.Rows(), Work: works(v.Work), Scale: v.Scale}, m.params, m.stage)
					if err != nil {
						t.Fatalf("%s seed %d stage %v: %v", r.name, r.seed, v.Stage, err)
					}
					if ns == nil {
						return nil, nil, false
					}
					flags := make([]bool, len(ns))
					for i, n := range ns {
						flags[i] = n.Abnormal
					}
					return v.Hosts, flags, true
				}
			}
			for si := range app.Stages {
				hosts, flags, ok := abnormal(si)
				if !ok {
					continue
				}
				cnt := &out[mi]
				cnt.stages++
				for i, h := range hosts {
					switch l := r.label(app, si, h); {
					case l < 0:
					case l > 0 && flags[i]:
						cnt.tp++
					case l > 0:
						cnt.fn++
					case flags[i]:
						cnt.fp++
						if r.peers[h] {
							cnt.peerFP++
						}
					}
				}
			}
		}
	}
	return out
}

// works converts correlate's host work to anomaly's.
func works(ws []correlate.HostWork) []anomaly.HostWork {
	out := make([]anomaly.HostWork, len(ws))
	for i, w := range ws {
		out[i] = anomaly.HostWork{Share: w.Share, Rows: w.Rows, FetchBytes: w.FetchBytes, FetchMs: w.FetchMs, WriteBytes: w.WriteBytes, WriteMs: w.WriteMs}
	}
	return out
}

// evalMethods are the methods compared: the old rule and the new default.
func evalMethods() []stageMethod {
	return []stageMethod{
		{name: "before", baseline: true, params: anomaly.DefaultNodeParams()},
		{name: "after", views: correlate.DefaultStageOptions(), params: anomaly.DefaultStageNodeParams(), stage: anomaly.DefaultStageParams()},
	}
}

// runEval evaluates methods over seeds of every scenario at each size and
// returns the counts by "scenario/nodes" and method.
func runEval(t testing.TB, sizes []int, seeds []uint64, methods []stageMethod) map[string][]evalCount {
	res := map[string][]evalCount{}
	for _, n := range sizes {
		for _, name := range evalScenarios {
			key := fmt.Sprintf("%s/%d", name, n)
			res[key] = make([]evalCount, len(methods))
			for _, seed := range seeds {
				for mi, c := range simulateRun(t, name, n, seed).evaluate(t, methods) {
					res[key][mi].add(c)
				}
			}
		}
	}
	return res
}

// evalTable formats runEval's counts as docs/ANOMALY.md's table.
func evalTable(res map[string][]evalCount, methods []stageMethod) string {
	var b strings.Builder
	keys := make([]string, 0, len(res))
	for k := range res {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(&b, "| scenario/nodes | stages |")
	for _, m := range methods {
		fmt.Fprintf(&b, " %s tp/fp/fn (peer fp) | P | R |", m.name)
	}
	b.WriteString("\n")
	total := make([]evalCount, len(methods))
	for _, k := range keys {
		fmt.Fprintf(&b, "| %s | %d |", k, res[k][0].stages)
		for mi, c := range res[k] {
			total[mi].add(c)
			fmt.Fprintf(&b, " %d/%d/%d (%d) | %.2f | %.2f |", c.tp, c.fp, c.fn, c.peerFP, c.precision(), c.recall())
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "| **all** | %d |", total[0].stages)
	for _, c := range total {
		fmt.Fprintf(&b, " %d/%d/%d (%d) | **%.2f** | **%.2f** |", c.tp, c.fp, c.fn, c.peerFP, c.precision(), c.recall())
	}
	b.WriteString("\n")
	return b.String()
}

// seedRange returns seeds from..to.
func seedRange(from, to uint64) []uint64 {
	var s []uint64
	for i := from; i <= to; i++ {
		s = append(s, i)
	}
	return s
}

// TestStageEvaluation is the per-stage evaluation of docs/ANOMALY.md: with
// CLUSTERLENS_ANOMALY_EVAL=1, 20 evaluation seeds (101-120) of every
// scenario on 12 and 50 nodes, before (AbnormalNodes' defaults on
// correlate's stage matrices) and after (StageNodes' defaults on
// correlate's default stage views); otherwise three of those seeds on 12
// nodes, with floors a little under what they measured.
func TestStageEvaluation(t *testing.T) {
	methods := evalMethods()
	if os.Getenv("CLUSTERLENS_ANOMALY_EVAL") != "" {
		res := runEval(t, []int{12, 50}, seedRange(101, 120), methods)
		t.Logf("evaluation seeds 101-120:\n%s", evalTable(res, methods))
		return
	}
	res := runEval(t, []int{12}, seedRange(101, 103), methods)
	t.Logf("\n%s", evalTable(res, methods))
	var before, after evalCount
	for _, cs := range res {
		before.add(cs[0])
		after.add(cs[1])
	}
	if after.precision() < 0.7 || after.recall() < 0.55 {
		t.Errorf("per-stage abnormal nodes: precision %.2f recall %.2f, want ≥ 0.7 and ≥ 0.55", after.precision(), after.recall())
	}
	// On three seeds slow-disk's 12-node stages swing the recall by 0.1
	// either way (over the 20 evaluation seeds at 12 and 50 nodes the
	// after's is the higher, 0.73 against 0.67; at 12 nodes alone it is
	// 0.61 against 0.63, slow-disk 0.33 against 0.69: docs/ANOMALY.md).
	if after.precision() < 1.5*before.precision() || after.recall() < before.recall()-0.1 {
		t.Errorf("after P %.2f R %.2f against before P %.2f R %.2f: want precision ≥ 1.5× and recall no more than 0.1 lower",
			after.precision(), after.recall(), before.precision(), before.recall())
	}
	// The packet-loss culprit, not the peers it slows: found in some
	// stages, its peers (which fetched from it) hardly ever flagged.
	pl := res["packet-loss-50/12"][1]
	if pl.tp < 5 || pl.peerFP > 2 {
		t.Errorf("packet-loss-50: culprit found in %d stages, %d peer flags; want ≥ 5 and ≤ 2", pl.tp, pl.peerFP)
	}
	if c := res["clean/12"][1]; c.fp > 5 {
		t.Errorf("clean: %d false alarms over %d stages, want ≤ 5", c.fp, c.stages)
	}
}
