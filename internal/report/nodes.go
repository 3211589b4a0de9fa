package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/clusterlens/clusterlens/internal/hetero"
)

// NodesText renders the nodes' assessment: the classes, then a line per
// node judged with its verdict.
func NodesText(w io.Writer, a *hetero.Assessment) {
	fmt.Fprintf(w, "Model %s fitted on %d runs; judged the %d newest (%s – %s)\n", a.Model, a.HistoryRuns, a.JudgedRuns,
		Time(a.JudgedFrom), Time(a.JudgedTo))
	if len(a.Classes) > 0 {
		fmt.Fprintln(w, "\nNode classes (slowdown against the median node, per resource):")
		tw := newTable(w)
		fmt.Fprintln(tw, "  class\tnodes\tfactors\tslow by design\twhat the logs say")
		for _, c := range a.Classes {
			fmt.Fprintf(tw, "  %s\t%d\t%s\t%v\t%s\n", c.Name, len(c.Nodes), factors(c.Factors), c.SlowByDesign, dash(strings.Join(c.Facts, "; ")))
		}
		tw.Flush()
	}
	speed := map[string]hetero.NodeSpeed{}
	for _, s := range a.Speeds {
		speed[s.Host] = s
	}
	fmt.Fprintln(w, "\nNodes in the runs judged:")
	tw := newTable(w)
	fmt.Fprintln(tw, "  host\tverdict\tresource\tslowdown vs own model\tclass\tspeed\ttasks\thistory tasks\twhy")
	for _, v := range a.Verdicts {
		res := v.Resource
		if res == "" {
			res = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%.2fx (%.2f–%.2f)\t%s\t%s\t%d\t%d\t%s\n", v.Host, v.Status, res, v.Slowdown.Value,
			v.Slowdown.Low, v.Slowdown.High, dash(v.Class), dash(factors(speed[v.Host].Factors)), v.Tasks, v.HistoryTasks, v.Why)
	}
	tw.Flush()
}

func factors(fs []hetero.ResourceFactor) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, fmt.Sprintf("%s %.2fx", f.Resource, f.Factor.Value))
	}
	return strings.Join(parts, ", ")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
