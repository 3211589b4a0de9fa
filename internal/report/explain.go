package report

import (
	"fmt"
	"io"

	"github.com/clusterlens/clusterlens/internal/explain"
)

// ExplainText writes why a run was slower or faster than usual: the
// verdict, the usual time and its spread, then each cause with its share,
// seconds and what it names.
func ExplainText(w io.Writer, e *explain.Explanation) {
	fmt.Fprintf(w, "%s\n", e.Summary)
	if e.Verdict == explain.Unknown {
		return
	}
	u := e.Usual
	fmt.Fprintf(w, "Run %s (%s), started %s, took %s; usual %s over its last %d comparable runs (spread %s, %s to %s is usual; fastest %s, slowest %s)\n",
		e.Run.ID, e.Run.Key, Time(e.Run.Start), Millis(e.Run.DurationMs), Millis(u.MedianMs), len(u.Runs), Millis(u.SpreadMs),
		Millis(u.LowMs), Millis(u.HighMs), Millis(u.MinMs), Millis(u.MaxMs))
	if e.Verdict == explain.Usual {
		return
	}
	fmt.Fprintf(w, "\n%s by %s (%.2fx):\n", e.Verdict, Millis(abs(e.ExtraMs)), e.Ratio)
	tw := newTable(w)
	fmt.Fprintln(tw, "  share\tseconds\tcause\tnames\tevidence")
	for _, c := range e.Causes {
		for i, it := range c.Items {
			share, kind := fmt.Sprintf("%.0f%%", 100*c.Share), c.Kind
			if i > 0 {
				share, kind = "", ""
			}
			fmt.Fprintf(tw, "  %s\t%+.1f\t%s\t%s\t%s\n", share, it.Seconds, kind, itemName(it), it.Evidence)
		}
	}
	fmt.Fprintf(tw, "  %.0f%%\t%+.1f\tunexplained\t-\twhat no cause explains\n", 100*e.UnexplainedShare, float64(e.UnexplainedMs)/1000)
	tw.Flush()
}

// itemName is what an item of a cause names: a node, a setting, a stage.
func itemName(it explain.Item) string {
	switch {
	case it.Node != "":
		return it.Node
	case it.Key != "":
		return it.Key
	case it.Stage >= 0:
		return fmt.Sprintf("stage %d", it.Stage)
	case it.StageName != "":
		return it.StageName
	}
	return "-"
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
