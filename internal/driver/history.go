package driver

import (
	"context"
	"fmt"

	"github.com/clusterlens/clusterlens/internal/hetero"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/predict"
)

// NodeModels fits the joint node model (PARC, docs/NODES.md) on the run
// history, leaving out the runs of apps: they are what it judges.
func NodeModels(ctx context.Context, st history.Store, apps []*model.App) (*hetero.Joint, error) {
	exclude := map[string]bool{}
	for _, a := range apps {
		exclude[history.RunKey(a)] = true
	}
	return hetero.FitStore(ctx, st, exclude, hetero.DefaultParams)
}

// AssessNodes is PARC's view of the nodes from the run history: classes,
// learned speeds, and each node's newest runs judged against its own
// model (the joint model, the newest 20 runs judged).
func AssessNodes(ctx context.Context, st history.Store) (*Assessment, error) {
	return hetero.Assess(ctx, st, hetero.Options{Params: hetero.DefaultParams, Model: hetero.ModelJoint, Recent: 20})
}

// ErrNoHistory is AssessNodes's error when the history holds too few runs.
var ErrNoHistory = hetero.ErrNoHistory

// The node assessment as those who present it name it.
type (
	Assessment     = hetero.Assessment
	NodeSpeed      = hetero.NodeSpeed
	NodeVerdict    = hetero.Verdict
	NodeClass      = hetero.Class
	ResourceFactor = hetero.ResourceFactor
)

// NodeDegraded is the status of a node slower than its own model expects.
const NodeDegraded = hetero.StatusDegraded

// Estimate is a predicted duration with its interval.
type Estimate = predict.Estimate

// PredictNext predicts a recurring job's next run with its latest run's
// machines and input, from its past runs (predict.FromRuns, as `predict
// --job` does).
func PredictNext(ctx context.Context, st history.Store, job *history.Job) (*Estimate, error) {
	runs, err := st.Runs(ctx, history.Filter{JobKeys: job.Variants, Oldest: true})
	if err != nil {
		return nil, err
	}
	t, err := predict.HistoryRuns(runs, predict.MachinesHosts)
	if err != nil {
		return nil, err
	}
	if len(t.Points) == 0 {
		return nil, fmt.Errorf("none of its %d runs succeeded with a duration", len(runs))
	}
	last := t.Points[len(t.Points)-1]
	return predict.FromRuns(t, last.Machines, last.Data, predict.ChoiceOptions{})
}
