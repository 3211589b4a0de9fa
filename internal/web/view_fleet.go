package web

import (
	"fmt"
	why "github.com/clusterlens/clusterlens/internal/explain"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/report"
)

// writeFleet writes the fleet page.
func writeFleet(w *htmlw.Writer, d *fleetData) {
	w.Raw("<h1>Fleet <small>").Int(int64(d.Matched)).Raw(" of ").Int(int64(d.Total)).Raw(" runs match</small></h1>\n" +
		"<form class=\"filter\" method=\"get\" action=\"/fleet\">\n<label>name contains<input name=\"name\" value=\"").Text(d.Q.Name).Raw("\" size=\"18\"></label>\n")
	writeSelect(w, "user", "user", d.Users, d.Q.User)
	writeSelect(w, "status", "status", d.Statuses, d.Q.Status)
	writeSelect(w, "platform", "platform", d.Platforms, d.Q.Platform)
	writeSelect(w, "worst finding at least", "severity", d.Severity, d.Q.Severity.String())
	w.Raw(`<input type="hidden" name="sort" value="`).Text(d.Q.Sort).Raw(`">`)
	if d.Q.Asc {
		w.Raw(`<input type="hidden" name="order" value="asc">`)
	}
	w.Raw("\n<button type=\"submit\">Filter</button> <a href=\"/fleet\">clear</a>\n</form>\n<div data-chart=\"fleet-runs\"></div>\n<div data-chart=\"fleet-durations\"></div>\n" +
		"<h2>Runs <small class=\"explain\">page ").Int(int64(d.Q.Page)).Raw(" of ").Int(int64(d.Pages)).Raw("; click a column to sort</small></h2>\n<table class=\"grid\"><tr>")
	for _, h := range d.Heads {
		w.Raw("<th")
		if h.Num {
			w.Raw(` class="num"`)
		}
		w.Raw(">")
		if h.URL == "" {
			w.Text(h.Name).Raw("</th>")
			continue
		}
		w.Raw(`<a href="`).URL(h.URL).Raw(`"`)
		if h.On {
			w.Raw(` class="on"`)
		}
		w.Raw(">").Text(h.Name)
		if h.On && d.Q.Asc {
			w.Raw(" ▲")
		} else if h.On {
			w.Raw(" ▼")
		}
		w.Raw("</a></th>")
	}
	w.Raw("</tr>\n")
	for _, r := range d.Rows {
		w.Raw("<tr><td>").Text(when(r.Start)).Raw("</td><td>")
		if r.Spark {
			w.Raw(`<a href="/app/`).URLPart(r.ID)
			if r.Attempt != "" {
				w.Raw("?attempt=").Query(r.Attempt)
			}
			w.Raw(`">`).Text(r.ID).Raw("</a>")
		} else {
			w.Text(r.ID)
		}
		w.Raw("</td><td>").Text(r.Name).Raw("</td><td>").Text(r.User).Raw("</td><td>").Text(r.Platform).Raw("</td>\n")
		writeStatus(w, r.Status)
		w.Raw(`<td class="num">`).Text(report.RunDuration(r.End, r.DurationMs)).Raw("</td>")
		writeWorst(w, r.Worst)
		w.Raw("\n<td>")
		if r.Job != nil {
			w.Raw(`<a href="/job/`).URLPart(r.Job.ID).Raw(`">`).Int(int64(r.Job.Runs)).Raw(" runs</a>")
		}
		w.Raw("</td></tr>\n")
	}
	if len(d.Rows) == 0 {
		w.Raw("<tr><td colspan=\"9\">No run matches.</td></tr>\n")
	}
	w.Raw("</table>\n<div class=\"pager\">")
	writePager(w, d.Prev, d.Next)
	w.Raw("</div>\n")
	if len(d.Jobs) > 0 {
		w.Raw("<h2>Recurring jobs (the most run)</h2>\n<table class=\"grid\"><tr><th>job</th><th class=\"num\">runs</th><th>last run</th>" +
			"<th class=\"num\">median duration</th><th class=\"num\">last duration</th><th class=\"num\">trend</th></tr>\n")
		for _, j := range d.Jobs {
			w.Raw(`<tr><td><a href="/job/`).URLPart(j.ID).Raw(`">`).Text(j.Name).Raw(`</a></td><td class="num">`).Int(int64(j.Runs)).
				Raw("</td><td>").Text(when(j.Last)).Raw(`</td><td class="num">`).Text(ms(j.MedianMs)).Raw(`</td><td class="num">`).Text(ms(j.LastMs)).
				Raw("</td>\n<td class=\"num\">")
			if j.Trend.Runs >= history.MinTrendRuns {
				w.Text(signed(j.Trend.Change)).Raw(" over ").Text(ms(j.Trend.SpanMs))
			} else {
				w.Raw("-")
			}
			w.Raw("</td></tr>\n")
		}
		w.Raw("</table>")
	}
	w.Raw("\n")
}

// writeSelect writes a labelled drop-down of the filter form: "any",
// then the options, the one equal to on selected.
func writeSelect(w *htmlw.Writer, label, name string, options []string, on string) {
	w.Raw("<label>").Text(label).Raw(`<select name="`).Text(name).Raw(`"><option value="">any</option>`)
	for _, o := range options {
		w.Raw("<option")
		if o == on {
			w.Raw(" selected")
		}
		w.Raw(">").Text(o).Raw("</option>")
	}
	w.Raw("</select></label>\n")
}

// writeStatus writes a run's status cell.
func writeStatus(w *htmlw.Writer, s history.Status) {
	w.Raw(`<td class="status `).Text(string(s)).Raw(`">`).Text(string(s)).Raw("</td>")
}

// writeWorst writes the cell of a run's worst finding.
func writeWorst(w *htmlw.Writer, s finding.Severity) {
	if s == finding.None {
		w.Raw("<td>-</td>")
		return
	}
	w.Raw(`<td><span class="sev `).Text(s.String()).Raw(`">`).Text(s.String()).Raw("</span></td>")
}

// writeJob writes a recurring job's page.
func writeJob(w *htmlw.Writer, d *jobData) {
	j := d.Job
	w.Raw("<h1>").Text(j.Name).Raw(" <small>recurring job ").Text(j.ID).Raw(", ").Int(int64(d.RunsAll)).Raw(" runs</small></h1>\n<div class=\"cards\">\n" +
		`<div class="card"><div class="k">Runs</div><div class="v">`).Int(int64(j.Runs)).Raw(`</div><div class="d">`).Text(when(j.First)).Raw(" → ").Text(when(j.Last)).
		Raw("</div></div>\n" + `<div class="card"><div class="k">Median duration</div><div class="v">`).Text(ms(j.MedianMs)).Raw(`</div><div class="d">last `).Text(ms(j.LastMs)).
		Raw("</div></div>\n" + `<div class="card"><div class="k">Trend</div><div class="v">`)
	if j.Trend.Runs >= history.MinTrendRuns {
		w.Text(signed(j.Trend.Change))
	} else {
		w.Raw("-")
	}
	w.Raw(`</div><div class="d">latest third of `).Int(int64(j.Trend.Runs)).Raw(" finished runs against the earliest</div></div>\n" +
		`<div class="card"><div class="k">Predicted next run</div>`)
	if p := d.Predicted; p != nil {
		w.Raw(`<div class="v">`).Text(msf(p.Value)).Raw(`</div><div class="d">`).Text(msf(p.Lower)).Raw(" – ").Text(msf(p.Upper)).
			Raw(" (").Text(p.Model).Raw(", ").Text(num(p.Machines)).Raw(" hosts)")
		if p.Extrapolated {
			w.Raw(", extrapolated")
		}
		w.Raw("</div>")
	} else {
		w.Raw(`<div class="v">-</div><div class="d">`).Text(d.NoPredict).Raw("</div>")
	}
	w.Raw("</div>\n</div>\n")
	if p := d.Predicted; p != nil {
		for _, n := range p.Notes {
			w.Raw(`<p class="explain">`).Text(n).Raw("</p>")
		}
	}
	w.Raw("\n<div data-chart=\"job-runs\"></div>\n")
	if len(d.Regressions) > 0 {
		w.Raw("<h2 id=\"regressions\">Slower than usual (the latest ").Int(int64(len(d.Regressions))).Raw(")</h2>\n")
		for _, e := range d.Regressions {
			w.Raw("<h3>").Text(when(e.Run.Start)).Raw(" · ").Text(e.Run.ID).Raw("</h3>\n")
			writeExplanation(w, e)
		}
	}
	w.Raw("<h2>Runs (newest first")
	if len(d.Runs) < d.RunsAll {
		w.Raw(", ").Int(int64(len(d.Runs))).Raw(" of ").Int(int64(d.RunsAll))
	}
	w.Raw(")</h2>\n<table class=\"grid\"><tr><th>start</th><th>application</th><th>user</th><th>status</th><th class=\"num\">duration</th><th class=\"num\">against usual</th><th>worst finding</th><th></th></tr>\n")
	for i, r := range d.Runs {
		spark := r.Engine == "spark"
		w.Raw("<tr><td>").Text(when(r.Start)).Raw("</td><td>")
		if spark {
			w.Raw(`<a href="/app/`).URLPart(r.ID).Raw(`">`).Text(r.ID).Raw("</a>")
		} else {
			w.Text(r.ID)
		}
		w.Raw("</td><td>").Text(r.User).Raw("</td>")
		writeStatus(w, r.Status)
		w.Raw(`<td class="num">`).Text(report.RunDuration(r.End, r.DurationMs)).Raw("</td>\n")
		writeJudgment(w, d.Judged[i])
		writeWorst(w, r.Worst)
		w.Raw("\n<td>")
		if spark && i+1 < len(d.Runs) {
			w.Raw(`<a href="/compare?a=`).Query(d.Runs[i+1].ID).Raw("&amp;b=").Query(r.ID).Raw(`">compare with the run before</a>`)
		}
		w.Raw("</td></tr>\n")
	}
	w.Raw("</table>\n")
}

// writeJudgment writes the cell of a run's duration against its usual
// time: the ratio, marked when beyond the usual variation.
func writeJudgment(w *htmlw.Writer, j why.Judgment) {
	if j.Verdict == why.Unknown {
		w.Raw(`<td class="num">-</td>`)
		return
	}
	w.Raw(`<td class="num verdict `).Text(j.Verdict).Raw(`" title="usual `).Text(ms(j.UsualMs)).Raw(`">`).Text(fmt.Sprintf("%.2f×", j.Ratio))
	if j.Verdict != why.Usual {
		w.Raw(" ").Text(j.Verdict)
	}
	w.Raw("</td>")
}
