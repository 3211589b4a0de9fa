package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/clusterlens/clusterlens/internal/query"
)

// queriesText writes the SQL queries that took the most time: their wall
// time and share of the application, jobs and stages, core use, and the
// operators that took the time with their rows, bytes, skew and spill.
func queriesText(w io.Writer, a *Analysis, maxRows int) {
	if len(a.Queries) == 0 {
		return
	}
	qs := slices.Clone(a.Queries)
	slices.SortStableFunc(qs, func(x, y query.Query) int { return cmp.Compare(y.WallMs, x.WallMs) })
	fmt.Fprintf(w, "SQL queries (%d; the longest first)\n", len(qs))
	for _, q := range qs[:min(len(qs), max(maxRows, 1))] {
		desc := strings.Join(strings.Fields(q.Description), " ")
		if len(desc) > 80 {
			desc = desc[:77] + "..."
		}
		fmt.Fprintf(w, "  query %d  %s  %s (%s of the application)  jobs %v  stages %v  cores used %.0f%% of %d\n",
			q.ID, q.Status, Millis(q.WallMs), pctShare(q.Share), q.Jobs, q.Stages, 100*q.Utilization, q.Slots)
		if desc != "" {
			fmt.Fprintf(w, "    %s\n", desc)
		}
		ops := slices.Clone(q.Operators)
		slices.SortStableFunc(ops, func(x, y query.Operator) int { return cmp.Compare(y.TimeMs, x.TimeMs) })
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "    operator\ttime\trows in\trows out\tbytes\tskew (max/median)\tspill\tstage")
		for _, op := range ops[:min(len(ops), 5)] {
			skew := ""
			if op.Skew > 0 {
				skew = fmt.Sprintf("%.1fx %s", op.Skew, op.SkewMetric)
			}
			stage := ""
			if op.Stage >= 0 {
				stage = fmt.Sprint(op.Stage)
			}
			fmt.Fprintf(tw, "    %d %s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\n", op.ID, op.Name, Millis(op.TimeMs), op.RowsIn, op.RowsOut,
				Bytes(op.Bytes), skew, Bytes(op.Spill), stage)
		}
		tw.Flush()
		if q.Adaptive != nil && len(q.Adaptive.Changes) > 0 {
			fmt.Fprintf(w, "    adaptive execution: %s\n", strings.Join(q.Adaptive.Changes, ", "))
		}
	}
	fmt.Fprintln(w)
}

func pctShare(s float64) string { return fmt.Sprintf("%.0f%%", 100*s) }
