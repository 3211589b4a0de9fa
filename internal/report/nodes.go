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
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s\n", v.Host, v.Status, res, slowdown(v.Slowdown),
			dash(v.Class), dash(factors(speed[v.Host].Factors)), v.Tasks, v.HistoryTasks, v.Why)
	}
	tw.Flush()
	nodesRuns(w, a)
	if a.Tail != "" {
		fmt.Fprintf(w, "\nResiduals' null distribution: %s\n", a.Tail)
	}
}

// nodesRuns lists the runs judged each on its own that have a degraded
// node or a run-wide slowdown.
func nodesRuns(w io.Writer, a *hetero.Assessment) {
	if len(a.Runs) < 2 {
		if len(a.Runs) == 1 && a.Runs[0].RunWide != nil {
			fmt.Fprintf(w, "\nRun-wide: %s\n", a.Runs[0].RunWide.Why)
		}
		return
	}
	quiet := 0
	var lines []string
	for _, r := range a.Runs {
		var bad []string
		for _, v := range r.Verdicts {
			if v.Culprit() {
				bad = append(bad, fmt.Sprintf("%s %s (%s)", v.Host, slowdown(v.Slowdown), v.Resource))
			}
		}
		if len(bad) == 0 && r.RunWide == nil {
			quiet++
			continue
		}
		line := fmt.Sprintf("  %s  %s  degraded: %s", Time(r.Start), r.ID, dash(strings.Join(bad, ", ")))
		if r.RunWide != nil {
			line += fmt.Sprintf("; run-wide %.2fx (%.2f–%.2f)", r.RunWide.Slowdown.Value, r.RunWide.Slowdown.Low, r.RunWide.Slowdown.High)
		}
		lines = append(lines, line)
	}
	fmt.Fprintf(w, "\nEach run on its own: %d of %d with a degraded node or a run-wide slowdown\n", len(lines), len(a.Runs))
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}

// slowdown prints a factor with its interval ("-" for none: an unknown
// node has no measurement).
func slowdown(f *hetero.Factor) string {
	if f == nil {
		return "-"
	}
	if f.Low == f.Value && f.High == f.Value {
		return fmt.Sprintf("%.2fx", f.Value)
	}
	return fmt.Sprintf("%.2fx (%.2f–%.2f)", f.Value, f.Low, f.High)
}

func factors(fs []hetero.ResourceFactor) string {
	var parts []string
	for _, f := range fs {
		if !f.Measured {
			parts = append(parts, f.Resource+" not measured")
			continue
		}
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

// nodeVerdictsText writes one run's nodes against their own models
// (analyze --node-models).
func nodeVerdictsText(w io.Writer, r *hetero.RunVerdicts) {
	fmt.Fprintln(w, "\nNodes against their own models (the run history, docs/NODES.md):")
	tw := newTable(w)
	fmt.Fprintln(tw, "  host\tverdict\tresource\tslowdown\tvs its history\ttasks\twhy")
	for _, v := range r.Verdicts {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%d\t%s\n", v.Host, v.Status, dash(v.Resource), slowdown(v.Slowdown), slowdown(v.VsHistory), v.Tasks, v.Why)
	}
	tw.Flush()
	if r.RunWide != nil {
		fmt.Fprintf(w, "  run-wide: %s\n", r.RunWide.Why)
	}
}
