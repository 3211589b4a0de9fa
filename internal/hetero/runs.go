package hetero

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/history"
)

// RunVerdicts are the nodes of one run, judged on that run alone.
type RunVerdicts struct {
	Key   string `json:"key"`
	ID    string `json:"id"`
	Name  string `json:"name"`
	Start int64  `json:"start"`
	// Verdicts per node that ran a task in the run, by host.
	Verdicts []Verdict `json:"verdicts"`
	// RunWide is set when every node of the run (at least two) with a
	// history of its stages ran significantly slower than that history:
	// a slowdown of the whole run (each node is degraded against its own
	// history all the same; it is said so that it does not pass for a
	// fault of one node nor cancel among the peers).
	RunWide *RunWide `json:"runWide,omitempty"`
}

// RunWide is a slowdown every node of a run shows against its history.
type RunWide struct {
	// Slowdown is the run's nodes' pooled slowdown against their history.
	Slowdown Factor `json:"slowdown"`
	// Nodes are each node's slowdown against its own history.
	Nodes []NodeFactor `json:"nodes"`
	Why   string       `json:"why"`
}

// NodeFactor is one node's factor.
type NodeFactor struct {
	Host   string `json:"host"`
	Factor Factor `json:"factor"`
}

// JudgeRuns judges each of runs (read with Detail) on its own, as Judge
// would judge a window of that one run, and says when a run's slowdown is
// run-wide.
func (m *Joint) JudgeRuns(runs []*history.Run) []RunVerdicts {
	out := make([]RunVerdicts, 0, len(runs))
	for _, r := range runs {
		rv := RunVerdicts{Key: r.Key, ID: r.ID, Name: r.Name, Start: r.Start, Verdicts: m.Judge([]*history.Run{r})}
		rv.RunWide = m.runWide(rv.Verdicts)
		out = append(out, rv)
	}
	return out
}

// runWide is the run-wide slowdown of a run's verdicts, or nil.
func (m *Joint) runWide(vs []Verdict) *RunWide {
	var nodes []NodeFactor
	var sw, se float64
	for _, v := range vs {
		if v.VsHistory == nil {
			continue
		}
		if v.VsHistoryZ < m.p.Z || v.VsHistory.Value < m.p.MinSlowdown {
			return nil
		}
		nodes = append(nodes, NodeFactor{Host: v.Host, Factor: *v.VsHistory})
		// The interval is ±intervalZ·sd in log: back to the variance.
		sd := (math.Log(v.VsHistory.High) - math.Log(v.VsHistory.Low)) / (2 * intervalZ)
		w := 1 / math.Max(sd*sd, 1e-9)
		sw += w
		se += w * math.Log(v.VsHistory.Value)
	}
	if len(nodes) < 2 {
		return nil
	}
	f := factor(se/sw, 1/math.Sqrt(sw))
	parts := make([]string, len(nodes))
	for i, n := range nodes {
		parts[i] = fmt.Sprintf("%s %.2fx", n.Host, n.Factor.Value)
	}
	return &RunWide{Slowdown: f, Nodes: nodes, Why: fmt.Sprintf("every node with a history of its stages ran slower than that history (%s): the whole run was %.2fx (%.2f–%.2f) its usual — a slowdown of the run or of every node, not one node's",
		strings.Join(parts, ", "), f.Value, f.Low, f.High)}
}

// Expectation is what one host's tasks of one stage of a run should have
// taken, by the run history: the history's expectation for the stage on
// that node (its job class's level on this node: the recurring job's own
// past runs, scaled on bytes per task, times the node's factors) combined
// with the run's other nodes, and the history's alone.
type Expectation struct {
	Stage     int32  `json:"stage"`
	Attempt   int32  `json:"attempt"`
	Signature string `json:"signature"`
	Host      string `json:"host"`
	Tasks     int    `json:"tasks"`
	// ObservedMs is the geometric mean of the host's task durations
	// (its longest left out when it ran over Params.Trim times the
	// others').
	ObservedMs float64 `json:"observedMs"`
	// ExpectedMs is what the expectation says of that geometric mean;
	// Slowdown is observed over expected with its 95% interval; Basis
	// what it came from (BasisHistory, BasisHistoryPeers, BasisPeers).
	ExpectedMs float64 `json:"expectedMs"`
	Slowdown   Factor  `json:"slowdown"`
	Basis      string  `json:"basis"`
	// HistoryMs and VsHistory are the same against the stage's own
	// history alone (absent: the history has too few runs of the stage).
	HistoryMs float64 `json:"historyMs,omitempty"`
	VsHistory *Factor `json:"vsHistory,omitempty"`
}

// Expectations returns, for each stage and host of run r (read with
// Detail) whose node the model knows, what the host's tasks should have
// taken (judgeCells: the stage's history and the run's other nodes, each
// by its uncertainty). Hosts with too little history and stages with
// neither a history nor a peer with history are left out. This is the
// expectation Judge and JudgeRuns decide on, per stage.
func (m *Joint) Expectations(r *history.Run) []Expectation {
	t := newData()
	t.add([]*history.Run{r}, m.p.Trim)
	stages := map[[2]int32]*history.Stage{}
	for i := range r.Stages {
		stages[[2]int32{r.Stages[i].ID, r.Stages[i].Attempt}] = &r.Stages[i]
	}
	var out []Expectation
	for _, c := range m.judgeCells(t, true) {
		k := t.rs[c.rs].stage
		st := stages[k]
		x := Expectation{Stage: k[0], Attempt: k[1], Signature: st.Signature, Host: t.nodes[c.node], Tasks: c.tasks,
			ObservedMs: round3(math.Exp(c.y)), ExpectedMs: round3(math.Exp(c.y - c.e)), Basis: c.basis,
			Slowdown: factor(c.e, math.Sqrt(c.ve))}
		if c.hist {
			f := factor(c.eh, math.Sqrt(c.vh))
			x.HistoryMs, x.VsHistory = round3(math.Exp(c.y-c.eh)), &f
		}
		out = append(out, x)
	}
	slices.SortFunc(out, func(a, b Expectation) int {
		return cmp.Or(cmp.Compare(a.Stage, b.Stage), cmp.Compare(a.Attempt, b.Attempt), cmp.Compare(a.Host, b.Host))
	})
	return out
}
