package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/report"
	"github.com/clusterlens/clusterlens/internal/summary"
)

func init() {
	register(func(e *env) *cobra.Command {
		var format string
		var rows int
		var lf *logFlags
		cmd := &cobra.Command{
			Use:   "summary PATH...",
			Short: "Summarize Spark and MapReduce applications from their logs",
			Long: `summary reads every log under the PATHs (files, folders searched recursively, globs,
History Server zips; Spark event logs of any version and codec, MapReduce .jhist,
legacy job histories and Rumen traces) and prints per application its identity,
jobs, stages with task-duration quantiles, per-executor and per-host totals,
failures and the quality of the input. --format json prints the document
described in docs/JSON.md.`,
			Args: cobra.MinimumNArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				opts, err := lf.options()
				if err != nil {
					return err
				}
				return runSummary(e, args, format, rows, opts)
			},
		}
		cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
		cmd.Flags().IntVar(&rows, "rows", 30, "at most this many rows per table in text output (0: all)")
		lf = addLogFlags(cmd.Flags())
		return cmd
	})
}

func runSummary(e *env, paths []string, format string, rows int, opts decodelogs.Options) error {
	if format != "text" && format != "json" {
		return withCode(ExitUsage, fmt.Errorf("--format %q: want text or json", format))
	}
	if err := checkRows(rows); err != nil {
		return err
	}
	res, err := readLogs(e, paths, opts)
	if err != nil {
		partial(e, res)
		return err
	}
	decodelogs.ByStart(res.Apps)
	var sums []*summary.Summary
	for _, a := range res.Apps {
		sums = append(sums, summary.Build(a))
	}
	if format == "json" {
		if err := report.SummaryJSON(e.stdout, sums); err != nil {
			return err
		}
	} else {
		for _, s := range sums {
			if err := report.SummaryText(e.stdout, s, rows); err != nil {
				return err
			}
		}
	}
	return partial(e, res)
}
