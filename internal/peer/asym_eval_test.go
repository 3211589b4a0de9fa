package peer

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// asymRun simulates the asymmetric scenario at nodes nodes on the hardware
// of cluster seed cseed, with workload seed seed, day days before the
// evaluated one (0: that day), and fault (a sim.Fault* kind on a node
// drawn from the seed, 30–200 s; "" for none).
func asymRun(tb testing.TB, nodes int, cseed, seed uint64, day int, fault string) simRun {
	tb.Helper()
	name := "asymmetric"
	switch fault {
	case patternQuiet, patternBusier:
		name, fault = fault, ""
	}
	sc, err := sim.Named(name)
	if err != nil {
		tb.Fatal(err)
	}
	sc = sc.WithNodes(nodes)
	sc.Cluster.Seed = cseed
	sc.StartMs = 1767225600000 - int64(day)*86_400_000
	sc.Metrics.EveryNth = 1
	if fault != "" {
		sc.Faults = []sim.FaultSpec{{Kind: fault, Node: -1, StartS: 30, EndS: 200}}
	}
	var buf bytes.Buffer
	res, err := sim.SimulateTo(sc, seed, sim.Sinks{Metrics: &buf}, nil)
	if err != nil {
		tb.Fatalf("simulate asymmetric/%d seed %d: %v", nodes, seed, err)
	}
	return simRun{res: res, csv: buf.Bytes()}
}

// The fault-free patterns judged beside the hogs (internal/sim's
// scenarios of the same names): a node quieter than its history, a period
// busier than the history everywhere.
const (
	patternQuiet  = "quiet-node"
	patternBusier = "busier-period"
)

// asymBaselineDays is how many fault-free days of its cluster a baseline
// is trained on.
const asymBaselineDays = 5

// asymBaseline trains the nodes' own models of cluster cseed from
// asymBaselineDays fault-free days.
func asymBaseline(tb testing.TB, prof *Profile, bp BaselineParams, nodes int, cseed uint64) *Baseline {
	tb.Helper()
	vectors := map[string][][]float64{}
	for day := 1; day <= asymBaselineDays; day++ {
		r := asymRun(tb, nodes, cseed, cseed*1000+uint64(day), day, "")
		a := NewAssembler(prof.Metrics())
		r.replay(tb, func(s *model.Sample) {
			a.Add(s, func(h string, _ int64, x []float64) { vectors[h] = append(vectors[h], slices.Clone(x)) })
		})
	}
	b, _, err := TrainBaseline(vectors, nil, prof.Metrics(), BaselineTrainOptions(), bp)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// judgeOwn runs the peers alone (b nil) or with each node's own history
// over a labelled run, without logs, and scores it.
func judgeOwn(prof *Profile, p Params, b *Baseline, r simRun, v []labeled) outcome {
	d := NewDetector(prof.Bins(), prof.Metrics(), p, nil)
	d.SetBaseline(b)
	for _, x := range v {
		d.Add(x.host, x.t, x.label, x.z, x.x)
	}
	d.Flush()
	var o outcome
	if len(r.res.Truth.Faults) > 0 {
		o.culprit = r.res.Truth.Faults[0].Host
	}
	o.indictments = d.Indictments()
	o.statuses = d.Statuses()
	for _, st := range o.statuses {
		o.alarms += st.Alarms
		o.steps += st.Steps
		if st.FirstIndicted == 0 {
			continue
		}
		if st.Host == o.culprit {
			o.culpritIndicted = true
		} else {
			o.innocents = append(o.innocents, st.Host)
		}
	}
	return o
}

// TestEvaluateAsymmetric is the target for the peer diagnosis
// without logs on clusters whose peers are not alike: the asymmetric
// scenario (node001 also runs the master's daemons) at 4 and 10 nodes,
// fault-free and with a CPU hog or a disk hog on a node drawn from the
// seed (30–200 s), 20 seeds each, Ganesha's peers alone beside the peers
// and each node's own history (a Baseline recorded from
// asymBaselineDays fault-free days of the same cluster, other workload
// seeds). The profile is the shared one (trainedProfile).
// CLUSTERLENS_EVAL_SEED moves the seeds (500, 520, ..., 580 while
// tuning); on the reported seeds 1–20 the test holds the targets
// (no false indictment on the fault-free runs, CPU and disk hogs found in
// ≥ 95% of runs) and no innocent indicted beside a hog, but for the one
// 4-node disk-hog run measured (docs/PEER.md).
func TestEvaluateAsymmetric(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 480 runs")
	}
	first := uint64(1)
	if v := os.Getenv("CLUSTERLENS_EVAL_SEED"); v != "" {
		first, _ = strconv.ParseUint(v, 10, 64)
	}
	prof := trainedProfile(t)
	p := prof.Params
	bp := DefaultBaselineParams()
	conf := confidences{}
	var b strings.Builder
	fmt.Fprintf(&b, "seeds %d-%d\n| scenario | nodes | runs | Ganesha TP | Ganesha FP | Ganesha alarms/node-step | own history TP | own history FP | own history alarms/node-step |\n|---|---|---|---|---|---|---|---|---|\n", first, first+19)
	for _, nodes := range []int{4, 10} {
		rows := map[string]*[2]tally{}
		for seed := first; seed < first+20; seed++ {
			base := asymBaseline(t, prof, bp, nodes, seed)
			for _, fault := range asymCases {
				r := asymRun(t, nodes, seed, seed, 0, fault)
				v := labelRun(t, prof, r)
				if rows[fault] == nil {
					rows[fault] = &[2]tally{}
				}
				g := judgeOwn(prof, p, nil, r, v)
				rows[fault][0].add(g)
				conf.add(g)
				o := judgeOwn(prof, p, base, r, v)
				rows[fault][1].add(o)
				conf.add(o)
			}
		}
		for _, fault := range asymCases {
			g, o := rows[fault][0], rows[fault][1]
			// The disk hog at 4 nodes: one run (seed 19) also indicts an
			// innocent (node001) beside the hogged node, as it did before
			// the levels; measured.
			minTP := map[string]float64{sim.FaultCPUHog: 0.95, sim.FaultDiskHog: 0.95}[fault]
			maxFP := 0.0
			if first == 1 && (o.fpRatio() > maxFP || o.tpRatio() < minTP) {
				t.Errorf("asymmetric %q at %d nodes with own history: TP %.2f (floor %.2f), FP %.2f (ceiling %.2f)", fault, nodes, o.tpRatio(), minTP, o.fpRatio(), maxFP)
			}
			name := "asymmetric + " + fault
			switch fault {
			case "":
				name = "asymmetric, fault-free"
			case patternQuiet, patternBusier:
				name = fault + " (fault-free)"
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %.2f | %.2f | %.4f | %.2f | %.2f | %.4f |\n", name, nodes, g.runs,
				g.tpRatio(), g.fpRatio(), g.alarmRate(), o.tpRatio(), o.fpRatio(), o.alarmRate())
		}
	}
	fmt.Fprintf(&b, "\n%s", conf.table())
	t.Log("\n" + b.String())
}

// asymCases are the runs judged per seed: fault-free, the two hogs, and
// the fault-free patterns.
var asymCases = []string{"", sim.FaultCPUHog, sim.FaultDiskHog, patternQuiet, patternBusier}

// confidences tallies indictments by confidence: how many indicted the
// run's culprit, how many an innocent.
type confidences map[string]*[2]int

func (c confidences) add(o outcome) {
	for _, in := range o.indictments {
		if c[in.Confidence] == nil {
			c[in.Confidence] = &[2]int{}
		}
		if in.Host == o.culprit {
			c[in.Confidence][0]++
		} else {
			c[in.Confidence][1]++
		}
	}
}

func (c confidences) table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "| confidence | indictments of the culprit | of an innocent | precision |\n|---|---|---|---|\n")
	for _, k := range []string{ConfidenceHigh, ConfidenceMedium, ConfidenceLow} {
		if x := c[k]; x != nil {
			fmt.Fprintf(&b, "| %s | %d | %d | %.3f |\n", k, x[0], x[1], float64(x[0])/float64(x[0]+x[1]))
		}
	}
	return b.String()
}
