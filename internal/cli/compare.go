package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/query"
	"github.com/clusterlens/clusterlens/internal/report"
)

func init() {
	register(func(e *env) *cobra.Command {
		var o compareOptions
		cmd := &cobra.Command{
			Use:   "compare PATH_A PATH_B",
			Short: "Compare two runs of SQL queries: plan shape, rows and time per operator, settings",
			Long: `compare reads one Spark application from each PATH (a log file or a folder holding
one application) and compares its SQL queries: each query of A with its run in B
(the same description, the k-th run of a description with the k-th; queries
without description by id), or only --query (with --query-b when B numbers it
differently). Per pair it prints the wall times, whether the plan kept its
operators, the spark.sql.* settings that differ (the application's and the
session's), and the operators whose time changed the most with their rows and
bytes. --format json prints the list of query.Diff documents (docs/JSON.md).`,
			Args: cobra.ExactArgs(2),
			RunE: func(_ *cobra.Command, args []string) error {
				return runCompare(e, args[0], args[1], o)
			},
		}
		cmd.Flags().StringVar(&o.format, "format", "text", "output format: text or json")
		cmd.Flags().Int64Var(&o.query, "query", -1, "compare only this execution id of A")
		cmd.Flags().Int64Var(&o.queryB, "query-b", -1, "the execution id of B to compare --query with (default: its match)")
		cmd.Flags().IntVar(&o.rows, "rows", 10, "at most this many operators per query in text output (0: all)")
		return cmd
	})
}

type compareOptions struct {
	format        string
	query, queryB int64
	rows          int
}

func runCompare(e *env, pathA, pathB string, o compareOptions) error {
	if o.format != "text" && o.format != "json" {
		return withCode(ExitUsage, fmt.Errorf("--format %q: want text or json", o.format))
	}
	a, err := oneApp(pathA)
	if err != nil {
		return err
	}
	b, err := oneApp(pathB)
	if err != nil {
		return err
	}
	diffs, err := query.CompareRuns(a, b, o.query, o.queryB)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if o.format == "json" {
		return report.JSON(e.stdout, struct {
			Queries []query.Diff `json:"queries"`
		}{diffs})
	}
	if len(diffs) == 0 {
		fmt.Fprintln(e.stdout, "no query of A has a run in B")
		return nil
	}
	return report.CompareText(e.stdout, diffs, o.rows)
}

// oneApp reads the one application under path.
func oneApp(path string) (*model.App, error) {
	res, err := decodelogs.Paths([]string{path}, decodelogs.Options{})
	if err != nil {
		return nil, err
	}
	switch len(res.Apps) {
	case 1:
		return res.Apps[0], nil
	case 0:
		if len(res.Problems) > 0 {
			return nil, fmt.Errorf("%s: %v", path, res.Problems[0])
		}
		return nil, fmt.Errorf("%s: no application", path)
	}
	var ids []string
	for _, a := range res.Apps {
		ids = append(ids, a.ID)
	}
	return nil, withCode(ExitUsage, fmt.Errorf("%s holds %d applications (%s): name one log", path, len(ids), strings.Join(ids, ", ")))
}
