package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/clusterlens/clusterlens/internal/nodediag"
)

// nodeDiagText writes the node diagnosis: per stage the abnormal nodes
// with their outlier metrics, then Ganesha's culprits with their alarm
// history, distances and evidence, and the innocent peers. start is the
// application's start (Unix ms), for t+ times.
func nodeDiagText(w io.Writer, r *nodediag.Result, start int64, maxRows int) {
	fmt.Fprintf(w, "Node diagnosis (HybridTune §3.3.3–3.3.4 per stage; Ganesha peer comparison over the application)\n")
	n := 0
	for _, s := range r.Stages {
		n += len(s.Abnormal)
	}
	fmt.Fprintf(w, "  abnormal nodes: %d in %d of %d stages compared (average cosine similarity under the threshold and the gap under the stage's median)\n",
		n, len(r.Stages), r.StagesCompared)
	if n > 0 {
		tw := newTable(w)
		fmt.Fprintln(tw, "  stage\thost\tscore\tthreshold\tmedian\toutlier metrics (node vs peers' median)")
		rows := 0
	stages:
		for _, s := range r.Stages {
			for _, a := range s.Abnormal {
				if maxRows > 0 && rows == maxRows {
					fmt.Fprintf(tw, "  … %d more\n", n-maxRows)
					break stages
				}
				rows++
				var om []string
				for _, r := range a.Slow {
					om = append(om, fmt.Sprintf("slow %s %.0f vs %.0f B/ms", r.Rate, r.Value, r.PeerMedian))
				}
				for _, o := range a.Outliers {
					om = append(om, fmt.Sprintf("%s %s vs %s", o.Metric, metricNum(o.Value), metricNum(o.PeerMedian)))
				}
				if len(om) == 0 {
					for _, d := range a.Differing {
						om = append(om, fmt.Sprintf("(differs) %s", d.Metric))
					}
				}
				fmt.Fprintf(tw, "  %d.%d\t%s\t%.2f\t%.2f\t%.2f\t%s\n", s.StageID, s.Attempt, a.Host, a.Score, s.Threshold, s.MedianScore,
					truncate(strings.Join(om, ", "), 110))
			}
		}
		tw.Flush()
	}
	p := r.Peers
	if p == nil {
		for _, note := range r.Notes {
			fmt.Fprintf(w, "  %s\n", note)
		}
		fmt.Fprintln(w)
		return
	}
	how := "plain Ganesha (every node against every other)"
	if p.WorkloadAware {
		how = "workload-aware peers (nodes running as many task attempts)"
	}
	fmt.Fprintf(w, "  peer comparison: %d hosts, %d vectors (%d unknown), profile %s (K = %d), %s; %d steps of %ds; indictment above a weighted alarm count of %.1f\n",
		p.Hosts, p.Vectors, p.Unknown, p.Profile, p.K, how, len(p.Steps), p.Params.StepS, p.Params.IndictThreshold)
	if len(p.Culprits) == 0 {
		fmt.Fprintln(w, "  culprits: none")
	}
	for _, c := range p.Culprits {
		indictedText(w, "culprit", &c, p, start)
	}
	for _, c := range p.Innocent {
		indictedText(w, "innocent peer of "+c.VictimOf, &c, p, start)
	}
	for _, note := range r.Notes {
		fmt.Fprintf(w, "  %s\n", note)
	}
	fmt.Fprintln(w)
}

// indictedText writes one indicted node.
func indictedText(w io.Writer, role string, c *nodediag.Indicted, p *nodediag.Peers, start int64) {
	fmt.Fprintf(w, "  %s: %s, resource %s; first indicted at t+%s; %d alarms, weighted count up to %.1f (> %.1f)\n",
		c.Host, role, c.Resource, Millis(c.FirstIndicted-start), c.Alarms, c.MaxAlarmCount, p.Params.IndictThreshold)
	var at []string
	for _, i := range c.Alarmed {
		at = append(at, "+"+Millis(p.Steps[i]-start))
	}
	fmt.Fprintf(w, "      alarms at %s\n", truncate(strings.Join(at, " "), 160))
	d := &c.Distances
	fmt.Fprintf(w, "      JS distance to %d peers at indictment: median %.2f (min %.2f, max %.2f), %d beyond %.2f\n",
		d.Peers, d.Median, d.Min, d.Max, d.Beyond, d.Threshold)
	for _, e := range c.Evidence {
		fmt.Fprintf(w, "      %-24s %12s vs peers %12s (z %+.1f)\n", e.Metric, metricNum(e.Node), metricNum(e.Peers), e.Z)
	}
	if c.Attempts > 0 {
		fmt.Fprintf(w, "      %s\n", c.SlowdownText())
	}
}

// metricNum writes a metric value compactly.
func metricNum(v float64) string {
	switch a := max(v, -v); {
	case a >= 1e9:
		return fmt.Sprintf("%.1fG", v/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.1f", v)
}
