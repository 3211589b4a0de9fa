package report

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/query"
)

// queriesText writes the SQL queries that took the most time: their wall
// time and share of the application, jobs and stages, core use, and the
// operators that took the time with their rows, bytes, skew and spill.
func queriesText(w io.Writer, a *analysis.Analysis, maxRows int) {
	if len(a.Queries) == 0 {
		return
	}
	var qs []query.Query
	for _, q := range a.Queries {
		if len(q.Jobs) > 0 {
			qs = append(qs, q)
		}
	}
	slices.SortStableFunc(qs, func(x, y query.Query) int { return cmp.Compare(y.WallMs, x.WallMs) })
	fmt.Fprintf(w, "SQL queries (%d, %d of them ran no job; the longest of those that did first)\n", len(a.Queries), len(a.Queries)-len(qs))
	n := len(qs)
	if maxRows > 0 {
		n = min(n, maxRows)
	}
	for _, q := range qs[:n] {
		desc := strings.Join(strings.Fields(q.Description), " ")
		if len(desc) > 80 {
			desc = desc[:77] + "..."
		}
		fmt.Fprintf(w, "  query %d  %s  %s (%s of the application)  jobs %v  stages %v  cores used %.0f%% of %d\n",
			q.ID, q.Status, Millis(q.WallMs), pctShare(q.Share), q.Jobs, q.Stages, 100*q.Utilization, q.Slots)
		if desc != "" {
			fmt.Fprintf(w, "    %s\n", desc)
		}
		var ops []query.Operator
		for _, op := range q.Operators {
			if op.TimeMs > 0 || op.RowsOut > 0 || op.Bytes > 0 || op.Spill > 0 {
				ops = append(ops, op)
			}
		}
		if len(ops) == 0 {
			fmt.Fprintln(w, "    (no operator metrics)")
		}
		slices.SortStableFunc(ops, func(x, y query.Operator) int { return cmp.Compare(y.TimeMs, x.TimeMs) })
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		if len(ops) > 0 {
			fmt.Fprintln(tw, "    operator\ttime\trows in\trows out\tbytes\tskew (max/median)\tspill\tstage")
		}
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

// CompareText writes the comparison of two runs of queries: per pair the
// wall times, whether the plan kept its shape, the SQL settings that
// differ, and the operators whose time or rows changed the most.
func CompareText(w io.Writer, diffs []query.Diff, maxRows int) error {
	for _, d := range diffs {
		change := ""
		if d.WallMs[0] > 0 {
			change = fmt.Sprintf(" (%+.0f%%)", 100*float64(d.WallMs[1]-d.WallMs[0])/float64(d.WallMs[0]))
		}
		app := func(r query.Ref) string {
			if r.Attempt != "" {
				return r.App + " attempt " + r.Attempt
			}
			return r.App
		}
		fmt.Fprintf(w, "query %d of %s → query %d of %s: %s → %s%s\n", d.A.Query, app(d.A), d.B.Query, app(d.B),
			Millis(d.WallMs[0]), Millis(d.WallMs[1]), change)
		if desc := strings.Join(strings.Fields(d.A.Description), " "); desc != "" {
			if len(desc) > 100 {
				desc = desc[:97] + "..."
			}
			fmt.Fprintf(w, "  %s\n", desc)
		}
		if d.SamePlan {
			fmt.Fprintln(w, "  plan: same operators")
		} else {
			fmt.Fprintf(w, "  plan changed: %s\n", strings.Join(d.PlanChanges, ", "))
		}
		for _, c := range d.Configs {
			fmt.Fprintf(w, "  setting %s: %q → %q\n", c.Key, c.Val[0], c.Val[1])
		}
		ops := slices.Clone(d.Operators)
		delta := func(o query.OperatorDiff) int64 {
			dt := o.TimeMs[1] - o.TimeMs[0]
			return max(dt, -dt)
		}
		slices.SortStableFunc(ops, func(x, y query.OperatorDiff) int { return cmp.Compare(delta(y), delta(x)) })
		n := len(ops)
		if maxRows > 0 {
			n = min(n, maxRows)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  operator\tids\ttime\trows out\tbytes")
		id := func(i int32) string {
			if i < 0 {
				return "-"
			}
			return fmt.Sprint(i)
		}
		for _, o := range ops[:n] {
			fmt.Fprintf(tw, "  %s\t%s/%s\t%s → %s\t%d → %d\t%s → %s\n", o.Name, id(o.ID[0]), id(o.ID[1]),
				Millis(o.TimeMs[0]), Millis(o.TimeMs[1]), o.RowsOut[0], o.RowsOut[1], Bytes(o.Bytes[0]), Bytes(o.Bytes[1]))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if _, err := fmt.Fprintln(w); err != nil {
			return err
		}
	}
	return nil
}
