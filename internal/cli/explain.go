package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/driver"
	why "github.com/clusterlens/clusterlens/internal/explain"
	"github.com/clusterlens/clusterlens/internal/report"
)

func init() {
	register(func(e *env) *cobra.Command {
		var h historyFlags
		opt := driver.Explaining()
		cmd := &cobra.Command{
			Use:   "explain RUN",
			Short: "Why was this run slower (or faster) than usual? Its recurring job's usual runs against it, the difference split into causes",
			Long: `explain compares a run of the run history (its key or application id) with its recurring job's
usual runs (the median duration of the --usual most recent comparable runs that succeeded before it,
with their spread) and, when it is outside their usual variation, splits the difference into causes
ranked by the share of the extra time each explains: more data (per stage, at the job's per-byte cost),
nodes slower than their own history (named), data skew, partitioning, garbage collection and spills,
failed and retried tasks, fewer executors or waiting for them, changed spark.* / mapreduce.* settings,
a changed SQL plan, and the driver; what none explains is said as such. docs/EXPLAIN.md describes the
method and its evaluation.`,
			Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				if err := h.check(); err != nil {
					return err
				}
				if opt.Params.Usual < opt.Params.MinUsual || opt.Params.MinUsual < 2 {
					return withCode(ExitUsage, fmt.Errorf("--usual %d with --min-usual %d: want at least 2 usual runs and --usual ≥ --min-usual",
						opt.Params.Usual, opt.Params.MinUsual))
				}
				st, err := openHistory(cmd.Context(), h.dsn)
				if err != nil {
					return err
				}
				defer st.Close()
				ex, err := why.Run(cmd.Context(), st, args[0], opt)
				if err != nil {
					return err
				}
				if h.format == "json" {
					return report.JSON(e.stdout, ex)
				}
				report.ExplainText(e.stdout, ex)
				return nil
			},
		}
		historyStoreFlag(cmd, &h.dsn)
		cmd.Flags().StringVar(&h.format, "format", "text", "output format: text or json")
		cmd.Flags().IntVar(&opt.Params.Usual, "usual", opt.Params.Usual, "compare with this many of the job's most recent comparable runs")
		cmd.Flags().IntVar(&opt.Params.MinUsual, "min-usual", opt.Params.MinUsual, "fewest comparable runs to judge a run at all")
		cmd.Flags().Float64Var(&opt.Params.Spread, "spread", opt.Params.Spread, "robust standard deviations of the usual durations a run may be off and be usual")
		cmd.Flags().Float64Var(&opt.Params.MinChange, "min-change", opt.Params.MinChange, "least relative difference ever reported")
		cmd.Flags().Float64Var(&opt.Group.MinSimilarity, "min-similarity", 0.5, "least Jaccard similarity of two DAG variants to be one recurring job")
		return cmd
	})
}
