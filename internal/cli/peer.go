package cli

import (
	"errors"
	"fmt"

	"maps"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/report"
)

func init() {
	register(func(e *env) *cobra.Command {
		cmd := &cobra.Command{
			Use:   "peer",
			Short: "Ganesha's black-box peer diagnosis: train a profile, find the faulty node",
			Long: `peer compares nodes with their peers on 14 OS metrics (Pan et al., "Ganesha: Black-Box
Diagnosis of MapReduce Systems", 2009). "peer train" learns a profile of fault-free behaviour
from metric files; "peer diagnose" replays metrics through it and names the nodes that behave
unlike their peers; "peer baseline" learns each node's own fault-free behaviour, so that a
node unlike its peers but like itself (a master, an odd machine) is not blamed.
docs/PEER.md describes the method, parameters and file formats.`,
		}
		cmd.AddCommand(peerTrainCmd(e), peerBaselineCmd(e), peerDiagnoseCmd(e))
		return cmd
	})
}

// peerTrainCmd is "clusterlens peer train".
func peerTrainCmd(e *env) *cobra.Command {
	opt := peer.DefaultTrainOptions()
	var out string
	var rng [2]string
	cmd := &cobra.Command{
		Use:   "train --out PROFILE.json SOURCE...",
		Short: "Learn a peer profile from fault-free runs' node metrics",
		Long: `train reads node metrics of fault-free runs from each SOURCE (a CSV, sadf, sadc or nmon file,
a folder of them such as a simulator output folder, or a Prometheus URL; --from/--to bound
it), normalises the 14 Ganesha metrics, chooses the number of states by the elbow rule over
k-means (unless --k), fits a Gaussian mixture by EM and writes the versioned profile.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return withCode(ExitUsage, fmt.Errorf("--out is required"))
			}
			from, to, err := parseRange(rng)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			tb, metricNames, partial, err := readPeerTraining(cmd, e, args, from, to)
			if err != nil {
				return err
			}
			var vectors [][]float64
			incomplete := tb.EachOf(metricNames, func(_ string, _ int64, x []float64) { vectors = append(vectors, slices.Clone(x)) })
			prof, err := peer.Train(vectors, metricNames, opt, peer.DefaultParams())
			if err != nil && incomplete > 0 {
				err = fmt.Errorf("%w (%d node instants lacked some of the %d metrics: the warnings above name what the sources do not record)", err, incomplete, len(metricNames))
			}
			if err == nil {
				err = prof.SaveFile(out)
			}
			if err != nil {
				return metricsPartial(e, errors.Join(partial...), err)
			}
			fmt.Fprintf(e.stdout, "clusterlens peer train: %d vectors, K = %d states, wrote %s\n", prof.Vectors, prof.K, out)
			return metricsPartial(e, errors.Join(partial...), nil)
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "profile file to write")
	f.IntVar(&opt.K, "k", 0, "number of states (0: elbow rule)")
	f.IntVar(&opt.MaxK, "max-k", opt.MaxK, "largest K the elbow rule considers")
	f.BoolVar(&opt.EqualPriors, "equal-priors", opt.EqualPriors, "fix the mixture weights to 1/K (Ganesha's option)")
	f.Float64Var(&opt.Reg, "reg", opt.Reg, "covariance regularisation added to the diagonal")
	f.Float64Var(&opt.UnknownQuantile, "unknown-quantile", opt.UnknownQuantile, "training quantile of likelihood below which a vector is unknown")
	f.IntVar(&opt.MaxVectors, "max-vectors", opt.MaxVectors, "train on at most this many vectors (a uniform sample)")
	f.Uint64Var(&opt.Seed, "seed", opt.Seed, "random seed")
	rangeFlags(f, &rng)
	return cmd
}

// peerBaselineCmd is "clusterlens peer baseline".
func peerBaselineCmd(e *env) *cobra.Command {
	opt := peer.BaselineTrainOptions()
	bp := peer.DefaultBaselineParams()
	var out string
	var rng [2]string
	cmd := &cobra.Command{
		Use:   "baseline --out BASELINE.json SOURCE...",
		Short: "Learn each node's own fault-free behaviour from its cluster's metrics",
		Long: `baseline reads node metrics of fault-free runs of one cluster (as train does) and trains, for
every node, Ganesha's model of that node alone (normalisation, states by the elbow rule, a
Gaussian mixture, the likelihood below which a vector is unknown). "peer diagnose --baseline"
then calls a node that differs from its peers a culprit only when it also differs from itself:
a node that always looks like that (a master's daemons, an odd machine) is normal for that
node. Nodes with fewer than --min-vectors vectors are left out and judged by their peers alone.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return withCode(ExitUsage, fmt.Errorf("--out is required"))
			}
			from, to, err := parseRange(rng)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			tb, metricNames, partial, err := readPeerTraining(cmd, e, args, from, to)
			if err != nil {
				return err
			}
			vectors, times := map[string][][]float64{}, map[string][]int64{}
			tb.EachOf(metricNames, func(h string, t int64, x []float64) {
				vectors[h] = append(vectors[h], slices.Clone(x))
				times[h] = append(times[h], t)
			})
			b, short, err := peer.TrainBaseline(vectors, times, metricNames, opt, bp)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			if len(b.Hosts) == 0 {
				return metricsPartial(e, errors.Join(partial...), fmt.Errorf("too little history: no node has %d complete vectors (%d nodes seen, the most %d): nothing to learn", bp.MinVectors, len(vectors), mostVectors(vectors)))
			}
			if err := b.SaveFile(out); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "clusterlens peer baseline: %d nodes, wrote %s\n", len(b.Hosts), out)
			if len(short) > 0 {
				var parts []string
				for _, h := range slices.Sorted(maps.Keys(short)) {
					parts = append(parts, fmt.Sprintf("%s (%d)", h, short[h]))
				}
				fmt.Fprintf(e.stderr, "clusterlens: warning: too little history for %d nodes, which have no baseline and are judged by their peers alone: %s complete vectors, %d needed (--min-vectors)\n",
					len(short), strings.Join(parts, ", "), bp.MinVectors)
			}
			return metricsPartial(e, errors.Join(partial...), nil)
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "baseline file to write")
	f.IntVar(&opt.MaxK, "max-k", opt.MaxK, "largest K the elbow rule considers per node")
	f.Float64Var(&opt.UnknownQuantile, "unknown-quantile", opt.UnknownQuantile, "a node's own training quantile of likelihood below which its vector is unknown")
	f.Float64Var(&bp.SelfShare, "self-share", bp.SelfShare, "a node differs from itself when more than this share of its window is unknown to its own model")
	f.IntVar(&bp.MinVectors, "min-vectors", bp.MinVectors, "fewest vectors a node needs for its own model")
	f.Float64Var(&bp.LevelMargin, "level-margin", bp.LevelMargin, "a node differs from itself when a metric's window mean is this many of its own deviations above its history's highest")
	f.Float64Var(&bp.MinStrength, "min-strength", bp.MinStrength, "a node differs from itself only this many floors (least changes per metric) above its history")
	f.Float64Var(&bp.MoreWork, "more-work", bp.MoreWork, "a node running this many floors of procs_total more than ever was given more work: not a fault")
	f.Float64Var(&bp.ClusterShare, "cluster-share", bp.ClusterShare, "a step where more than this share of the nodes left their history is cluster-wide: no node's fault")
	rangeFlags(f, &rng)
	return cmd
}

// peerDiagnoseCmd is "clusterlens peer diagnose".
func peerDiagnoseCmd(e *env) *cobra.Command {
	var profPath, logs, format, nodeModels, basePath string
	var p peer.Params
	var lf *logFlags
	var rng [2]string
	cmd := &cobra.Command{
		Use:   "diagnose --profile PROFILE.json [--logs DIR] SOURCE",
		Short: "Find the nodes that behave unlike their peers",
		Long: `diagnose replays node metrics (a CSV, sadf, sadc or nmon file, a folder of them such as a
simulator output folder, or a Prometheus URL; --from/--to bound it) through a trained
profile with Ganesha's peer comparison and lists the indicted nodes. With --logs (the run's
Spark event logs and MapReduce histories), nodes are compared only with peers running as
many tasks, and each indicted node is called culprit or victim with the resource affected
(cpu, disk, network, hang) and the metrics that show it.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if profPath == "" {
				return withCode(ExitUsage, fmt.Errorf("--profile is required"))
			}
			if format != "text" && format != "json" {
				return withCode(ExitUsage, fmt.Errorf("--format %q: want text or json", format))
			}
			if nodeModels != "" && logs == "" {
				return withCode(ExitUsage, fmt.Errorf("--node-models needs --logs"))
			}
			prof, err := peer.LoadProfileFile(profPath)
			if err != nil {
				return err
			}
			in := driver.Peers{Profile: prof, Params: prof.Params, Attribute: logs != ""}
			overrideParams(cmd.Flags().Changed, "", &in.Params, p)
			if err := in.Params.Validate(); err != nil {
				return withCode(ExitUsage, err)
			}
			if basePath != "" {
				b, err := peer.LoadBaselineFile(basePath)
				if err == nil {
					err = b.Check(prof.Metrics())
				}
				if err != nil {
					return fmt.Errorf("--baseline: %w", err)
				}
				in.Baseline = b
			}
			var logsRead *decodelogs.Result
			if logs != "" {
				lopts, err := lf.options()
				if err != nil {
					return err
				}
				if logsRead, err = readLogs(e, []string{logs}, lopts); err != nil {
					partial(e, logsRead)
					return fmt.Errorf("read logs: %w", err)
				}
				var expect peer.Expect
				if nodeModels != "" {
					m, err := fitNodeModels(cmd.Context(), nodeModels, logsRead.Apps)
					if err != nil {
						return err
					}
					expect = m.Expect
				}
				in.Workload = peer.NewWorkloadModel(logsRead.Apps, expect)
			}
			from, to, err := parseRange(rng)
			if err != nil {
				return withCode(ExitUsage, err)
			}
			rep, metricsErr := driver.DiagnosePeers(cmd.Context(), driver.OpenMetrics(args[0], e.metricNote), from, to, in)
			if rep == nil {
				return metricsErr
			}
			if logs != "" {
				known := 0
				for _, n := range rep.Nodes {
					if in.Workload.Has(n.Host) {
						known++
					}
				}
				if known == 0 && len(rep.Nodes) > 0 {
					fmt.Fprintf(e.stderr, "clusterlens: warning: no metric host (e.g. %q) ran a task in --logs: host names differ? every node counts as idle\n", rep.Nodes[0].Host)
				}
			}
			if format == "json" {
				if err := report.JSON(e.stdout, rep); err != nil {
					return err
				}
			} else {
				report.PeerText(e.stdout, rep)
			}
			var logsErr error
			if logsRead != nil {
				logsErr = partial(e, logsRead)
			}
			return metricsPartial(e, metricsErr, logsErr)
		},
	}
	f := cmd.Flags()
	f.StringVar(&profPath, "profile", "", "trained profile (peer train)")
	f.StringVar(&logs, "logs", "", "the run's application logs (enables workload-aware peers and attribution)")
	f.StringVar(&nodeModels, "node-models", "", "with --logs, a run history (as index --store) whose node models (docs/NODES.md) the culprits' attempt slowdowns are judged against")
	f.StringVar(&format, "format", "text", "output: text or json")
	f.StringVar(&basePath, "baseline", "", "the nodes' own fault-free models (peer baseline): a node is blamed only when it differs from its peers and from itself")
	lf = addLogFlags(f)
	d := peer.DefaultParams()
	f.IntVar(&p.WindowS, "window", d.WindowS, "histogram window (samples)")
	f.Float64Var(&p.Decay, "decay", d.Decay, "histogram weight factor per sample of age")
	f.IntVar(&p.StepS, "step", d.StepS, "seconds between peer comparisons")
	f.Float64Var(&p.DistThreshold, "threshold", d.DistThreshold, "square-root JS distance beyond which two nodes differ")
	f.Float64Var(&p.PeerFraction, "peer-fraction", d.PeerFraction, "alarm when a node differs from more than this share of peers")
	f.Float64Var(&p.AlarmDecay, "alarm-decay", d.AlarmDecay, "exponential weight of the alarm count")
	f.Float64Var(&p.IndictThreshold, "indict", d.IndictThreshold, "alarm count above which a node is indicted")
	rangeFlags(f, &rng)
	return cmd
}

// rangeFlags adds --from and --to (RFC 3339; empty: open, or the last hour
// for a Prometheus URL).
func rangeFlags(f *pflag.FlagSet, rng *[2]string) {
	f.StringVar(&rng[0], "from", "", "read samples from this time (RFC 3339)")
	f.StringVar(&rng[1], "to", "", "read samples up to this time (RFC 3339)")
}

// parseRange parses --from and --to.
func parseRange(rng [2]string) (from, to time.Time, err error) {
	for i, v := range rng {
		if v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return from, to, fmt.Errorf("--%s %q: want RFC 3339 time (2006-01-02T15:04:05Z)", [2]string{"from", "to"}[i], v)
		}
		if i == 0 {
			from = t
		} else {
			to = t
		}
	}
	return from, to, nil
}

// overrideParams copies onto dst the Ganesha parameters whose flags the
// user set (changed reports that), flags named prefix+"window", "decay",
// "step", "threshold", "peer-fraction", "alarm-decay" and "indict"; a
// command registers the ones it offers.
func overrideParams(changed func(string) bool, prefix string, dst *peer.Params, set peer.Params) {
	for name, field := range map[string]func(){
		"window":        func() { dst.WindowS = set.WindowS },
		"decay":         func() { dst.Decay = set.Decay },
		"step":          func() { dst.StepS = set.StepS },
		"threshold":     func() { dst.DistThreshold = set.DistThreshold },
		"peer-fraction": func() { dst.PeerFraction = set.PeerFraction },
		"alarm-decay":   func() { dst.AlarmDecay = set.AlarmDecay },
		"indict":        func() { dst.IndictThreshold = set.IndictThreshold },
	} {
		if changed(prefix + name) {
			field()
		}
	}
}

// readPeerTraining reads every training SOURCE into one table, says on
// stderr what the sources gave twice (kept once: a profile or baseline
// must not count the same seconds twice, nor contain the data it will
// judge) and which of Ganesha's metrics none records, and returns the
// table, the metrics to train on (those recorded) and the sources read in
// part.
func readPeerTraining(cmd *cobra.Command, e *env, args []string, from, to time.Time) (*peer.Table, []string, []error, error) {
	tb := peer.NewTable(peer.GaneshaMetrics)
	var partial []error
	for _, spec := range args {
		if err := driver.ReadPeerTable(cmd.Context(), driver.OpenMetrics(spec, e.metricNote), from, to, tb); errors.Is(err, metrics.ErrPartial) {
			partial = append(partial, err)
		} else if err != nil {
			return nil, nil, nil, err
		}
	}
	if ov := tb.Overlaps(); len(ov) > 0 {
		total, conflicting := 0, 0
		var parts []string
		for _, o := range ov {
			total += o.Samples
			conflicting += o.Conflicting
			parts = append(parts, fmt.Sprintf("%s %d samples (%s – %s)", o.Host, o.Samples, time.UnixMilli(o.From).UTC().Format(time.RFC3339), time.UnixMilli(o.To).UTC().Format(time.RFC3339)))
		}
		fmt.Fprintf(e.stderr, "clusterlens: warning: the training inputs overlap in host and time: %d samples given more than once (%d with another value), each kept once: %s\n",
			total, conflicting, strings.Join(parts, "; "))
	}
	names := tb.Present(peer.GaneshaMetrics)
	if len(names) == 0 {
		return nil, nil, nil, metricsPartial(e, errors.Join(partial...), fmt.Errorf("no sample of Ganesha's %d metrics in %s", len(peer.GaneshaMetrics), strings.Join(args, ", ")))
	}
	if missing := tb.Missing(); len(missing) > 0 {
		fmt.Fprintf(e.stderr, "clusterlens: note: the sources record no %s: trained on the other %d of Ganesha's metrics\n", strings.Join(missing, ", "), len(names))
	}
	return tb, names, partial, nil
}

// mostVectors is the most vectors any host has.
func mostVectors(v map[string][][]float64) int {
	most := 0
	for _, x := range v {
		most = max(most, len(x))
	}
	return most
}
