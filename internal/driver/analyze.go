package driver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/hetero"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/nodediag"
	"github.com/clusterlens/clusterlens/internal/peer"
)

// Analyses are what the analyses of applications take beyond their logs.
type Analyses struct {
	// Options are the analyses' own (findings' severity, dataflow
	// specification, timeline, reconstruction); Analyze fills in the
	// metrics, the correlation's tolerances and the node diagnosis.
	Options analysis.Options
	// Metrics, when not nil, are node samples joined with each
	// application's tasks, stages and jobs per host (HybridTune's
	// correlation) within Skew (0: none, not the default), under Aliases
	// (sample host names of log hosts, or back); AlignClocks estimates
	// each node's clock offset first.
	Metrics     *Metrics
	Skew        time.Duration
	Aliases     map[string]string
	AlignClocks bool
	// Shared says Metrics is a store shared by every application (a
	// server's): when it holds nothing of an application's run, or fails,
	// the analysis has no metrics (a failure noted in it), where a source
	// the user named gives its correlation even when empty, and its
	// failure is the caller's.
	Shared bool
	// Nodes, with Metrics, diagnoses the nodes (nil: not done).
	Nodes *NodeInputs
	// NodeModel is the run history's model of each node's speed (nil:
	// none): the detectors judge stragglers, and the node diagnosis the
	// culprits' slowdowns, against each node's own model.
	NodeModel *hetero.Joint
}

// NodeInputs are the node diagnosis's inputs.
type NodeInputs struct {
	// Profile is a trained Ganesha profile and ProfileName what it is
	// called in the output (nil: each application's diagnosis trains one
	// on its own samples).
	Profile     *peer.Profile
	ProfileName string
	// Baseline is the nodes' own fault-free models (nil: none).
	Baseline *peer.Baseline
	// Tune adjusts the options once the profile's parameters are set (a
	// command's parameter flags); its error is returned as it is.
	Tune func(*nodediag.Options) error
}

// Analyze analyzes the applications together: the metrics are read once,
// over every application's run (each widened by the tolerance and a
// minute), and each node diagnosis compares nodes by the workload of all
// of them. A metrics source that fails is a *MetricsError; one read only
// in part returns the analyses and a *MetricsError that is
// metrics.ErrPartial.
func Analyze(ctx context.Context, apps []*model.App, in Analyses) ([]*analysis.Analysis, error) {
	opts := in.Options
	var expect peer.Expect
	if in.NodeModel != nil {
		opts.Diagnose.NodeModel, expect = in.NodeModel, in.NodeModel.Expect
	}
	var partial error // a source read in part, or a shared store's failure
	if in.Metrics != nil {
		fr, err := metricFrames(ctx, apps, in, &opts)
		switch {
		case err != nil && in.Shared:
			partial = err
		case err != nil && !errors.Is(err, metrics.ErrPartial):
			return nil, err
		default:
			partial = err
		}
		if fr != nil && (!in.Shared || fr.Rows() > 0) {
			opts.Metrics = fr
		}
	}
	if in.Nodes != nil && opts.Metrics != nil {
		nopt, err := nodeOptions(*in.Nodes, apps, expect)
		if err != nil {
			return nil, err
		}
		opts.Nodes = nopt
	}
	as := make([]*analysis.Analysis, 0, len(apps))
	for _, app := range apps {
		a := analysis.Build(app, opts)
		if in.NodeModel != nil {
			a.NodeVerdicts = &in.NodeModel.JudgeRuns([]*history.Run{history.FromApp(app, app.Source, false, nil)})[0]
		}
		if partial != nil && in.Shared {
			a.Notes = append(a.Notes, "node metrics: "+partial.Error())
		}
		as = append(as, a)
	}
	if in.Shared {
		return as, nil
	}
	return as, partial
}

// metricFrames reads the metrics over the applications' runs and sets the
// correlation's options in opts; nil frames when no application has known
// times (nothing to correlate) or the source cannot be read.
func metricFrames(ctx context.Context, apps []*model.App, in Analyses, opts *analysis.Options) (*correlate.Frames, error) {
	if in.Skew < 0 {
		return nil, fmt.Errorf("clock-skew tolerance %s: want at least 0", in.Skew)
	}
	opts.Correlate.Aliases = in.Aliases
	skew := in.Skew.Milliseconds()
	opts.Correlate.SkewMs = skew
	if skew == 0 {
		opts.Correlate.SkewMs = -1 // none
	}
	margin := skew + time.Minute.Milliseconds()
	var spans [][2]int64
	for _, a := range apps {
		if a.Start > 0 && a.End >= a.Start {
			spans = append(spans, [2]int64{a.Start - margin, a.End + margin})
		}
	}
	if len(spans) == 0 {
		return nil, nil
	}
	fr, err := Frames(ctx, in.Metrics, spans)
	if fr != nil && in.AlignClocks {
		opts.Correlate.Offsets = correlate.Offsets(correlate.EstimateOffsets(apps, fr, opts.Correlate))
	}
	return fr, metricsError(err)
}

// nodeOptions are the node diagnosis's options: the underlying methods'
// defaults, the profile's parameters if there is one (else each
// application's diagnosis trains one on its own span's samples), the
// baseline, and the workload of every application (its attempts'
// slowdowns against the node models, when given), then Tune's changes.
func nodeOptions(in NodeInputs, apps []*model.App, expect peer.Expect) (*nodediag.Options, error) {
	nopt := nodediag.DefaultOptions()
	nopt.Workload = peer.NewWorkloadModel(apps, expect)
	if in.Profile != nil {
		nopt.Profile, nopt.ProfileName, nopt.Peer = in.Profile, in.ProfileName, in.Profile.Params
	}
	nopt.Baseline = in.Baseline
	if in.Tune != nil {
		if err := in.Tune(&nopt); err != nil {
			return nil, err
		}
	}
	if err := nopt.Peer.Validate(); err != nil {
		return nil, fmt.Errorf("node diagnosis: %w", err)
	}
	return &nopt, nil
}
