package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/anomaly"
)

// WindowsHeader is what the windows command's text says it did.
type WindowsHeader struct {
	Window, History time.Duration
	DMin            float64
	MinMetrics      int
	// LongHistory and LongQuantile are the long-term reference (none when
	// LongHistory is 0).
	LongHistory  time.Duration
	LongQuantile float64
}

// WindowsText writes each node's abnormal windows (the windows command):
// one line per window with its score and its top metrics (value, the
// normal median ± spread, and how many spreads off).
func WindowsText(w io.Writer, nodes []anomaly.NodeWindows, h WindowsHeader, top int) {
	fmt.Fprintf(w, "Abnormal windows: each node against its own last %s; windows of %s whose means are off by more than %g spreads on %d metrics or more (HybridTune Algorithms 4-5)",
		h.History, h.Window, h.DMin, h.MinMetrics)
	if h.LongHistory > 0 {
		fmt.Fprintf(w, ", a metric not counted inside its %g–%g%% range over the last %s", 100*h.LongQuantile, 100*(1-h.LongQuantile), h.LongHistory)
	}
	fmt.Fprintln(w)
	for _, n := range nodes {
		span := time.Duration(n.ToMs-n.FromMs) * time.Millisecond
		fmt.Fprintf(w, "\n%s: %d instants every %s over %s, %d judged", n.Host, n.Samples, time.Duration(n.IntervalMs)*time.Millisecond, span, n.Judged)
		if n.Note != "" {
			fmt.Fprintf(w, " (%s)\n", n.Note)
			continue
		}
		fmt.Fprintf(w, "; %d abnormal windows\n", len(n.Windows))
		for _, win := range n.Windows {
			fmt.Fprintf(w, "  %s  %-8s score %-7.4g", time.UnixMilli(win.StartMs).UTC().Format("2006-01-02 15:04:05"),
				time.Duration(win.EndMs-win.StartMs)*time.Millisecond, win.Score)
			var ms []string
			for i, m := range win.Metrics {
				if top > 0 && i == top {
					ms = append(ms, fmt.Sprintf("and %d more", len(win.Metrics)-top))
					break
				}
				ms = append(ms, fmt.Sprintf("%s %.4g (normal %.4g ± %.3g, %.1f off)", m.Metric, m.Value, m.Normal, m.Spread, m.Deviation))
			}
			fmt.Fprintf(w, " %s\n", strings.Join(ms, "; "))
		}
	}
}
