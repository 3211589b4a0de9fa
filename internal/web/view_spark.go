package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/shs"
)

// writeTabs writes the application's tab bar, here marked.
func writeTabs(w *htmlw.Writer, s *sparkApp, here string) {
	w.Raw(`<nav class="tabs">`)
	for _, t := range tabs {
		w.Raw(`<a href="`).URL(s.link(t[0], nil)).Raw(`"`)
		if t[0] == here || here == "stage" && t[0] == "stages" || here == "sql/exec" && t[0] == "sql" {
			w.Raw(` class="here"`)
		}
		w.Raw(">").Text(t[1]).Raw("</a>")
	}
	w.Raw(`<a href="/api/v1/`).URL(s.base).Raw(`">API</a></nav>` + "\n")
}

// date is an API date, "-" when absent.
func date(d *shs.Date) string {
	if d == nil || *d <= 0 {
		return "-"
	}
	return when(int64(*d))
}

// span is the time between two API dates ("-" when either is absent).
func span(from, to *shs.Date) string {
	if from == nil || to == nil || *from <= 0 {
		return "-"
	}
	return ms(int64(*to) - int64(*from))
}

// progress writes "done/total" with what failed, was killed or skipped.
func progress(w *htmlw.Writer, done, total, failed, killed, skipped int64) {
	w.Raw(`<span class="progress"><span class="bar" style="width:`)
	pct := 0.0
	if total > 0 {
		pct = 100 * float64(min(done, total)) / float64(total)
	}
	w.Raw(strconv.FormatFloat(pct, 'f', 1, 64)).Raw(`%"></span><span class="n">`).Int(done).Raw("/").Int(total)
	if failed > 0 {
		w.Raw(" (").Int(failed).Raw(" failed)")
	}
	if killed > 0 {
		w.Raw(" (").Int(killed).Raw(" killed)")
	}
	if skipped > 0 {
		w.Raw(" (").Int(skipped).Raw(" skipped)")
	}
	w.Raw("</span></span>")
}

// writeJobs writes the jobs page.
func writeJobs(w *htmlw.Writer, d *jobsData) {
	if len(d.Sections) == 0 {
		w.Raw(`<p class="message">The log records no job.</p>`)
	}
	if d.Chart {
		w.Raw("<div data-chart=\"job-durations\"></div>\n")
	}
	for _, sec := range d.Sections {
		w.Raw("<h2>").Text(sec.Title).Raw(" (").Int(int64(len(sec.Jobs))).Raw(")</h2>\n" +
			`<table class="grid"><tr><th>job</th><th>description</th><th>submitted</th><th class="num">duration</th><th>stages: succeeded/total</th><th>tasks (of every stage): succeeded/total</th></tr>` + "\n")
		for _, j := range sec.Jobs {
			w.Raw(`<tr id="job-`).Int(int64(j.JobID)).Raw(`"><td><a href="`).URL(d.s.link("stages", url.Values{"job": {strconv.Itoa(int(j.JobID))}})).Raw(`">`).Int(int64(j.JobID)).Raw("</a>")
			if j.JobGroup != nil {
				w.Raw(`<br><span class="explain" title="job group">`).Text(clip(*j.JobGroup, 14)).Raw("</span>")
			}
			w.Raw("</td><td>")
			if j.Description != nil {
				w.Raw(`<span title="`).Text(*j.Description).Raw(`">`).Text(clip(*j.Description, 140)).Raw("</span><br>")
			}
			w.Raw(`<span class="explain">`).Text(j.Name).Raw(`</span></td><td class="when">`).Text(date(j.SubmissionTime)).Raw(`</td><td class="num">`)
			if j.CompletionTime != nil {
				w.Text(span(j.SubmissionTime, j.CompletionTime))
			} else {
				w.Raw("running")
			}
			w.Raw("</td><td>")
			stages := int64(len(j.StageIDs)) - j.NumSkippedStages
			progress(w, j.NumCompletedStages, stages, j.NumFailedStages, 0, j.NumSkippedStages)
			w.Raw("</td><td>")
			progress(w, j.NumCompletedTasks, j.NumTasks-j.NumSkippedTasks, j.NumFailedTasks, j.NumKilledTasks, j.NumSkippedTasks)
			w.Raw("</td></tr>\n")
		}
		w.Raw("</table>\n")
	}
}

// writeStages writes the stages page.
func writeStages(w *htmlw.Writer, d *stagesData) {
	if d.Job >= 0 {
		w.Raw(`<p class="meta">The stages of job `).Int(int64(d.Job)).Raw(` · <a href="`).URL(d.s.link("stages", nil)).Raw(`">every stage</a></p>` + "\n")
	}
	if d.Chart {
		w.Raw("<div data-chart=\"stage-durations\"></div>\n")
	}
	if len(d.Ran) == 0 {
		w.Raw(`<p class="message">No stage ran a task.</p>`)
	}
	for _, sec := range d.Ran {
		failed := sec.Title == "Failed stages"
		w.Raw("<h2>").Text(sec.Title).Raw(" (").Int(int64(len(sec.Stages))).Raw(")</h2>\n" +
			`<table class="grid"><tr><th>stage</th><th>description</th><th>submitted</th><th class="num">duration</th><th>tasks: succeeded/total</th>` +
			`<th class="num">input</th><th class="num">output</th><th class="num">shuffle read</th><th class="num">shuffle write</th>`)
		if failed {
			w.Raw("<th>failure reason</th>")
		}
		w.Raw("</tr>\n")
		for _, sd := range sec.Stages {
			w.Raw(`<tr><td><a href="`).URL(d.s.link(fmt.Sprintf("stage/%d/%d", sd.StageID, sd.AttemptID), nil)).Raw(`">`).Text(stageName(sd.StageID, sd.AttemptID)).
				Raw("</a></td><td>").Text(sd.Name).Raw(`</td><td class="when">`).Text(date(sd.SubmissionTime)).Raw(`</td><td class="num">`)
			if sd.CompletionTime != nil {
				w.Text(ms(stageMs(sd)))
			} else {
				w.Raw("running")
			}
			w.Raw("</td><td>")
			progress(w, sd.NumCompleteTasks, int64(sd.NumTasks), sd.NumFailedTasks, sd.NumKilledTasks, 0)
			w.Raw(`</td><td class="num">`).Text(sizeOr(sd.InputBytes)).Raw(`</td><td class="num">`).Text(sizeOr(sd.OutputBytes)).
				Raw(`</td><td class="num">`).Text(sizeOr(sd.ShuffleReadBytes)).Raw(`</td><td class="num">`).Text(sizeOr(sd.ShuffleWriteBytes)).Raw("</td>")
			if failed {
				w.Raw("<td>")
				if sd.FailureReason != nil {
					w.Raw("<details><summary>").Text(clip(firstOf(*sd.FailureReason), 80)).Raw("</summary><pre>").Text(*sd.FailureReason).Raw("</pre></details>")
				}
				w.Raw("</td>")
			}
			w.Raw("</tr>\n")
		}
		w.Raw("</table>\n")
	}
	for _, sec := range d.Waiting {
		w.Raw("<h2>").Text(sec.Title).Raw(" (").Int(int64(len(sec.Stages))).Raw(")</h2>\n<p class=\"explain\">")
		if sec.Title == "Skipped stages" {
			w.Raw("Their output was there already (a shuffle an earlier job wrote): they ran no task. ")
		} else {
			w.Raw("Never submitted: they ran no task. ")
		}
		for i, sd := range sec.Stages {
			if i > 0 {
				w.Raw(", ")
			}
			w.Text(stageName(sd.StageID, sd.AttemptID)).Raw(" <span class=\"explain\">(").Text(clip(sd.Name, 40)).Raw(")</span>")
		}
		w.Raw("</p>\n")
	}
}

// firstOf is the first line of s.
func firstOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// sizeOr is a size, "" for none (as the History Server leaves the cell).
func sizeOr(n int64) string {
	if n == 0 {
		return ""
	}
	return size(n)
}

// quantileRow is one row of a stage's summary metrics.
type quantileRow struct {
	name string
	vals shs.Doubles
	unit string // ms, bytes, count
	// with, for a size, the records beside it.
	with shs.Doubles
}

// writeStage writes a stage attempt's page.
func writeStage(w *htmlw.Writer, d *stageData) {
	sd := &d.Stage
	w.Raw("<h2>Stage ").Text(stageName(sd.StageID, sd.AttemptID)).Raw(" <small>").Text(strings.ToLower(sd.Status)).Raw("</small></h2>\n<p class=\"meta\">").Text(sd.Name)
	if len(d.Jobs) > 0 {
		w.Raw(" · jobs ")
		for i, j := range d.Jobs {
			if i > 0 {
				w.Raw(", ")
			}
			w.Raw(`<a href="`).URL(d.s.link("jobs", nil) + "#job-" + strconv.Itoa(int(j))).Raw(`">`).Int(int64(j)).Raw("</a>")
		}
	}
	w.Raw(` · <a href="/api/v1/`).URL(fmt.Sprintf("%s/stages/%d/%d", d.s.base, sd.StageID, sd.AttemptID)).Raw(`">API</a></p>` + "\n<div class=\"cards\">")
	card := func(k, v, sub string) {
		w.Raw(`<div class="card"><div class="k">`).Text(k).Raw(`</div><div class="v">`).Text(v).Raw(`</div><div class="d">`).Text(sub).Raw("</div></div>")
	}
	card("tasks", fmt.Sprintf("%d/%d", sd.NumCompleteTasks, sd.NumTasks), fmt.Sprintf("%d failed, %d killed, %d running", sd.NumFailedTasks, sd.NumKilledTasks, sd.NumActiveTasks))
	card("duration", ms(stageMs(*sd)), "submitted "+date(sd.SubmissionTime))
	card("task time (executor run)", ms(sd.ExecutorRunTime), "GC "+ms(sd.JVMGCTime))
	card("input", size(sd.InputBytes), fmt.Sprintf("%d records", sd.InputRecords))
	card("output", size(sd.OutputBytes), fmt.Sprintf("%d records", sd.OutputRecords))
	card("shuffle read", size(sd.ShuffleReadBytes), fmt.Sprintf("%d records", sd.ShuffleReadRecords))
	card("shuffle write", size(sd.ShuffleWriteBytes), fmt.Sprintf("%d records", sd.ShuffleWriteRecords))
	card("spill", size(sd.MemoryBytesSpilled), "memory; disk "+size(sd.DiskBytesSpilled))
	w.Raw("</div>\n")
	if sd.FailureReason != nil {
		w.Raw("<details><summary>Why it failed</summary><pre>").Text(*sd.FailureReason).Raw("</pre></details>\n")
	}
	// Summary metrics, as the History Server's stage page shows them.
	if d.Summary == nil {
		w.Raw(`<h2>Summary metrics</h2><p class="explain">`).Text(d.NoSummary).Raw("</p>\n")
	} else {
		s := d.Summary
		w.Raw("<h2>Summary metrics for ").Int(sd.NumCompleteTasks).Raw(" completed tasks</h2>\n<div data-chart=\"stage-quantiles\"></div>\n" +
			`<table class="grid"><tr><th>metric</th><th class="num">min</th><th class="num">25th percentile</th><th class="num">median</th><th class="num">75th percentile</th><th class="num">max</th></tr>` + "\n")
		// "Duration" is the executor's run time, as on the History Server's
		// stage page; the attempt's wall time from launch to end follows.
		rows := []quantileRow{
			{"Duration", s.ExecutorRunTime, "ms", nil},
			{"Task time, launch to end", s.Duration, "ms", nil},
			{"Scheduler delay", s.SchedulerDelay, "ms", nil},
			{"Task deserialization time", s.ExecutorDeserializeTime, "ms", nil},
			{"GC time", s.JVMGCTime, "ms", nil},
			{"Result serialization time", s.ResultSerializationTime, "ms", nil},
			{"Getting result time", s.GettingResultTime, "ms", nil},
			{"Peak execution memory", s.PeakExecutionMemory, "bytes", nil},
			{"Input size / records", s.InputMetrics.BytesRead, "bytes", s.InputMetrics.RecordsRead},
			{"Output size / records", s.OutputMetrics.BytesWritten, "bytes", s.OutputMetrics.RecordsWritten},
			{"Shuffle read blocked time", s.ShuffleReadMetrics.FetchWaitTime, "ms", nil},
			{"Shuffle read size / records", s.ShuffleReadMetrics.ReadBytes, "bytes", s.ShuffleReadMetrics.ReadRecords},
			{"Shuffle remote reads", s.ShuffleReadMetrics.RemoteBytesRead, "bytes", nil},
			{"Shuffle write time", s.ShuffleWriteMetrics.WriteTime, "ns", nil},
			{"Shuffle write size / records", s.ShuffleWriteMetrics.WriteBytes, "bytes", s.ShuffleWriteMetrics.WriteRecords},
			{"Spill (memory)", s.MemoryBytesSpilled, "bytes", nil},
			{"Spill (disk)", s.DiskBytesSpilled, "bytes", nil},
		}
		for _, r := range rows {
			if allZero(r.vals) && r.name != "Duration" {
				continue // as the History Server leaves out what no task had
			}
			w.Raw("<tr><td>").Text(r.name).Raw("</td>")
			for i := range 5 {
				w.Raw(`<td class="num">`)
				if i < len(r.vals) {
					w.Text(summaryValue(r.vals[i], r.unit))
					if i < len(r.with) {
						w.Raw(" / ").Text(summaryValue(r.with[i], "count"))
					}
				}
				w.Raw("</td>")
			}
			w.Raw("</tr>\n")
		}
		w.Raw("</table>\n")
	}
	// Aggregated metrics by executor.
	w.Raw("<h2>Aggregated metrics by executor (").Int(int64(len(d.Execs))).Raw(")</h2>\n" +
		`<table class="grid"><tr><th>executor</th><th>address</th><th class="num">task time</th><th class="num">tasks</th><th class="num">failed</th><th class="num">killed</th><th class="num">succeeded</th>` +
		`<th class="num">input</th><th class="num">output</th><th class="num">shuffle read</th><th class="num">shuffle write</th><th class="num">spill (memory)</th><th class="num">spill (disk)</th><th>excluded</th></tr>` + "\n")
	for _, e := range d.Execs {
		m := &e.Summary
		w.Raw("<tr><td>").Text(e.ExecutorID).Raw("</td><td>").Text(d.Hosts[e.ExecutorID]).Raw(`</td><td class="num">`).Text(ms(m.TaskTime)).
			Raw(`</td><td class="num">`).Int(m.FailedTasks + m.SucceededTasks + m.KilledTasks).Raw(`</td><td class="num">`).Int(m.FailedTasks).
			Raw(`</td><td class="num">`).Int(m.KilledTasks).Raw(`</td><td class="num">`).Int(m.SucceededTasks).
			Raw(`</td><td class="num">`).Text(sizeOr(m.InputBytes)).Raw(`</td><td class="num">`).Text(sizeOr(m.OutputBytes)).
			Raw(`</td><td class="num">`).Text(sizeOr(m.ShuffleRead)).Raw(`</td><td class="num">`).Text(sizeOr(m.ShuffleWrite)).
			Raw(`</td><td class="num">`).Text(sizeOr(m.MemoryBytesSpilled)).Raw(`</td><td class="num">`).Text(sizeOr(m.DiskBytesSpilled)).Raw("</td><td>")
		if m.IsExcludedForStage {
			w.Raw("excluded")
		}
		w.Raw("</td></tr>\n")
	}
	w.Raw("</table>\n")
	// Tasks, a page at a time.
	total := sd.NumCompleteTasks + sd.NumFailedTasks + sd.NumKilledTasks + sd.NumActiveTasks
	w.Raw("<h2>Tasks (").Int(total).Raw(")</h2>\n<p class=\"meta\">order: ")
	for _, o := range [][2]string{{"ID", "task id"}, {"-runtime", "longest first"}, {"runtime", "shortest first"}} {
		if o[0] == d.Sort {
			w.Raw("<b>").Text(o[1]).Raw("</b> ")
			continue
		}
		w.Raw(`<a href="`).URL(d.s.link(fmt.Sprintf("stage/%d/%d", sd.StageID, sd.AttemptID), url.Values{"sort": {o[0]}})).Raw(`">`).Text(o[1]).Raw("</a> ")
	}
	w.Raw("</p>\n" + `<div class="wide"><table class="grid compact"><tr><th>index</th><th>task</th><th>attempt</th><th>status</th><th>locality</th><th>executor</th><th>host</th><th>launched</th>` +
		`<th class="num">duration</th><th class="num">GC time</th><th class="num">scheduler delay</th><th class="num">input</th><th class="num">shuffle read</th><th class="num">shuffle write</th><th class="num">spill (disk)</th><th>error</th></tr>` + "\n")
	for _, t := range d.Tasks {
		w.Raw("<tr><td>").Int(int64(t.Index)).Raw("</td><td>").Int(t.TaskID).Raw("</td><td>").Int(int64(t.Attempt))
		if t.Speculative {
			w.Raw(" (speculative)")
		}
		w.Raw("</td><td>").Text(t.Status).Raw("</td><td>").Text(t.TaskLocality).Raw("</td><td>").Text(t.ExecutorID).Raw("</td><td>").Text(t.Host).
			Raw(`</td><td class="when">`).Text(when(int64(t.LaunchTime))).Raw(`</td><td class="num">`)
		if t.Duration != nil {
			w.Text(ms(*t.Duration))
		}
		w.Raw(`</td><td class="num">`)
		if m := t.TaskMetrics; m != nil {
			sr := m.ShuffleReadMetrics.RemoteBytesRead + m.ShuffleReadMetrics.LocalBytesRead
			w.Text(msOr(m.JVMGCTime)).Raw(`</td><td class="num">`).Text(ms(t.SchedulerDelay)).Raw(`</td><td class="num">`).Text(sizeOr(m.InputMetrics.BytesRead)).
				Raw(`</td><td class="num">`).Text(sizeOr(sr)).Raw(`</td><td class="num">`).Text(sizeOr(m.ShuffleWriteMetrics.BytesWritten)).
				Raw(`</td><td class="num">`).Text(sizeOr(m.DiskBytesSpilled))
		} else {
			w.Raw(`</td><td class="num"></td><td class="num"></td><td class="num"></td><td class="num"></td><td class="num">`)
		}
		w.Raw("</td><td>")
		if t.ErrorMessage != nil {
			w.Raw("<details><summary>").Text(clip(firstOf(*t.ErrorMessage), 60)).Raw("</summary><pre>").Text(*t.ErrorMessage).Raw("</pre></details>")
		}
		w.Raw("</td></tr>\n")
	}
	w.Raw("</table></div>\n<div class=\"pager\">")
	page := func(p int) string {
		return d.s.link(fmt.Sprintf("stage/%d/%d", sd.StageID, sd.AttemptID), url.Values{"sort": {d.Sort}, "page": {strconv.Itoa(p)}})
	}
	prev, next := "", ""
	if d.Page > 1 {
		prev = page(d.Page - 1)
	}
	if d.Page < d.Pages {
		next = page(d.Page + 1)
	}
	writePager(w, prev, next)
	w.Raw(" page ").Int(int64(d.Page)).Raw(" of ").Int(int64(d.Pages)).Raw("</div>\n")
}

// msOr is a duration, "" for none.
func msOr(v int64) string {
	if v == 0 {
		return ""
	}
	return ms(v)
}

func allZero(vs shs.Doubles) bool {
	for _, v := range vs {
		if v != 0 && !isNaN(v) {
			return false
		}
	}
	return true
}

// summaryValue formats one summary value; Spark's "NaN" (an index with fewer
// tasks than the position) prints as "-".
func summaryValue(v float64, unit string) string {
	if isNaN(v) {
		return "-"
	}
	switch unit {
	case "ms":
		return ms(int64(v + 0.5))
	case "ns":
		return ms(int64(v/1e6 + 0.5))
	case "bytes":
		return size(int64(v + 0.5))
	}
	return strconv.FormatInt(int64(v+0.5), 10)
}

// writeExecutors writes the executors page.
func writeExecutors(w *htmlw.Writer, d *executorsData) {
	w.Raw("<h2>Summary</h2>\n")
	execHead(w, false)
	execRow(w, d.s, &d.Active, fmt.Sprintf("Active (%d)", d.NActive), false)
	execRow(w, d.s, &d.All, fmt.Sprintf("Total (%d)", d.NAll), false)
	w.Raw("</table></div>\n<div data-chart=\"executor-time\"></div>\n<h2>Executors</h2>\n")
	execHead(w, d.Peaks)
	for i := range d.Execs {
		execRow(w, d.s, &d.Execs[i], "", d.Peaks)
	}
	w.Raw("</table></div>\n<div class=\"pager\">")
	prev, next := "", ""
	if d.Page > 1 {
		prev = d.s.link("executors", url.Values{"page": {strconv.Itoa(d.Page - 1)}})
	}
	if d.Page < d.Pages {
		next = d.s.link("executors", url.Values{"page": {strconv.Itoa(d.Page + 1)}})
	}
	writePager(w, prev, next)
	w.Raw(" page ").Int(int64(d.Page)).Raw(" of ").Int(int64(d.Pages)).Raw("</div>\n")
}

func execHead(w *htmlw.Writer, peaks bool) {
	w.Raw(`<div class="wide"><table class="grid compact"><tr><th>executor</th><th>address</th><th>status</th><th class="num">cores</th><th class="num">storage memory</th>` +
		`<th class="num">active tasks</th><th class="num">failed tasks</th><th class="num">complete tasks</th><th class="num">total tasks</th>` +
		`<th class="num">task time (GC time)</th><th class="num">input</th><th class="num">shuffle read</th><th class="num">shuffle write</th>`)
	if peaks {
		w.Raw(`<th class="num">peak JVM heap / off-heap</th>`)
	}
	w.Raw("<th>logs</th></tr>\n")
}

// execRow writes one executor, or a summary row when label is set.
func execRow(w *htmlw.Writer, s *sparkApp, e *shs.ExecutorSummary, label string, peaks bool) {
	w.Raw(`<tr id="executor-`).Text(e.ID).Raw(`"><td>`)
	if label != "" {
		w.Text(label).Raw("</td><td></td><td>")
	} else {
		w.Text(e.ID).Raw("</td><td>").Text(e.HostPort).Raw("</td><td>")
		switch {
		case e.IsActive:
			w.Raw("active")
		case e.RemoveReason != nil:
			w.Raw(`<span title="`).Text(*e.RemoveReason).Raw(`">dead: `).Text(clip(*e.RemoveReason, 30)).Raw("</span>")
		default:
			w.Raw("dead")
		}
		if e.IsExcluded {
			w.Raw(" (excluded)")
		}
	}
	w.Raw(`</td><td class="num">`).Int(int64(e.TotalCores)).Raw(`</td><td class="num">`).Text(size(e.MemoryUsed)).Raw(" / ").Text(size(e.MaxMemory)).
		Raw(`</td><td class="num">`).Int(e.ActiveTasks).Raw(`</td><td class="num">`).Int(e.FailedTasks).Raw(`</td><td class="num">`).Int(e.CompletedTasks).
		Raw(`</td><td class="num">`).Int(e.TotalTasks).Raw(`</td><td class="num">`).Text(ms(e.TotalDuration)).Raw(" (").Text(ms(e.TotalGCTime)).Raw(")").
		Raw(`</td><td class="num">`).Text(size(e.TotalInputBytes)).Raw(`</td><td class="num">`).Text(size(e.TotalShuffleRead)).
		Raw(`</td><td class="num">`).Text(size(e.TotalShuffleWrite)).Raw("</td>")
	if peaks {
		w.Raw(`<td class="num">`)
		if p := e.PeakMemoryMetrics; p != nil && p.Set {
			w.Text(size(p.Values[0])).Raw(" / ").Text(size(p.Values[1]))
		}
		w.Raw("</td>")
	}
	w.Raw("<td>")
	for _, l := range e.ExecutorLogs {
		if strings.HasPrefix(l.Value, "http://") || strings.HasPrefix(l.Value, "https://") {
			w.Raw(`<a href="`).URL(l.Value).Raw(`" rel="noreferrer">`).Text(l.Key).Raw("</a> ")
		}
	}
	w.Raw("</td></tr>\n")
}

// writeEnvironment writes the environment page.
func writeEnvironment(w *htmlw.Writer, env *shs.ApplicationEnvironmentInfo) {
	w.Raw("<h2>Runtime information</h2>\n<table class=\"grid\"><tr><th>name</th><th>value</th></tr>\n")
	for _, kv := range [][2]*string{{ptr("Java version"), env.Runtime.JavaVersion}, {ptr("Java home"), env.Runtime.JavaHome}, {ptr("Scala version"), env.Runtime.ScalaVersion}} {
		w.Raw("<tr><td>").Text(*kv[0]).Raw("</td><td>")
		if kv[1] != nil {
			w.Text(*kv[1])
		}
		w.Raw("</td></tr>\n")
	}
	w.Raw("</table>\n")
	section := func(title string, ts shs.Tuples, open bool) {
		w.Raw("<details")
		if open {
			w.Raw(" open")
		}
		w.Raw("><summary><h2 class=\"inline\">").Text(title).Raw(" (").Int(int64(len(ts))).Raw(")</h2></summary>\n<table class=\"grid\"><tr><th>name</th><th>value</th></tr>\n")
		for _, t := range ts {
			w.Raw("<tr><td>").Text(t.Key).Raw("</td><td>").Text(t.Value).Raw("</td></tr>\n")
		}
		w.Raw("</table></details>\n")
	}
	section("Spark properties", env.SparkProperties, true)
	w.Raw("<h2>Resource profiles (").Int(int64(len(env.ResourceProfiles))).Raw(")</h2>\n<table class=\"grid\"><tr><th>profile</th><th>executor resources</th><th>task resources</th></tr>\n")
	for _, rp := range env.ResourceProfiles {
		w.Raw("<tr><td>").Int(int64(rp.ID)).Raw("</td><td>")
		for _, r := range rp.ExecutorResources {
			w.Text(r.ResourceName).Raw(": ").Int(r.Amount).Raw("; ")
		}
		w.Raw("</td><td>")
		for _, r := range rp.TaskResources {
			w.Text(r.ResourceName).Raw(": ").Text(strconv.FormatFloat(r.Amount, 'g', -1, 64)).Raw("; ")
		}
		w.Raw("</td></tr>\n")
	}
	w.Raw("</table>\n")
	section("Hadoop properties", env.HadoopProperties, false)
	section("System properties", env.SystemProperties, false)
	section("Metrics properties", env.MetricsProperties, false)
	section("Classpath entries", env.ClasspathEntries, false)
}

func ptr(s string) *string { return &s }

// writeStorage writes the storage page.
func writeStorage(w *htmlw.Writer, d *storageData) {
	w.Raw("<h2>RDDs (").Int(int64(d.RDDs)).Raw(")</h2>\n<p class=\"explain\">")
	if d.RDDs == 0 {
		w.Raw("No cached RDD is recorded: the History Server's Storage tab comes from block updates, which an event log records only with " +
			"<code>spark.eventLog.logBlockUpdates.enabled=true</code> (")
		if d.LogsBlocks == "" {
			w.Raw("not set for this application")
		} else {
			w.Raw("set to ").Text(d.LogsBlocks).Raw(" here; clusterlens does not read block updates yet")
		}
		w.Raw("). What the executors reported of their storage memory follows.")
	}
	w.Raw("</p>\n<h2>Storage memory of each executor</h2>\n" +
		`<table class="grid"><tr><th>executor</th><th>address</th><th class="num">storage memory available</th><th class="num">used at the end</th><th class="num">peak on-heap storage</th><th class="num">peak off-heap storage</th><th class="num">disk used</th><th class="num">RDD blocks</th></tr>` + "\n")
	for _, e := range d.Execs {
		w.Raw("<tr><td>").Text(e.ID).Raw("</td><td>").Text(e.HostPort).Raw(`</td><td class="num">`).Text(size(e.MaxMemory)).Raw(`</td><td class="num">`).Text(size(e.MemoryUsed)).Raw(`</td><td class="num">`)
		if p := e.PeakMemoryMetrics; p != nil && p.Set {
			w.Text(size(p.Values[model.ExecutorMetricIndex("OnHeapStorageMemory")])).Raw(`</td><td class="num">`).Text(size(p.Values[model.ExecutorMetricIndex("OffHeapStorageMemory")]))
		} else {
			w.Raw(`</td><td class="num">`)
		}
		w.Raw(`</td><td class="num">`).Text(size(e.DiskUsed)).Raw(`</td><td class="num">`).Int(e.RDDBlocks).Raw("</td></tr>\n")
	}
	w.Raw("</table>\n")
}

// writeSQLList writes the SQL tab.
func writeSQLList(w *htmlw.Writer, d *sqlListData) {
	if d.Chart {
		w.Raw("<div data-chart=\"sql-durations\"></div>\n")
	}
	w.Raw("<h2>Queries (").Int(int64(len(d.Queries))).Raw(")</h2>\n")
	writeSQLRows(w, d.s, d.Queries)
	if len(d.Commands) > 0 {
		w.Raw("<details><summary><h2 class=\"inline\">Commands that ran no job (").Int(int64(len(d.Commands))).Raw(": ")
		for i, c := range d.ByCmd {
			if i > 0 {
				w.Raw(", ")
			}
			w.Text(c[0]).Raw(" ×").Text(c[1])
		}
		w.Raw(")</h2></summary>\n")
		writeSQLRows(w, d.s, d.Commands)
		w.Raw("</details>\n")
	}
}

func writeSQLRows(w *htmlw.Writer, s *sparkApp, rows []sqlRow) {
	w.Raw(`<table class="grid"><tr><th>query</th><th>status</th><th>description</th><th>submitted</th><th class="num">duration</th><th>jobs</th></tr>` + "\n")
	for _, q := range rows {
		w.Raw(`<tr><td><a href="`).URL(s.link("sql/"+strconv.FormatInt(q.ID, 10), nil)).Raw(`">`).Int(q.ID).Raw("</a></td><td>").Text(strings.ToLower(q.Status)).
			Raw("</td><td>").Text(clip(q.Description, 120)).Raw(`</td><td class="when">`).Text(whenOr(q.Submitted)).Raw(`</td><td class="num">`).Text(ms(q.DurationMs)).Raw("</td><td>")
		writeJobLinks(w, s, q.SQLSummary)
		w.Raw("</td></tr>\n")
	}
	if len(rows) == 0 {
		w.Raw("<tr><td colspan=\"6\">None.</td></tr>\n")
	}
	w.Raw("</table>\n")
}

// writeJobLinks writes an execution's jobs, each linked to its stages.
func writeJobLinks(w *htmlw.Writer, s *sparkApp, sm shs.SQLSummary) {
	for _, g := range []struct {
		what string
		ids  []int32
	}{{"", sm.Success}, {"failed ", sm.Failed}, {"running ", sm.Running}} {
		for _, id := range g.ids {
			w.Raw(`<a href="`).URL(s.link("stages", url.Values{"job": {strconv.Itoa(int(id))}})).Raw(`">`).Text(g.what).Int(int64(id)).Raw("</a> ")
		}
	}
}

// whenOr is a time, "-" when unknown (-1 or 0).
func whenOr(t int64) string {
	if t <= 0 {
		return "-"
	}
	return when(t)
}

// writeSQL writes one SQL execution's page.
func writeSQL(w *htmlw.Writer, d *sqlData) {
	x := d.X
	w.Raw("<h2>Query ").Int(x.ID).Raw(" <small>").Text(strings.ToLower(d.Sum.Status)).Raw("</small></h2>\n<p class=\"meta\">").Text(x.Description).
		Raw(" · submitted ").Text(whenOr(d.Sum.Submitted)).Raw(" · duration ").Text(ms(d.Sum.DurationMs)).Raw(" · jobs ")
	writeJobLinks(w, d.s, d.Sum)
	w.Raw(` · <a href="/api/v1/`).URL(d.s.base + "/sql/" + strconv.FormatInt(x.ID, 10)).Raw(`">API</a></p>` + "\n")
	if x.HasError && x.Error != "" {
		w.Raw("<details><summary>Why it failed</summary><pre>").Text(x.Error).Raw("</pre></details>\n")
	}
	w.Raw("<h2>Plan</h2>\n<p class=\"explain\">Data flows down from the scans to the result, as on the History Server's SQL page; " +
		"a frame is a WholeStageCodegen stage, whose operators run fused. Each box shows its first metrics (hover for all); the table below lists every one.</p>\n")
	writePlanGraph(w, d.Layout, func(id int32) string { return "#op-" + strconv.Itoa(int(id)) })
	w.Raw("<h2>Operators (").Int(int64(len(d.Nodes))).Raw(")</h2>\n" +
		`<table class="grid"><tr><th>node</th><th>operator</th><th>codegen stage</th><th>metrics</th></tr>` + "\n")
	for _, n := range d.Nodes {
		w.Raw(`<tr id="op-`).Int(n.ID).Raw(`"><td><a href="#node-`).Int(n.ID).Raw(`">`).Int(n.ID).Raw("</a></td><td>").Text(n.Name).Raw("</td><td>")
		if n.CodegenID > 0 {
			w.Int(n.CodegenID)
		}
		w.Raw("</td><td>")
		for _, m := range n.Metrics {
			w.Raw("<div>").Text(m.Key).Raw(": <span class=\"v\">").Text(m.Value).Raw("</span></div>")
		}
		w.Raw("</td></tr>\n")
	}
	w.Raw("</table>\n")
	if pd := x.PlanDescription.String(); pd != "" {
		w.Raw("<details><summary><h2 class=\"inline\">Physical plan</h2></summary><pre>").Text(pd).Raw("</pre></details>\n")
	}
}
