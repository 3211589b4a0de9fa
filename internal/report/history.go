package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/clusterlens/clusterlens/internal/history"
)

// JSON writes v as indented JSON: every command's --format json.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// RunsText lists runs of the fleet, newest first; total is how many match
// the filter (the list may be a page of them).
func RunsText(w io.Writer, runs []*history.Run, total int) {
	fmt.Fprintf(w, "%d runs", total)
	if len(runs) < total {
		fmt.Fprintf(w, " (the %d newest shown; --limit for more)", len(runs))
	}
	fmt.Fprintln(w)
	if len(runs) == 0 {
		return
	}
	tw := newTable(w)
	fmt.Fprintln(tw, "  start\tduration\tstatus\tuser\tengine\texecutors\tinput\tworst finding\tjob\tapplication\tname")
	for _, r := range runs {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", Time(r.Start), RunDuration(r.End, r.DurationMs), r.Status,
			r.User, r.Engine, r.Cluster.Executors, Bytes(r.Totals.InputBytes), worst(r), short(r.JobKey), r.ID, truncate(r.Name, 40))
	}
	tw.Flush()
}

// RunDuration is a run's duration as a table shows it: "≥ 5m03s" for a
// run without an end (it lasted at least until its last event), "-" when
// nothing tells (never "0ms").
func RunDuration(end, ms int64) string {
	switch {
	case ms <= 0:
		return "-"
	case end <= 0:
		return "≥ " + Millis(ms)
	}
	return Millis(ms)
}

// worst names a run's gravest finding.
func worst(r *history.Run) string {
	for _, f := range r.Findings {
		if f.Severity == r.Worst {
			return fmt.Sprintf("%s: %s", f.Severity, truncate(f.Title, 32))
		}
	}
	return "-"
}

// JobsText lists recurring jobs.
func JobsText(w io.Writer, jobs []*history.Job) {
	fmt.Fprintf(w, "%d recurring jobs (runs grouped by normalized name and DAG)\n", len(jobs))
	if len(jobs) == 0 {
		return
	}
	tw := newTable(w)
	fmt.Fprintln(tw, "  job\truns\tfirst\tlast\tmedian\tlast run\ttrend\tvariants\tname")
	for _, j := range jobs {
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", short(j.ID), j.Runs, Time(j.First), Time(j.Last),
			Millis(j.MedianMs), Millis(j.LastMs), trend(j.Trend), len(j.Variants), truncate(j.Name, 48))
	}
	tw.Flush()
}

func trend(t history.Trend) string {
	if t.Runs < history.MinTrendRuns {
		return "-"
	}
	return fmt.Sprintf("%+.0f%% over %s", 100*t.Change, span(t.SpanMs))
}

// JobText shows one recurring job's runs over time, oldest first.
func JobText(w io.Writer, j *history.Job, runs []*history.Run) {
	fmt.Fprintf(w, "Job %s: %s (%s)\n", j.ID, j.Name, j.Engine)
	fmt.Fprintf(w, "  %d runs from %s to %s; median %s, last %s; duration trend %s (%d finished runs)\n",
		j.Runs, Time(j.First), Time(j.Last), Millis(j.MedianMs), Millis(j.LastMs), trend(j.Trend), j.Trend.Runs)
	if len(j.Variants) > 1 {
		fmt.Fprintf(w, "  %d DAG variants; confidence (DAG similarity to the most-run one):", len(j.Variants))
		for _, v := range j.Variants {
			fmt.Fprintf(w, " %s %.2f", short(v), j.Confidence[v])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	tw := newTable(w)
	fmt.Fprintln(tw, "  start\tduration\tstatus\tinput\tshuffle\texecutors\tcores\ttasks\tfindings\tworst\tapplication")
	for _, r := range runs {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", Time(r.Start), RunDuration(r.End, r.DurationMs), r.Status,
			Bytes(r.Totals.InputBytes), Bytes(r.Totals.ShuffleReadBytes), r.Cluster.Executors, r.Cluster.Cores,
			r.Totals.Tasks, len(r.Findings), worst(r), r.ID)
	}
	tw.Flush()
}

// NodeText shows one node across runs, oldest first.
func NodeText(w io.Writer, n *history.Node) {
	fmt.Fprintf(w, "Host %s in %d runs; its usual ratio to the stage medians is %.2f\n", n.Host, len(n.Runs), n.Baseline)
	tw := newTable(w)
	fmt.Fprintln(tw, "  start\ttasks\tstages\tratio\tvs usual\tapplication\tname")
	for _, r := range n.Runs {
		vs := "-"
		if r.Ratio > 0 && n.Baseline > 0 {
			vs = fmt.Sprintf("%.2fx", r.Ratio/n.Baseline)
		}
		fmt.Fprintf(tw, "  %s\t%d\t%d\t%.2f\t%s\t%s\t%s\n", Time(r.Start), r.Tasks, r.Stages, r.Ratio, vs, r.Key, truncate(r.Name, 40))
	}
	tw.Flush()
}

// short is the first 8 characters of a key, enough to tell jobs apart.
func short(key string) string { return key[:min(8, len(key))] }

// span renders a time span in days from two days up, else as Millis does.
func span(ms int64) string {
	if d := ms / 86_400_000; d >= 2 {
		return fmt.Sprintf("%dd", d)
	}
	return Millis(ms)
}
