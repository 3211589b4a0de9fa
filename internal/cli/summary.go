package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/load"
	"github.com/clusterlens/clusterlens/internal/report"
	"github.com/clusterlens/clusterlens/internal/summary"
)

func init() {
	register(func(e *env) *cobra.Command {
		var format string
		var rows int
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
				return runSummary(e, args, format, rows)
			},
		}
		cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
		cmd.Flags().IntVar(&rows, "rows", 30, "at most this many rows per table in text output (0: all)")
		return cmd
	})
}

func runSummary(e *env, paths []string, format string, rows int) error {
	if format != "text" && format != "json" {
		return withCode(ExitUsage, fmt.Errorf("--format %q: want text or json", format))
	}
	res, err := loadWithProgress(e, paths, load.Options{})
	if err != nil {
		return err
	}
	load.ByStart(res.Apps)
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

// loadWithProgress reads paths with a progress bar on a terminal.
func loadWithProgress(e *env, paths []string, opts load.Options) (*load.Result, error) {
	logs, skipped, ferr := load.Find(paths, opts)
	if len(logs) == 0 {
		if ferr != nil {
			return nil, ferr
		}
		return nil, fmt.Errorf("no logs found in %v (%d files skipped as not logs)", paths, len(skipped))
	}
	var total int64
	for _, l := range logs {
		total += l.Size()
	}
	progress, done := newProgress(e.stderr, total, "reading")
	opts.Progress = progress
	res := load.Logs(logs, opts)
	done()
	res.Skipped = skipped
	if ferr != nil {
		res.Problems = append(res.Problems, ferr)
	}
	return res, nil
}

// partial reports logs that could not be read fully and sets the exit code.
func partial(e *env, res *load.Result) error {
	for _, p := range res.Problems {
		fmt.Fprintln(e.stderr, "clusterlens: warning:", p)
	}
	if len(res.Problems) > 0 {
		return withCode(ExitPartial, fmt.Errorf("%d of the logs could not be read fully", len(res.Problems)))
	}
	return nil
}
