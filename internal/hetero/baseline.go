package hetero

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/history"
)

// BaselineRatio is the plain baseline's flagging ratio.
const BaselineRatio = 1.3

// Baseline is the plain history baseline every model is measured beside
// (docs/NODES.md): a stage's usual task duration is the median, over the
// history runs of its job class, of the run's median task duration; a
// node is flagged in the runs judged when the median over its tasks of
// (duration / its stage's usual duration) is at least BaselineRatio. The
// history keeps moments per host and stage, not tasks, so a node's tasks
// of one stage count with their geometric mean (FlowBench's MANIFEST
// states the rule on tasks; its evaluation computes both).
type Baseline struct {
	usual map[string]float64 // job class key (and loose key) → usual ms
	tasks map[string]int     // history tasks per host
	runs  int
	min   int
}

// FitBaseline learns the stages' usual durations from runs (read with
// Detail).
func FitBaseline(runs []*history.Run, p Params) (*Baseline, error) {
	per := map[string][]float64{}
	b := &Baseline{usual: map[string]float64{}, tasks: map[string]int{}, runs: len(runs), min: p.MinHistoryTasks}
	for _, r := range runs {
		for i := range r.Stages {
			st := &r.Stages[i]
			if st.Quantiles[2] > 0 && nodeWork(r, st) {
				k := jobKey(r, st)
				per[k] = append(per[k], st.Quantiles[2])
				per[looseKey(k)] = append(per[looseKey(k)], st.Quantiles[2])
			}
		}
		for i := range r.Hosts {
			b.tasks[r.Hosts[i].Host] += r.Hosts[i].Tasks
		}
	}
	if len(per) == 0 {
		return nil, fmt.Errorf("%w: %d runs, none with a stage's task durations (index runs with clusterlens index)", ErrNoHistory, len(runs))
	}
	for k, v := range per {
		slices.Sort(v)
		b.usual[k] = v[len(v)/2]
	}
	return b, nil
}

// Judge flags the nodes of runs whose median ratio is at least
// BaselineRatio.
func (b *Baseline) Judge(runs []*history.Run) []Verdict {
	type ratio struct {
		r float64
		n int
	}
	per := map[string][]ratio{}
	seen := map[string]int{}
	runsOf := map[string]map[string]bool{}
	for _, r := range runs {
		stages := map[[2]int32]*history.Stage{}
		for i := range r.Stages {
			stages[[2]int32{r.Stages[i].ID, r.Stages[i].Attempt}] = &r.Stages[i]
		}
		for i := range r.Hosts {
			h := &r.Hosts[i]
			st := stages[[2]int32{h.Stage, h.Attempt}]
			if h.Tasks <= 0 || st == nil || !nodeWork(r, st) {
				continue
			}
			seen[h.Host] += h.Tasks
			if runsOf[h.Host] == nil {
				runsOf[h.Host] = map[string]bool{}
			}
			runsOf[h.Host][r.Key] = true
			k := jobKey(r, st)
			u, ok := b.usual[k]
			if !ok {
				u, ok = b.usual[looseKey(k)]
			}
			if !ok {
				continue
			}
			per[h.Host] = append(per[h.Host], ratio{r: math.Exp(h.SumLog/float64(h.Tasks)) / u, n: h.Tasks})
		}
	}
	out := make([]Verdict, 0, len(seen))
	for host, tasks := range seen {
		vd := Verdict{Host: host, Tasks: tasks, Runs: len(runsOf[host]), HistoryTasks: b.tasks[host]}
		rs := per[host]
		switch {
		case vd.HistoryTasks == 0:
			vd.Status, vd.Why = StatusUnknown, fmt.Sprintf("no history: the node ran no task in the %d runs of the history", b.runs)
		case vd.HistoryTasks < b.min:
			vd.Status, vd.Why = StatusUnknown, fmt.Sprintf("too little history: %d tasks, %d needed", vd.HistoryTasks, b.min)
		case len(rs) == 0:
			vd.Status, vd.Why = StatusUnknown, "none of its stages ran in the history"
		default:
			slices.SortFunc(rs, func(a, b ratio) int { return cmp.Compare(a.r, b.r) })
			total := 0
			for _, x := range rs {
				total += x.n
			}
			med, acc := rs[len(rs)-1].r, 0
			for _, x := range rs {
				acc += x.n
				if 2*acc >= total {
					med = x.r
					break
				}
			}
			vd.Slowdown = &Factor{Value: round3(med), Low: round3(med), High: round3(med)}
			vd.Status = StatusNormal
			vd.Why = fmt.Sprintf("its tasks' median ratio to their stages' usual duration is %.2f (the plain baseline flags %.1f; no interval)", med, BaselineRatio)
			if med >= BaselineRatio {
				vd.Status, vd.Resource = StatusDegraded, ResourceNode
			}
		}
		out = append(out, vd)
	}
	slices.SortFunc(out, func(a, b Verdict) int { return cmp.Compare(a.Host, b.Host) })
	return out
}
