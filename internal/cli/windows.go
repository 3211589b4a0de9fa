package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/anomaly"
	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/report"
)

func init() {
	register(func(e *env) *cobra.Command {
		q := driver.WindowsQuery{Spans: driver.DefaultWindowSpans(), Params: anomaly.DefaultWindowParams()}
		var rng [2]string
		var format string
		var top int
		cmd := &cobra.Command{
			Use:   "windows SOURCE",
			Short: "Abnormal time windows of each node, from its metrics alone",
			Long: `windows reads node metrics from SOURCE (a CSV, sadf, sadc or nmon file, a folder of them, a
Prometheus URL, or a sample store: sqlite:PATH, clickhouse+http://HOST:8123/DB) and reports, for
each node, the time windows in which it behaved unlike its own recent past, with the metrics
behind each and a score. No logs or stages are needed. Each window of --window is compared
with the node's last --history outside abnormal windows: every metric's window mean
(HybridTune's Algorithm 4) against the reference's median, in the reference's standard
deviations (Algorithm 5's distance test, --d-min); a window is abnormal when --min-metrics
metrics are that far off; a metric is not counted while its window mean stays inside the
--long-quantile range of the node's last --long-history outside abnormal windows (a level it has
held before is normal; --long-history 0 turns that off). docs/ANOMALY.md gives the method and
its accuracy on SMD.`,
			Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				if format != "text" && format != "json" {
					return withCode(ExitUsage, fmt.Errorf("--format %q: want text or json", format))
				}
				from, to, err := parseRange(rng)
				if err != nil {
					return withCode(ExitUsage, err)
				}
				q.From, q.To = from, to
				if s := q.Spans; s.Window <= 0 || s.History <= 0 || s.MinHistory <= 0 || s.Step <= 0 || s.Lookback < s.History || s.MinHistory > s.History {
					return withCode(ExitUsage, fmt.Errorf("--window %s --history %s --min-history %s --step %s --lookback %s: want positive durations, min-history ≤ history ≤ lookback",
						s.Window, s.History, s.MinHistory, s.Step, s.Lookback))
				}
				if q.Spans.LongHistory < 0 || !(q.Params.LongQuantile >= 0 && q.Params.LongQuantile < 0.5) {
					return withCode(ExitUsage, fmt.Errorf("--long-history %s --long-quantile %v: want a duration ≥ 0 and a quantile in [0, 0.5)", q.Spans.LongHistory, q.Params.LongQuantile))
				}
				rep, err := driver.Windows(cmd.Context(), driver.OpenMetrics(args[0], e.metricNote), q)
				var partial error
				if errors.Is(err, metrics.ErrPartial) {
					partial, err = err, nil
				}
				if err != nil {
					return metricsPartial(e, partial, err)
				}
				if format == "json" {
					if err := report.JSON(e.stdout, rep); err != nil {
						return err
					}
				} else {
					report.WindowsText(e.stdout, rep.Nodes, report.WindowsHeader{Window: q.Spans.Window, History: q.Spans.History,
						DMin: q.Params.DMin, MinMetrics: q.Params.MinMetrics, LongHistory: q.Spans.LongHistory, LongQuantile: q.Params.LongQuantile}, top)
				}
				return metricsPartial(e, partial, nil)
			},
		}
		f := cmd.Flags()
		rangeFlags(f, &rng)
		f.StringSliceVar(&q.Hosts, "host", nil, "judge only these nodes (repeatable; default all)")
		f.StringVar(&format, "format", "text", "output format: text or json")
		f.IntVar(&top, "top", 5, "metrics listed per window in text (json lists all)")
		f.DurationVar(&q.Spans.Window, "window", q.Spans.Window, "window whose metric means are judged (Algorithm 4)")
		f.DurationVar(&q.Spans.History, "history", q.Spans.History, "how much normal past a window is compared with")
		f.DurationVar(&q.Spans.Lookback, "lookback", q.Spans.Lookback, "how far back the normal past may be found; a change lasting longer becomes normal")
		f.DurationVar(&q.Spans.MinHistory, "min-history", q.Spans.MinHistory, "least normal past before windows are judged")
		f.DurationVar(&q.Spans.Step, "step", q.Spans.Step, "how often the reference is recomputed")
		f.Float64Var(&q.Params.DMin, "d-min", q.Params.DMin, "reference standard deviations a metric's window mean must be off (Algorithm 5's distance)")
		f.IntVar(&q.Params.MinMetrics, "min-metrics", q.Params.MinMetrics, "metrics that must be off for a window to be abnormal")
		f.Float64Var(&q.Params.Floor, "floor", q.Params.Floor, "least standard deviation, as a share of the metric's range over the node's samples")
		f.Float64Var(&q.Params.RankFloor, "rank-floor", q.Params.RankFloor, "least standard deviation when a window's metrics are ranked")
		f.DurationVar(&q.Spans.LongHistory, "long-history", q.Spans.LongHistory, "long-term normal past: a metric inside its --long-quantile range there is not off (0: none)")
		f.Float64Var(&q.Params.LongQuantile, "long-quantile", q.Params.LongQuantile, "share of the long-term past left out at each end of a metric's normal range")
		return cmd
	})
}
