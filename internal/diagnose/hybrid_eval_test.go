package diagnose

import (
	"fmt"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// item is one predicted or true element: an application's stage and a
// task index or a host.
type item struct {
	app   string
	stage int32
	what  string
}

// score counts true positives, false positives and false negatives, and
// the predictions left out as neither (ignored).
type score struct{ tp, fp, fn, ignored, cleanFindings int }

func (s score) precision() float64 {
	if s.tp+s.fp == 0 {
		return 1
	}
	return float64(s.tp) / float64(s.tp+s.fp)
}

func (s score) recall() float64 {
	if s.tp+s.fn == 0 {
		return 1
	}
	return float64(s.tp) / float64(s.tp+s.fn)
}

// add compares predicted with truth.
func (s *score) add(pred, truth map[item]bool) { s.addIgnoring(pred, truth, nil) }

// addIgnoring compares predicted with truth, leaving out the items of
// ignore: a prediction there is neither true nor false, and a truth item
// there is not missed.
func (s *score) addIgnoring(pred, truth, ignore map[item]bool) {
	for p := range pred {
		if ignore[p] && !truth[p] {
			s.ignored++
			continue
		}
		if truth[p] {
			s.tp++
		} else {
			s.fp++
		}
	}
	for t := range truth {
		if !pred[t] && !ignore[t] {
			s.fn++
		}
	}
}

// simStage is the simulator's stage number of a model stage: the Spark
// stage id, or 0 for a MapReduce map stage and 1 for its reduce stage.
func simStage(st *model.Stage) int32 {
	switch st.Kind {
	case model.StageMap:
		return 0
	case model.StageReduce:
		return 1
	}
	return st.ID
}

// stageOf finds the stage a finding's "stage" evidence names.
func stageOf(app *model.App, f Finding) (*model.Stage, bool) {
	for _, e := range f.Evidence {
		if e.Name == "stage" {
			for _, st := range app.Stages {
				if float64(st.ID) == e.Value {
					return st, true
				}
			}
		}
	}
	return nil, false
}

// predicted turns one detector's findings on a simulation into items:
// skewed task indexes (data-skew's task findings) or flagged hosts of a
// stage (workload-imbalance's and uneven-placement's stage findings).
func predicted(t *testing.T, res *sim.Result, id string) (map[item]bool, int) {
	t.Helper()
	return predictedWith(t, res, id, nil)
}

// predictedWith is predicted with the detector's params (nil: the
// evaluation's defaults).
func predictedWith(t *testing.T, res *sim.Result, id string, params any) (map[item]bool, int) {
	t.Helper()
	out := map[item]bool{}
	n := 0
	opts := Options{Only: []string{id}, Params: map[string]any{"data-skew": DataSkewParams{Threshold: 1.5, Ratio: DefaultDataSkewParams.Ratio,
		MinTasks: DefaultDataSkewParams.MinTasks, MinBytes: DefaultDataSkewParams.MinBytes, MinTasksPerNode: DefaultDataSkewParams.MinTasksPerNode}}}
	if params != nil {
		opts.Params[id] = params
	}
	for _, app := range res.Apps {
		index := map[string]item{}
		for _, st := range app.Stages {
			for _, tk := range st.Tasks {
				index[fmt.Sprint(tk.ID)] = item{app.ID, simStage(st), fmt.Sprint(tk.Index)}
			}
		}
		for _, f := range Run(app, opts) {
			st, ok := stageOf(app, f)
			if !ok || id == "data-skew" && f.Scope.Kind != ScopeTask {
				continue // job-level imbalance, per-node data skew
			}
			n++
			for _, sid := range f.Scope.IDs {
				switch f.Scope.Kind {
				case ScopeTask:
					if it, ok := index[sid]; ok {
						out[it] = true
					}
				case ScopeNode:
					out[item{app.ID, simStage(st), sid}] = true
				}
			}
		}
	}
	return out, n
}

// truthItems lists the problems of kind as items, and the items to
// ignore. Placement hosts count only where they ran the stage's tasks: a
// node without executors leaves no trace in the logs. Imbalance the
// workload made (cached partitions, sim.CauseCache, or HDFS block
// placement, sim.CauseBlocks) is real but of unknown size (with a
// partition or two per slot, one more or less is over BC, and the
// scheduler may move tasks off the busiest executors), while the detector
// reports only imbalance that cost MinExcessMs: its hosts are ignored,
// neither to be found nor false when found.
func truthItems(res *sim.Result, kind string) (truth, ignore map[item]bool) {
	out := map[item]bool{}
	ignore = map[item]bool{}
	for _, p := range res.Truth.Problems {
		if p.Kind != kind {
			continue
		}
		if p.Cause != "" {
			for _, h := range p.Hosts {
				ignore[item{p.App, p.Stage, h}] = true
			}
			continue
		}
		ran := map[string]bool{}
		for _, app := range res.Apps {
			if app.ID != p.App {
				continue
			}
			for _, st := range app.Stages {
				if simStage(st) == p.Stage {
					for _, tk := range st.Tasks {
						ran[app.Host(tk.Host)] = true
					}
				}
			}
		}
		for _, ti := range p.Tasks {
			out[item{p.App, p.Stage, fmt.Sprint(ti)}] = true
		}
		for _, h := range p.Hosts {
			if kind != sim.ProblemPlacement || ran[h] {
				out[item{p.App, p.Stage, h}] = true
			}
		}
	}
	return out, ignore
}
