package driver

import (
	"context"
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/analysis"
	why "github.com/clusterlens/clusterlens/internal/explain"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/hetero"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/model"
)

// Explaining is how the commands and pages explain a run: explain's
// default parameters, each node judged by package hetero's node model
// (HistoryNodes).
func Explaining() why.Options {
	return why.Options{Params: why.DefaultParams, Nodes: HistoryNodes{Params: hetero.DefaultParams}}
}

// HistoryNodes is explain's NodeModel from package hetero: its joint
// per-node model fitted on the recurring job's usual runs, each (stage,
// host) of the run against what that stage's own history expects on that
// node (hetero.Expectation.VsHistory; where the stage's history is too
// short, the history combined with the run's other nodes), pooled per
// host and per stage signature by inverse variance in log. docs/EXPLAIN.md
// measures it beside explain's own OwnHistory.
type HistoryNodes struct {
	Params hetero.Params
}

// Slowdowns implements explain.NodeModel.
func (h HistoryNodes) Slowdowns(run *history.Run, usual []*history.Run) []why.NodeSlowdown {
	m, err := hetero.Fit(usual, h.Params)
	if err != nil {
		return nil // no history with tasks per host: no node is judged
	}
	type pool struct {
		sw, se float64 // Σ w, Σ w·ln factor, w = 1/σ² of the log factor
		tasks  int
	}
	hosts := map[string]*pool{}
	stages := map[string]map[string]*pool{}
	var order []string
	for _, x := range m.Expectations(run) {
		f := x.Slowdown
		if x.VsHistory != nil {
			f = *x.VsHistory
		}
		// The factor's interval is ±1.96 σ in log.
		sd := math.Max((math.Log(f.High)-math.Log(f.Low))/(2*1.96), 1e-3)
		w := 1 / (sd * sd)
		if hosts[x.Host] == nil {
			hosts[x.Host], stages[x.Host] = &pool{}, map[string]*pool{}
			order = append(order, x.Host)
		}
		st := stages[x.Host][x.Signature]
		if st == nil {
			st = &pool{}
			stages[x.Host][x.Signature] = st
		}
		for _, p := range []*pool{hosts[x.Host], st} {
			p.sw += w
			p.se += w * math.Log(f.Value)
			p.tasks += x.Tasks
		}
	}
	out := make([]why.NodeSlowdown, 0, len(order))
	for _, host := range order {
		p := hosts[host]
		s := why.NodeSlowdown{Host: host, Factor: math.Exp(p.se / p.sw), Z: p.se / math.Sqrt(p.sw), Tasks: p.tasks,
			Stages: map[string]why.StageSlowdown{}}
		for sig, q := range stages[host] {
			s.Stages[sig] = why.StageSlowdown{Factor: math.Exp(q.se / q.sw), Z: q.se / math.Sqrt(q.sw), Tasks: q.tasks}
		}
		out = append(out, s)
	}
	return out
}

// Regressions compares each application (apps[i] analyzed as as[i])
// with its recurring job's usual runs in the run history and adds, to a
// slower one's findings (at least min grave), the slower-than-usual
// finding (docs/EXPLAIN.md).
func Regressions(ctx context.Context, st history.Store, apps []*model.App, as []*analysis.Analysis, min finding.Severity) error {
	opt := Explaining()
	for i, a := range as {
		run := history.FromApp(apps[i], apps[i].Source, false, nil)
		usual, err := why.UsualRuns(ctx, st, run, opt)
		if err != nil {
			return err
		}
		f := why.Finding(why.Explain(run, usual, opt.Params, opt.Nodes))
		if f == nil || f.Severity < min {
			continue
		}
		i := slices.IndexFunc(a.Findings, func(g finding.Finding) bool { return g.Severity < f.Severity })
		if i < 0 {
			i = len(a.Findings)
		}
		a.Findings = slices.Insert(a.Findings, i, *f)
	}
	return nil
}
