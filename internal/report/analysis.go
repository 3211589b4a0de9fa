package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/hetero"
)

// AnalysisJSON writes analyses as {"applications": [...]}.
func AnalysisJSON(w io.Writer, as []*analysis.Analysis) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Applications []*analysis.Analysis `json:"applications"`
	}{as})
}

// AnalysisText writes an analysis for the terminal: the summary's header,
// where the slot time went, the wall clock and its lower bounds, the what-if
// curve, the stages and nodes with the most idle time, and the findings.
func AnalysisText(w io.Writer, a *analysis.Analysis, maxRows int) error {
	s := a.Summary
	writeHeader(w, s)
	if a.Dataflow != nil {
		causesText(w, a.Dataflow)
	}
	if e := a.Efficiency; e != nil {
		fmt.Fprintln(w, "Wall clock (Sparklens)")
		fmt.Fprintf(w, "  application %s = driver %s (%s) + executors %s; %d driver-only gaps, longest %s\n",
			Millis(e.AppMs), Millis(e.DriverMs), pct(e.DriverMs, e.AppMs), Millis(e.ExecutorMs), e.Gaps, Millis(e.LongestGapMs))
		fmt.Fprintf(w, "  lower bounds: critical path %s (%s), perfect parallelism %s, one core %s\n",
			Millis(e.CriticalPathAppMs), stageList(e.CriticalPath.Stages, 8), Millis(int64(e.IdealAppMs)), Millis(e.OneCoreAppMs))
		fmt.Fprintf(w, "  core-hours: available %.2f, used %.2f (%s), wasted %.2f (%.2f of it while only the driver worked)\n\n",
			coreHours(e.CoreMsAvailable), coreHours(e.CoreMsUsed), pct(e.CoreMsUsed, e.CoreMsAvailable),
			coreHours(e.CoreMsWasted), coreHours(e.DriverCoreMsWasted))
	}
	if wi := a.WhatIf; wi != nil {
		fmt.Fprintf(w, "What if (replaying the recorded tasks; at 100%% the replay gives %s against %s recorded, %.1f%% off)\n",
			Millis(wi.ModelMs), Millis(wi.RecordedMs), 100*wi.ModelError)
		tw := newTable(w)
		fmt.Fprintln(tw, "  executors\tslots\testimated time\tutilization")
		for _, e := range wi.Estimates {
			fmt.Fprintf(tw, "  %d%% (%.1f)\t%d\t%s\t%.0f%%\n", e.Percent, e.Executors, e.Slots, Millis(e.AppMs), 100*e.Utilization)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	if a.Dataflow != nil {
		stagesText(w, a.Dataflow, maxRows)
		nodesText(w, a.Dataflow, maxRows)
	}
	if a.Timeline() != nil {
		fmt.Fprintln(w, "Timeline (one row per slot; letters are activities, '.' idle, '=' bootstrap)")
		if err := a.Timeline().WriteText(w, 100, 40); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	if a.Metrics != nil {
		metricsText(w, a.Metrics, maxRows)
	}
	if v, ok := a.NodeVerdicts.(*hetero.RunVerdicts); ok {
		nodeVerdictsText(w, v)
	}
	if a.Nodes != nil {
		nodeDiagText(w, a.Nodes, s.App.Start, maxRows)
	}
	if a.Threads != nil {
		threadsText(w, a.Threads)
	}
	queriesText(w, a, maxRows)
	findingsText(w, a.Findings)
	for _, n := range a.Notes {
		fmt.Fprintln(w, "Note:", n)
	}
	qualityText(w, &s.Quality)
	return nil
}

func causesText(w io.Writer, b *dataflow.Breakdown) {
	total := b.App.Total
	if total <= 0 {
		return
	}
	fmt.Fprintf(w, "Where the slot time went (HiTune breakdown of %s of allocated slot time)\n", Millis(total))
	tw := newTable(w)
	for c := dataflow.Cause(0); c < dataflow.NumCauses; c++ {
		v := b.App.Cause[c]
		if v == 0 {
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", c, Millis(v), pct(v, total), bar(v, total, 40))
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func stagesText(w io.Writer, b *dataflow.Breakdown, maxRows int) {
	if len(b.Stages) == 0 {
		return
	}
	rows := append([]dataflow.StageBreakdown(nil), b.Stages...)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].End-rows[i].Start > rows[j].End-rows[j].Start })
	fmt.Fprintln(w, "Longest stages (tail: time from the median task's finish to the last's)")
	tw := newTable(w)
	fmt.Fprint(tw, "  stage\twall\ttail\ttasks")
	for c := dataflow.Cause(0); c < dataflow.NumCauses; c++ {
		fmt.Fprintf(tw, "\t%s", c)
	}
	fmt.Fprintln(tw, "\tname")
	for i, st := range rows {
		if maxRows > 0 && i == maxRows {
			fmt.Fprintf(tw, "  … %d more stages\n", len(rows)-maxRows)
			break
		}
		fmt.Fprintf(tw, "  %d.%d\t%s\t%s\t%d", st.ID, st.Attempt, Millis(st.End-st.Start), Millis(st.TailMs), st.Attempts)
		for c := dataflow.Cause(0); c < dataflow.NumCauses; c++ {
			fmt.Fprintf(tw, "\t%s", pct(st.Cause[c], st.Total))
		}
		fmt.Fprintf(tw, "\t%s\n", truncate(st.Name, 40))
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func nodesText(w io.Writer, b *dataflow.Breakdown, maxRows int) {
	if len(b.Nodes) < 2 {
		return
	}
	fmt.Fprintln(w, "Nodes (share of allocated slot time)")
	tw := newTable(w)
	fmt.Fprint(tw, "  host\tslots\tallocated")
	for c := dataflow.Cause(0); c < dataflow.NumCauses; c++ {
		fmt.Fprintf(tw, "\t%s", c)
	}
	fmt.Fprintln(tw)
	for i, n := range b.Nodes {
		if maxRows > 0 && i == maxRows {
			fmt.Fprintf(tw, "  … %d more nodes\n", len(b.Nodes)-maxRows)
			break
		}
		fmt.Fprintf(tw, "  %s\t%d\t%s", n.Host, n.Slots, Millis(n.Total))
		for c := dataflow.Cause(0); c < dataflow.NumCauses; c++ {
			fmt.Fprintf(tw, "\t%s", pct(n.Cause[c], n.Total))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func findingsText(w io.Writer, fs []finding.Finding) {
	if len(fs) == 0 {
		fmt.Fprintln(w, "Findings: none")
		fmt.Fprintln(w)
		return
	}
	fmt.Fprintf(w, "Findings (%d, ranked by what they cost the run)\n", len(fs))
	for _, f := range fs {
		findingText(w, f, "  ")
	}
	fmt.Fprintln(w)
}

// findingText writes one finding, and the symptoms folded under it, each
// line indented by indent.
func findingText(w io.Writer, f finding.Finding, indent string) {
	rule := ""
	if f.RuleSeverity > f.Severity {
		rule = fmt.Sprintf(" — its rule grades it %s, its cost %s", f.RuleSeverity, f.Severity)
	}
	fmt.Fprintf(w, "%s[%s] %s (%s %v)%s\n", indent, f.Severity, f.Title, f.Scope.Kind, f.Scope.IDs, rule)
	fmt.Fprintf(w, "%s    %s\n", indent, f.Summary)
	if f.Impact != nil {
		fmt.Fprintf(w, "%s    %s\n", indent, f.Impact.Sentence())
	} else {
		fmt.Fprintf(w, "%s    Its cost cannot be measured from the log: at most low.\n", indent)
	}
	for _, e := range f.Evidence {
		fmt.Fprintf(w, "%s    - %s = %s %s", indent, e.Name, strconv.FormatFloat(e.Value, 'g', 4, 64), e.Unit)
		if len(e.Limits) > 0 {
			fmt.Fprintf(w, " (%s %v)", e.Compare, e.Limits)
		}
		fmt.Fprintln(w)
	}
	if f.Recommendation != "" {
		fmt.Fprintf(w, "%s    → %s\n", indent, f.Recommendation)
	}
	for _, s := range f.Settings {
		cur := s.Current
		if cur == "" {
			cur = "unset"
		}
		fmt.Fprintf(w, "%s      set %s=%s (now %s)\n", indent, s.Key, s.Value, cur)
	}
	fmt.Fprintf(w, "%s    source: %s\n", indent, f.Source)
	if len(f.Symptoms) > 0 {
		fmt.Fprintf(w, "%s    explains %d more finding(s) of the same cause:\n", indent, len(f.Symptoms))
		for _, s := range f.Symptoms {
			findingText(w, s, indent+"      ")
		}
	}
}

func pct(part, whole int64) string {
	if whole <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(part)/float64(whole))
}

func bar(part, whole int64, width int) string {
	n := int(float64(width) * float64(part) / float64(whole))
	b := make([]byte, 0, width)
	for i := 0; i < n; i++ {
		b = append(b, '#')
	}
	return string(b)
}

func coreHours(ms int64) float64 { return float64(ms) / 3.6e6 }

// stageList names stages compactly: "stages 0 1 2", or the first and last
// few with a count of those left out.
func stageList(ids []int32, max int) string {
	var b strings.Builder
	b.WriteString("stages")
	for i, id := range ids {
		if len(ids) > max && i == max/2 {
			fmt.Fprintf(&b, " … (%d more) …", len(ids)-max)
		}
		if len(ids) > max && i >= max/2 && i < len(ids)-max/2 {
			continue
		}
		fmt.Fprintf(&b, " %d", id)
	}
	return b.String()
}

// threadsText writes the dataflow rebuilt from thread samples: per vertex
// its instances, thread time and busy share, then how its phases agree
// with the log's.
func threadsText(w io.Writer, tr *dataflow.ThreadReconstruction) {
	fmt.Fprintf(w, "Phases from JVM thread samples (HiTune §5; %d samples of %d threads every %s, %d attempts)\n",
		tr.Samples, tr.Threads, Millis(tr.IntervalMs), tr.Attempts)
	tw := newTable(w)
	fmt.Fprintln(tw, "  vertex\tpool\tphase\tinstances\tattempts\tthread time\trunnable\twaiting")
	for _, v := range tr.Vertices {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%d\t%s\t%.0f%%\t%.0f%%\n", v.Vertex, v.Pool, v.Phase, v.Instances, v.Attempts,
			Millis(v.SampledMs), 100*v.RunnableShare, 100*v.WaitingShare)
	}
	tw.Flush()
	if ag := tr.Agreement; ag != nil {
		fmt.Fprintf(w, "  against the log: %d attempts (%d sampled attempts not in it); median start %+dms, end %+dms\n",
			ag.Attempts, ag.NotInLog, ag.MedianStartDiffMs, ag.MedianEndDiffMs)
		tw = newTable(w)
		fmt.Fprintln(tw, "  pool\tphase\tattempts\tsampled\tlogged\t|sampled − logged|")
		for _, p := range ag.Phases {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%s\t%s\n", p.Pool, p.Phase, p.Attempts, Millis(p.SampledMs), Millis(p.LoggedMs), Millis(p.AbsDiffMs))
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
}
