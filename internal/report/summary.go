package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clusterlens/clusterlens/internal/summary"
)

// SummaryJSON writes summaries as one JSON document: {"applications": [...]}.
func SummaryJSON(w io.Writer, ss []*summary.Summary) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Applications []*summary.Summary `json:"applications"`
	}{ss})
}

// SummaryText writes a summary for the terminal. maxRows bounds long tables
// (stages, executors, hosts, failures); 0 means no bound.
func SummaryText(w io.Writer, s *summary.Summary, maxRows int) error {
	writeHeader(w, s)
	if len(s.Stages) > 0 {
		fmt.Fprintln(w, "Stages (task durations: min / p25 / median / p75 / max over successful tasks)")
		tw := newTable(w)
		fmt.Fprintln(tw, "  stage\tstatus\ttasks\tfailed\tduration\tmin\tp25\tmedian\tp75\tmax\tmax/med\tinput\tshuffle r\tshuffle w\tspill\tname")
		for i, st := range s.Stages {
			if maxRows > 0 && i == maxRows {
				fmt.Fprintf(tw, "  … %d more stages (use --format json for all)\n", len(s.Stages)-maxRows)
				break
			}
			q := []string{"-", "-", "-", "-", "-"}
			for j, v := range st.TaskDurationMs {
				q[j] = Millis(int64(v))
			}
			ratio := "-"
			if st.SkewRatio > 0 {
				ratio = fmt.Sprintf("%.1fx", st.SkewRatio)
			}
			fmt.Fprintf(tw, "  %d.%d\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
				st.ID, st.Attempt, st.Status, st.Tasks, st.Failed, Millis(st.DurationMs), q[0], q[1], q[2], q[3], q[4],
				ratio, Bytes(st.InputBytes), Bytes(st.ShuffleReadBytes), Bytes(st.ShuffleWriteBytes),
				Bytes(st.SpillBytes), truncate(st.Name, 48))
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	usageTable(w, "Executors", s.Executors, true, maxRows)
	usageTable(w, "Hosts", s.Hosts, false, maxRows)

	if len(s.Failures) > 0 {
		fmt.Fprintln(w, "Failures")
		tw := newTable(w)
		fmt.Fprintln(tw, "  count\tscope\tkind\tfirst seen\treason")
		for i, f := range s.Failures {
			if maxRows > 0 && i == maxRows {
				fmt.Fprintf(tw, "  … %d more distinct failures\n", len(s.Failures)-maxRows)
				break
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\n", f.Count, f.Scope, f.Kind, f.Where, truncate(f.Message, 100))
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
	qualityText(w, &s.Quality)
	return nil
}

func usageTable(w io.Writer, title string, rows []summary.Usage, withHost bool, maxRows int) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, title)
	tw := newTable(w)
	head := "  id\ttasks\tfailed\ttask time\tgc\tinput\tshuffle r\tshuffle w"
	if withHost {
		head += "\thost"
	}
	fmt.Fprintln(tw, head)
	for i, u := range rows {
		if maxRows > 0 && i == maxRows {
			fmt.Fprintf(tw, "  … %d more\n", len(rows)-maxRows)
			break
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\t%s\t%s\t%s\t%s", u.ID, u.Tasks, u.Failed, Millis(u.TaskTimeMs),
			Millis(u.GCTimeMs), Bytes(u.InputBytes), Bytes(u.ShuffleReadBytes), Bytes(u.ShuffleWriteBytes))
		if withHost {
			fmt.Fprintf(tw, "\t%s", u.Host)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	fmt.Fprintln(w)
}

func qualityText(w io.Writer, q *summary.Quality) {
	fmt.Fprintf(w, "Data quality: %d lines read, %d bad, %d unknown events, %d incomplete events",
		q.Lines, q.BadLines, q.UnknownEvents, q.Incomplete)
	for _, c := range []struct {
		n    int64
		what string
	}{
		{q.LongLines, "lines over the length limit (skipped)"},
		{q.Duplicates, "duplicate events (applied once)"},
		{q.ImpossibleTimes, "impossible times (left out of durations)"},
	} {
		if c.n > 0 {
			fmt.Fprintf(w, ", %d %s", c.n, c.what)
		}
	}
	if q.Truncated {
		fmt.Fprint(w, ", input truncated")
	}
	if q.Partial {
		fmt.Fprint(w, ", PARTIAL (see the notes)")
	}
	fmt.Fprintln(w)
	for _, is := range q.Issues {
		if is.Line > 0 {
			fmt.Fprintf(w, "  %s:%d: %s\n", is.File, is.Line, truncate(is.What, 160))
		} else { // about a record, not a line (an impossible time)
			fmt.Fprintf(w, "  %s: %s\n", is.File, truncate(is.What, 160))
		}
	}
	for _, n := range q.Notes {
		label := "note"
		if n.Partial {
			label = "PARTIAL"
		}
		fmt.Fprintf(w, "  %s: %s\n", label, n.Text)
	}
	fmt.Fprintln(w)
}

// platformText writes where the application ran and what its cluster was,
// on at most two lines.
func platformText(w io.Writer, p *summary.Platform) {
	if p == nil {
		return
	}
	line := "   platform " + p.Name
	if p.Photon {
		line += ", Photon"
	}
	if p.Runtime != "" {
		line += ", runtime " + p.Runtime
	}
	fmt.Fprintln(w, line)
	if c := p.Cluster; c != nil {
		fmt.Fprintf(w, "   cluster %s\n", clusterText(c))
	}
}

// clusterText says what is known of a cluster in one line.
func clusterText(c *summary.Cluster) string {
	var parts []string
	add := func(v string) {
		if v != "" {
			parts = append(parts, v)
		}
	}
	add(strings.TrimSpace(c.ID + " " + parenthesized(c.Name)))
	add(c.Job)
	add(strings.TrimSpace(c.Cloud + " " + c.Region))
	if c.DriverNodeType != "" {
		add("driver " + c.DriverNodeType)
	}
	workers := ""
	switch {
	case c.Autoscaling:
		workers = fmt.Sprintf("%d–%d workers (autoscaling, %d at start)", c.MinWorkers, c.MaxWorkers, c.Workers)
	case c.Workers > 0 || c.TargetWorkers > 0:
		workers = fmt.Sprintf("%d workers", max(c.Workers, c.TargetWorkers))
	}
	if c.WorkerNodeType != "" {
		workers = strings.TrimSpace(workers + " " + c.WorkerNodeType)
	}
	add(workers)
	add(c.Availability)
	if c.Pool != "" {
		add("pool " + c.Pool)
	}
	if c.Workspace != "" {
		add("workspace " + c.Workspace)
	}
	return strings.Join(parts, ", ")
}

func parenthesized(s string) string {
	if s == "" {
		return ""
	}
	return "(" + s + ")"
}

// count says n of a noun, plural unless n is 1: "1 host", "4 hosts".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func newTable(w io.Writer) *tabwriter.Writer { return tabwriter.NewWriter(w, 0, 0, 2, ' ', 0) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func truncate(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// writeHeader writes an application's identity and totals.
func writeHeader(w io.Writer, s *summary.Summary) {
	a := s.App
	status := "complete"
	if !a.Complete {
		status = "INCOMPLETE (no end record: still running, crashed or truncated)"
	}
	id := a.ID
	if a.Attempt != "" {
		id += " attempt " + a.Attempt
	}
	fmt.Fprintf(w, "== %s  %s\n", id, a.Name)
	fmt.Fprintf(w, "   %s %s, user %s, %s\n", a.Engine, a.Version, orDash(a.User), status)
	fmt.Fprintf(w, "   start %s  end %s  duration %s\n", Time(a.Start), Time(a.End), Millis(a.DurationMs))
	fmt.Fprintf(w, "   source %s\n", a.Source)
	platformText(w, a.Platform)
	t := s.Totals
	resubmitted := ""
	if t.ResubmittedTasks > 0 {
		resubmitted = fmt.Sprintf(" of which %d resubmitted", t.ResubmittedTasks)
	}
	fmt.Fprintf(w, "   %d jobs (%d failed), %d stages (%d failed, %d skipped), %d tasks (%d failed%s, %d killed, %d speculative",
		t.Jobs, t.FailedJobs, t.Stages, t.FailedStages, t.SkippedStages, t.Tasks, t.FailedTasks, resubmitted, t.KilledTasks, t.Speculative)
	if t.RunningTasks > 0 {
		fmt.Fprintf(w, ", %d unfinished", t.RunningTasks)
	}
	fmt.Fprintf(w, "), %s on %s\n\n", count(t.Executors, "executor"), count(t.Hosts, "host"))

}
