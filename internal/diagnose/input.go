package diagnose

import (
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/perfmodel"
	"github.com/clusterlens/clusterlens/internal/query"
)

// Input is one application with the analyses detectors share, each computed
// on first use and kept. It is not safe for concurrent use.
type Input struct {
	App *model.App
	// NodeModel, when set, is what a model of the nodes learned from other
	// runs expects of each node (straggler-nodes compares a node with it);
	// RunInput sets it from Options.NodeModel.
	NodeModel NodeModel
	expect    Expectation

	wl     *perfmodel.Workload
	wlErr  error
	wlDone bool
	eff    *perfmodel.Efficiency
	wi     *perfmodel.WhatIf
	wiErr  error
	wiDone bool

	queries     []query.Query
	queriesDone bool

	pl        *perfmodel.Plan
	check     perfmodel.SelfCheck
	planDone  bool
	taskHosts map[int64]uint32
	// metricByTask holds attemptMetric's maps by metric.
	metricByTask map[model.Metric]map[int64]int64
	// impactLimits grade the impacts (RunInput sets them from Options).
	impactLimits ImpactLimits
}

// NewInput wraps app.
func NewInput(app *model.App) *Input { return &Input{App: app} }

// Workload is the application's performance-model workload
// (perfmodel.FromApp); perfmodel.ErrNoTasks when no task finished.
func (in *Input) Workload() (*perfmodel.Workload, error) {
	if !in.wlDone {
		in.wl, in.wlErr = perfmodel.FromApp(in.App)
		in.wlDone = true
	}
	return in.wl, in.wlErr
}

// Efficiency is Sparklens's efficiency statistics (perfmodel.Analyze).
func (in *Input) Efficiency() (*perfmodel.Efficiency, error) {
	if in.eff == nil {
		w, err := in.Workload()
		if err != nil {
			return nil, err
		}
		in.eff = perfmodel.Analyze(w)
	}
	return in.eff, nil
}

// WhatIf is the completion-time curve at Sparklens's executor percentages
// (perfmodel.EstimateWhatIf with perfmodel.DefaultPercents).
func (in *Input) WhatIf() (*perfmodel.WhatIf, error) {
	if !in.wiDone {
		w, err := in.Workload()
		if err == nil {
			if p, _, ok := in.plan(); ok {
				in.wi, err = p.WhatIf(nil) // the replays the impacts use
			} else {
				in.wi, err = perfmodel.EstimateWhatIf(w, nil)
			}
		}
		in.wiErr = err
		in.wiDone = true
	}
	return in.wi, in.wiErr
}

// Queries are the application's SQL queries analyzed (query.Analyze).
func (in *Input) Queries() []query.Query {
	if !in.queriesDone {
		in.queries, in.queriesDone = query.Analyze(in.App), true
	}
	return in.queries
}

// appScope is the application scope.
func (in *Input) appScope() Scope {
	id := in.App.ID
	if id == "" {
		id = in.App.Source
	}
	if in.App.AttemptID != "" {
		id += "/" + in.App.AttemptID
	}
	return Scope{Kind: ScopeApplication, IDs: []string{id}}
}

// spark reports whether the application ran on Spark: Sparklens's detectors
// speak of executors, partitions and Spark settings, so they leave MapReduce
// jobs to Dr. Elephant's MapReduce heuristics.
func (in *Input) spark() bool { return in.App.Engine == model.Spark }
