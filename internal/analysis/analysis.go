// Package analysis composes the analyses of one application: the summary,
// HiTune's dataflow breakdown, Sparklens's efficiency and what-if, the SQL
// queries, the node metrics correlated with the tasks, the node diagnosis
// and the findings. The command line, the HTML report and the web UI share
// it; it renders nothing.
package analysis

import (
	"errors"

	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/diagnose"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/nodediag"
	"github.com/clusterlens/clusterlens/internal/perfmodel"
	"github.com/clusterlens/clusterlens/internal/query"
	"github.com/clusterlens/clusterlens/internal/summary"
)

// Analysis is everything clusterlens concludes about one application: the
// summary, HiTune's dataflow breakdown, Sparklens's efficiency figures and
// what-if curve, and the findings. Parts that cannot be computed for an
// application (no finished task, a MapReduce job for the Spark-only what-if)
// are nil, with the reason in Notes.
type Analysis struct {
	Summary    *summary.Summary      `json:"summary"`
	Dataflow   *dataflow.Breakdown   `json:"dataflow,omitempty"`
	Efficiency *perfmodel.Efficiency `json:"efficiency,omitempty"`
	WhatIf     *perfmodel.WhatIf     `json:"whatIf,omitempty"`
	Findings   []finding.Finding     `json:"findings"`
	// Queries are the SQL queries analyzed (query.Analyze), by id.
	Queries []query.Query `json:"queries,omitempty"`
	// Metrics is the correlation of node samples with the application's
	// tasks, stages and jobs (HybridTune §3.1), with Options.Metrics.
	Metrics *correlate.Result `json:"metrics,omitempty"`
	// Nodes is the node diagnosis from the metrics (HybridTune's abnormal
	// nodes per stage, Ganesha's culprits), with Options.Nodes.
	Nodes *nodediag.Result `json:"nodes,omitempty"`
	// Threads is the dataflow reconstructed from the JVM thread samples
	// among the metrics (HiTune §4.1, §5), compared with the log's.
	Threads *dataflow.ThreadReconstruction `json:"threads,omitempty"`
	// NodeVerdicts are the run's nodes judged against their own models
	// from the run history (analyze --node-models; nil without): the
	// composition layer sets a *hetero.RunVerdicts here, package hetero
	// being a layer above this one (docs/ARCHITECTURE.md).
	NodeVerdicts any      `json:"nodeVerdicts,omitempty"`
	Notes        []string `json:"notes,omitempty"`

	timeline *dataflow.Timeline
	recon    *dataflow.Reconstruction
	corr     *correlate.Correlation
}

// Timeline is the task timeline, kept with Options.Timeline (else nil).
func (a *Analysis) Timeline() *dataflow.Timeline { return a.timeline }

// Reconstruction is HiTune's dataflow reconstruction, kept with
// Options.Reconstruction (else nil): the HTML report draws its timeline and
// per-node heat map over time from it.
func (a *Analysis) Reconstruction() *dataflow.Reconstruction { return a.recon }

// Correlation is the join of the node samples with the application, with
// Options.Metrics (else nil).
func (a *Analysis) Correlation() *correlate.Correlation { return a.corr }

// Options tune Build.
type Options struct {
	Dataflow dataflow.Options
	Diagnose diagnose.Options
	// Timeline keeps the task timeline for text output.
	Timeline bool
	// Reconstruction keeps the dataflow reconstruction, from which the HTML
	// report draws its timeline and per-node heat map over time.
	Reconstruction bool
	// Metrics are node samples to correlate with the application (nil:
	// none); Correlate tunes the correlation.
	Metrics   *correlate.Frames
	Correlate correlate.Options
	// Nodes, with Metrics, diagnoses the nodes from them (nil: not done).
	Nodes *nodediag.Options
}

// Build analyzes one application.
func Build(app *model.App, opts Options) *Analysis {
	a := &Analysis{Summary: summary.Build(app), Findings: []finding.Finding{}}
	in := diagnose.NewInput(app)
	df, err := dataflow.Analyze(app, opts.Dataflow)
	if opts.Dataflow == (dataflow.Options{}) {
		// The detectors analyze with the defaults too: share the analysis.
		in.UseDataflow(df, err)
	}
	if err != nil {
		a.Notes = append(a.Notes, "dataflow: "+err.Error())
	} else {
		a.Dataflow = df.Breakdown
		if opts.Reconstruction {
			a.recon = df.Reconstruction
		}
		if opts.Timeline {
			a.timeline = df.Timeline(dataflow.TimelineOptions{})
		}
	}
	if app.Engine == model.Spark {
		if eff, err := in.Efficiency(); err != nil {
			a.Notes = append(a.Notes, "efficiency: "+err.Error())
		} else {
			a.Efficiency = eff
		}
		if wi, err := in.WhatIf(); err != nil && !errors.Is(err, perfmodel.ErrNoTasks) {
			a.Notes = append(a.Notes, "what-if: "+err.Error())
		} else {
			a.WhatIf = wi
		}
	}
	if opts.Metrics != nil {
		a.corr = correlate.New(app, opts.Metrics, opts.Correlate)
		a.Metrics = a.corr.Result()
		if th := opts.Metrics.Threads(); len(th) > 0 && err == nil {
			hosts := map[string]string{}
			for _, m := range a.Metrics.Hosts {
				hosts[m.SampleHost] = m.Host
			}
			if tr := dataflow.SampledFor(df.Reconstruction, th, hosts, dataflow.ThreadOptions{}); tr.Samples > 0 {
				a.Threads = tr
			}
		}
		if opts.Nodes != nil {
			a.Nodes = nodediag.Diagnose(a.corr, opts.Metrics, *opts.Nodes)
			a.Findings = append(a.Findings, a.Nodes.Findings(opts.Diagnose.MinSeverity)...)
		}
	}
	a.Findings = append(a.Findings, diagnose.RunInput(in, opts.Diagnose)...)
	a.Queries = in.Queries()
	diagnose.Rank(a.Findings)
	return a
}
