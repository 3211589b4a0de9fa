package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/diagnose"
	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/hetero"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/nodediag"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/report"
)

func init() {
	register(func(e *env) *cobra.Command {
		var o analyzeOptions
		cmd := &cobra.Command{
			Use:   "analyze PATH...",
			Short: "Explain where each application's time went and what to change",
			Long: `analyze reads every log under the PATHs (as summary does) and reports per application:
where the allocated slot time went (HiTune's dataflow breakdown: busy work and idle
time by cause, per stage and node), the wall clock split between driver and executors
with its lower bounds (critical path, perfect parallelism) and core-hours wasted
(Sparklens), the completion time with 10% to 500% of the executors (a replay of the
recorded tasks), and the findings with their evidence and recommendations.

--html FILE also writes one offline HTML page (Apache ECharts embedded, no network
needed) with the overview, the timeline, stage and node breakdowns, the findings and
the what-if curve, one section per application; docs/REPORT.md describes it.

--metrics SOURCE joins node samples (a CSV, sadf -j, sadc or nmon file, plain or compressed,
a folder of them, a Prometheus URL, or a store: sqlite:PATH, clickhouse+http://HOST:PORT/DB)
with each application's task, stage and job windows per host (HybridTune's correlation,
within --clock-skew, after --align-clocks if given; --host-alias names hosts the logs and
the samples call differently): the output gains per stage its resource profile (CPU-,
disk- or network-bound) and the means of its (stage, node) metric matrix, and the HTML
report per-node CPU, disk and network timelines under the task timeline;
docs/CORRELATE.md describes it.

With --metrics the nodes are also diagnosed: per stage the nodes unlike the others
that ran it and their outlier metrics (HybridTune §3.3.3 and §3.3.4), and over each
application the culprit nodes (Ganesha's peer comparison, peers grouped by the task
attempts the logs place on them), each with its resource (cpu, disk, network, hang),
alarm history, distances to its peers and the metrics that show it, and the indicted
nodes judged innocent peers of a culprit. --peer-profile uses a profile from "peer
train"; without it one is trained on the analyzed samples themselves ("self-trained").
docs/REPORT.md and docs/FINDINGS.md describe the output.`,
			Args: cobra.MinimumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				o.changed = cmd.Flags().Changed
				return runAnalyze(e, args, o)
			},
		}
		f := cmd.Flags()
		o.logs = addLogFlags(f)
		f.StringVar(&o.format, "format", "text", "output format: text or json")
		f.IntVar(&o.rows, "rows", 15, "at most this many rows per table in text output (0: all)")
		f.BoolVar(&o.timeline, "timeline", false, "draw the task timeline in text output")
		f.StringVar(&o.spec, "dataflow", "", "dataflow specification: a built-in name ("+fmt.Sprint(dataflow.BuiltinNames())+") or a file (default: by engine)")
		f.StringVar(&o.html, "html", "", "also write an offline HTML report to this file")
		f.StringVar(&o.minSeverity, "min-severity", "low", "report findings of at least this severity (none, low, moderate, severe, critical)")
		f.StringVar(&o.metrics, "metrics", "", "node samples to correlate with the tasks: a file (CSV, sadf -j, sadc, nmon), a folder, an object-store URL (s3://, gs://, abfss://), a Prometheus URL, sqlite:PATH or clickhouse+http://HOST:PORT/DB")
		f.StringToStringVar(&o.hostAlias, "host-alias", nil, "sample host names of log hosts (or back), e.g. 10.0.0.5=node5.example.com,10.0.0.6=node6.example.com")
		f.BoolVar(&o.alignClocks, "align-clocks", false, "estimate each node's clock offset from its samples and the tasks it ran, and correct it before the tolerance applies")
		f.StringVar(&o.history, "history", "", "run history (as index --store) to compare each application with its recurring job's usual runs: a slower one gets a slower-than-usual finding with its causes (docs/EXPLAIN.md)")
		f.StringVar(&o.nodeModels, "node-models", "", "run history (as index --store) to learn each node's expected speed from (PARC, docs/NODES.md): straggler-nodes and the culprit nodes' attempt slowdowns are then against each node's own model")
		f.StringVar(&o.peerProfile, "peer-profile", "", "Ganesha profile (peer train) for the node diagnosis (default: train one on the analyzed metrics)")
		f.StringVar(&o.peerBaseline, "peer-baseline", "", "the nodes' own fault-free models (peer baseline) for the node diagnosis: a node is a culprit only when it differs from its peers and from itself")
		f.BoolVar(&o.nodes, "node-diagnosis", true, "with --metrics, diagnose the nodes (abnormal nodes per stage, culprit nodes)")
		dp, dn := peer.DefaultParams(), nodediag.DefaultOptions().Nodes
		f.Float64Var(&o.peerSet.DistThreshold, "peer-threshold", dp.DistThreshold, "node diagnosis: square-root JS distance beyond which two nodes differ (Ganesha)")
		f.Float64Var(&o.peerSet.IndictThreshold, "peer-indict", dp.IndictThreshold, "node diagnosis: weighted alarm count above which a node is indicted (Ganesha)")
		f.Float64Var(&o.peerSet.AlarmDecay, "peer-alarm-decay", dp.AlarmDecay, "node diagnosis: exponential weight of the alarm count (Ganesha)")
		f.IntVar(&o.peerSet.WindowS, "peer-window", dp.WindowS, "node diagnosis: label histogram window in samples (Ganesha)")
		f.Float64Var(&o.similarity, "abnormal-threshold", dn.Threshold, "node diagnosis: average cosine similarity under which a node is abnormal in a stage (HybridTune §3.3.3, Equation 5's σ)")
		f.DurationVar(&o.clockSkew, "clock-skew", correlate.DefaultSkewMs*time.Millisecond, "clock-skew tolerance between the nodes' samples and the logs (0: none)")
		return cmd
	})
}

type analyzeOptions struct {
	format, spec, minSeverity, html, metrics string
	peerProfile, peerBaseline, nodeModels    string
	history                                  string
	// peerSet and similarity hold the node diagnosis's parameter flags;
	// changed records which were given (a profile's own values stay otherwise).
	peerSet                      peer.Params
	similarity                   float64
	changed                      func(string) bool
	rows                         int
	timeline, alignClocks, nodes bool
	clockSkew                    time.Duration
	hostAlias                    map[string]string
	logs                         *logFlags
}

// fitNodeModels fits the joint node model (hetero) on the run history at
// dsn, leaving out the runs of apps: they are what it judges.
func fitNodeModels(ctx context.Context, dsn string, apps []*model.App) (*hetero.Joint, error) {
	st, err := readHistory(ctx, dsn)
	if err != nil {
		return nil, fmt.Errorf("--node-models: %w", err)
	}
	defer st.Close()
	m, err := driver.NodeModels(ctx, st, apps)
	if err != nil {
		return nil, fmt.Errorf("--node-models %s: %w", dsn, err)
	}
	return m, nil
}

func runAnalyze(e *env, paths []string, o analyzeOptions) error {
	_, err := analyzeRun(e, paths, o)
	return err
}

// analyzeRun is analyze: it writes the outputs and returns the analyses.
func analyzeRun(e *env, paths []string, o analyzeOptions) ([]*analysis.Analysis, error) {
	if o.format != "text" && o.format != "json" {
		return nil, withCode(ExitUsage, fmt.Errorf("--format %q: want text or json", o.format))
	}
	sev, err := finding.ParseSeverity(o.minSeverity)
	if err != nil {
		return nil, withCode(ExitUsage, fmt.Errorf("--min-severity: %w", err))
	}
	if err := checkRows(o.rows); err != nil {
		return nil, err
	}
	if o.clockSkew < 0 {
		return nil, withCode(ExitUsage, fmt.Errorf("--clock-skew %s: want a duration of at least 0", o.clockSkew))
	}
	lopts, err := o.logs.options()
	if err != nil {
		return nil, err
	}
	in := driver.Analyses{Options: analysis.Options{Diagnose: diagnose.Options{MinSeverity: sev}, Timeline: o.timeline,
		Reconstruction: o.html != ""}}
	if o.spec != "" {
		spec, err := dataflow.LoadSpec(o.spec)
		if err != nil {
			return nil, withCode(ExitUsage, fmt.Errorf("--dataflow: %w", err))
		}
		in.Options.Dataflow.Spec = spec
	}
	if o.metrics != "" {
		in.Metrics, in.Skew, in.Aliases, in.AlignClocks = driver.OpenMetrics(o.metrics, e.metricNote), o.clockSkew, o.hostAlias, o.alignClocks
		if o.nodes {
			if in.Nodes, err = nodeInputs(o); err != nil {
				return nil, err
			}
		}
	} else if o.peerProfile != "" || o.peerBaseline != "" {
		return nil, withCode(ExitUsage, fmt.Errorf("--peer-profile and --peer-baseline need --metrics"))
	}
	res, err := readLogs(e, paths, lopts)
	if err != nil {
		partial(e, res)
		return nil, err
	}
	decodelogs.ByStart(res.Apps)
	if o.nodeModels != "" {
		if in.NodeModel, err = fitNodeModels(context.Background(), o.nodeModels, res.Apps); err != nil {
			return nil, err
		}
	}
	as, metricsErr := driver.Analyze(context.Background(), res.Apps, in)
	if metricsErr != nil {
		var me *driver.MetricsError
		if !errors.As(metricsErr, &me) {
			return nil, metricsErr
		}
		metricsErr = fmt.Errorf("--metrics: %w", me.Err)
		if !errors.Is(metricsErr, metrics.ErrPartial) {
			return nil, metricsErr
		}
	}
	if o.history != "" {
		st, err := openHistory(context.Background(), o.history)
		if err != nil {
			return nil, fmt.Errorf("--history: %w", err)
		}
		err = driver.Regressions(context.Background(), st, res.Apps, as, sev)
		st.Close()
		if err != nil {
			return nil, fmt.Errorf("--history %s: %w", o.history, err)
		}
	}
	if o.html != "" {
		if err := writeHTMLReport(o.html, as); err != nil {
			return nil, err
		}
		fmt.Fprintf(e.stderr, "HTML report: %s\n", o.html)
	}
	if o.format == "json" {
		if err := report.AnalysisJSON(e.stdout, as); err != nil {
			return nil, err
		}
	} else {
		for _, a := range as {
			if err := report.AnalysisText(e.stdout, a, o.rows); err != nil {
				return nil, err
			}
		}
	}
	return as, metricsPartial(e, metricsErr, partial(e, res))
}

// nodeInputs are the node diagnosis's inputs of the flags: the
// --peer-profile (its stored parameters) and --peer-baseline if given,
// the parameter flags given over them.
func nodeInputs(o analyzeOptions) (*driver.NodeInputs, error) {
	var in driver.NodeInputs
	if o.peerProfile != "" {
		prof, err := peer.LoadProfileFile(o.peerProfile)
		if err != nil {
			return nil, fmt.Errorf("--peer-profile: %w", err)
		}
		in.Profile, in.ProfileName = prof, o.peerProfile
	}
	if o.peerBaseline != "" {
		b, err := peer.LoadBaselineFile(o.peerBaseline)
		if err != nil {
			return nil, fmt.Errorf("--peer-baseline: %w", err)
		}
		in.Baseline = b
	}
	in.Tune = func(nopt *nodediag.Options) error {
		if o.changed != nil {
			overrideParams(o.changed, "peer-", &nopt.Peer, o.peerSet)
			if o.changed("abnormal-threshold") {
				nopt.Nodes.Threshold = o.similarity
			}
		}
		if err := nopt.Peer.Validate(); err != nil {
			return withCode(ExitUsage, fmt.Errorf("node diagnosis: %w", err))
		}
		return nil
	}
	return &in, nil
}
