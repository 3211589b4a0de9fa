package peer

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// simRun is one simulated run: its ground truth, applications and metric CSV.
type simRun struct {
	res *sim.Result
	csv []byte
}

// simulate runs a named scenario on nodes nodes with every node sampled
// and its faults' nodes drawn from the seed.
func simulate(tb testing.TB, name string, nodes int, seed uint64) simRun {
	tb.Helper()
	sc, err := sim.Named(name)
	if err != nil {
		tb.Fatal(err)
	}
	sc = sc.WithNodes(nodes)
	sc.Metrics.EveryNth = 1
	for i := range sc.Faults {
		sc.Faults[i].Node = -1
	}
	var buf bytes.Buffer
	res, err := sim.SimulateTo(sc, seed, sim.Sinks{Metrics: &buf}, nil)
	if err != nil {
		tb.Fatalf("simulate %s/%d seed %d: %v", name, nodes, seed, err)
	}
	return simRun{res: res, csv: buf.Bytes()}
}

// replay feeds a run's samples to fn in file order.
func (r simRun) replay(tb testing.TB, fn func(*model.Sample)) {
	err := metrics.ReadCSV(bytes.NewReader(r.csv), "metrics.csv", func(s *model.Sample) error {
		fn(s)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// trainingVectors collects the Ganesha vectors of clean runs.
func trainingVectors(tb testing.TB, runs []simRun) [][]float64 {
	var out [][]float64
	for _, r := range runs {
		a := NewAssembler(GaneshaMetrics)
		r.replay(tb, func(s *model.Sample) {
			a.Add(s, func(_ string, _ int64, x []float64) { out = append(out, slices.Clone(x)) })
		})
	}
	return out
}

// Training seeds are disjoint from every evaluation and tuning seed.
var trainSeeds = []uint64{9001, 9002, 9003}

var (
	profOnce sync.Once
	profile  *Profile
	profErr  error
)

// trainedProfile trains once per test binary on clean runs of 10 and 50 nodes.
func trainedProfile(tb testing.TB) *Profile {
	tb.Helper()
	profOnce.Do(func() {
		var runs []simRun
		for _, s := range trainSeeds {
			runs = append(runs, simulate(tb, "clean", 10, s), simulate(tb, "clean", 50, s))
		}
		profile, profErr = Train(trainingVectors(tb, runs), GaneshaMetrics, DefaultTrainOptions(), DefaultParams())
	})
	if profErr != nil {
		tb.Fatal(profErr)
	}
	return profile
}

// outcome is what diagnosis said about one run.
type outcome struct {
	culprit         string
	culpritIndicted bool
	innocents       []string // indicted innocent nodes
	alarms, steps   int      // per-node steps with an alarm, of all compared
	statuses        []NodeStatus
	indictments     []Indictment
}

// tally is Ganesha's ratios over runs of one scenario (§5): TP, the share
// of fault-injected runs whose culprit was indicted; FP, the share of runs
// where an innocent node was indicted; and the per-node-step alarm rate.
type tally struct {
	runs, tp, fp  int
	alarms, steps int
}

func (t *tally) add(o outcome) {
	t.runs++
	if o.culpritIndicted {
		t.tp++
	}
	if len(o.innocents) > 0 {
		t.fp++
	}
	t.alarms += o.alarms
	t.steps += o.steps
}

func (t tally) tpRatio() float64   { return float64(t.tp) / float64(t.runs) }
func (t tally) fpRatio() float64   { return float64(t.fp) / float64(t.runs) }
func (t tally) alarmRate() float64 { return float64(t.alarms) / float64(max(1, t.steps)) }

func (t tally) String() string {
	return fmt.Sprintf("runs %d TP %.2f FP %.2f alarms/node-step %.4f", t.runs, t.tpRatio(), t.fpRatio(), t.alarmRate())
}

// labeled is one labelled vector of a run.
type labeled struct {
	host  string
	t     int64
	label int
	z, x  []float64
}

// labelRun labels every vector of a run once, so that several detectors
// can replay it.
func labelRun(tb testing.TB, prof *Profile, r simRun) []labeled {
	var out []labeled
	a := NewAssembler(prof.Metrics())
	r.replay(tb, func(s *model.Sample) {
		a.Add(s, func(h string, ts int64, x []float64) {
			z := make([]float64, len(x))
			l := prof.Label(x, z)
			out = append(out, labeled{h, ts, l, z, slices.Clone(x)})
		})
	})
	return out
}

// mode is a diagnosis variant compared in the evaluation.
type mode int

const (
	ganesha     mode = iota // the paper's method
	clusterlens             // workload-aware peers and culprit/victim attribution
)

// judge runs one mode over a labelled run and scores it against the truth.
func judge(prof *Profile, p Params, m mode, r simRun, v []labeled) (outcome, []Verdict) {
	d := NewDetector(prof.Bins(), prof.Metrics(), p, nil)
	var w *Workload
	if m == clusterlens {
		w = NewWorkload(r.res.Apps)
		d.SetWorkload(w)
	}
	for _, x := range v {
		d.Add(x.host, x.t, x.label, x.z, x.x)
	}
	d.Flush()
	var o outcome
	if len(r.res.Truth.Faults) > 0 {
		o.culprit = r.res.Truth.Faults[0].Host
	}
	o.statuses = d.Statuses()
	var indicted []string
	var verdicts []Verdict
	for _, st := range o.statuses {
		o.alarms += st.Alarms
		o.steps += st.Steps
		if st.FirstIndicted != 0 {
			indicted = append(indicted, st.Host)
		}
	}
	if m == clusterlens {
		verdicts = Attribute(o.statuses, w, p)
		indicted = Culprits(verdicts)
	}
	for _, h := range indicted {
		if h == o.culprit {
			o.culpritIndicted = true
		} else {
			o.innocents = append(o.innocents, h)
		}
	}
	return o, verdicts
}

// truthResource maps the simulator's fault resource to Verdict.Resource.
func truthResource(r simRun) string {
	if len(r.res.Truth.Faults) == 0 {
		return ""
	}
	if r.res.Truth.Faults[0].Resource == "none" {
		return "hang"
	}
	return r.res.Truth.Faults[0].Resource
}
