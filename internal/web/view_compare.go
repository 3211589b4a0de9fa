package web

import (
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/model"
)

// writeCompare writes the page comparing two runs.
func writeCompare(w *htmlw.Writer, d *compareData) {
	w.Raw("<h1>Compare two runs</h1>\n<form class=\"filter\" method=\"get\" action=\"/compare\">\n<label>run A (application id)<input name=\"a\" value=\"").Text(d.A).
		Raw("\" size=\"34\"></label>\n<label>run B (application id)<input name=\"b\" value=\"").Text(d.B).Raw("\" size=\"34\"></label>\n<button type=\"submit\">Compare</button>\n</form>\n")
	if d.AppA == nil || d.AppB == nil {
		w.Raw("<p class=\"message\">Name two runs: the ids of two applications read from the logs (the application pages and the fleet link here).</p>\n")
		return
	}
	w.Raw("\n<p class=\"meta\">A: ")
	writeRun(w, d.AppA)
	w.Raw(" · B: ")
	writeRun(w, d.AppB)
	w.Raw("</p>\n<h2>Sizes and totals</h2>\n")
	writeDiffRows(w, "measure", d.Totals, func(r diffRow, v int64) string { return measure(r.Kind, v) })
	w.Raw("\n")
	if len(d.Causes) > 0 {
		w.Raw("<h2>Where the time went (slot time by cause)</h2>\n<div data-chart=\"compare-causes\"></div>\n")
		writeDiffRows(w, "cause", d.Causes, func(_ diffRow, v int64) string { return ms(v) })
	}
	w.Raw("\n<h2>Stages matched by signature (").Int(int64(d.StagesAll)).Raw(" matched; the largest changes first)</h2>\n<div data-chart=\"compare-stages\"></div>\n" +
		`<table class="grid"><tr><th>stage A</th><th>stage B</th><th>name</th><th class="num">A</th><th class="num">B</th><th class="num">change</th><th class="num">input A</th><th class="num">input B</th><th class="num">tasks A</th><th class="num">tasks B</th><th class="num">median task A</th><th class="num">median task B</th></tr>` + "\n")
	for _, s := range d.Stages {
		w.Raw("<tr><td>").Int(int64(s.A.ID)).Raw(".").Int(int64(s.A.Attempt)).Raw("</td><td>").Int(int64(s.B.ID)).Raw(".").Int(int64(s.B.Attempt)).
			Raw("</td><td>").Text(s.B.Name).Raw(`</td><td class="num">`).Text(ms(s.A.DurationMs)).Raw(`</td><td class="num">`).Text(ms(s.B.DurationMs)).
			Raw(`</td><td class="num">`).Text(delta(s.DeltaMs)).Raw("</td>\n" + `<td class="num">`).Text(size(s.A.InputBytes)).Raw(`</td><td class="num">`).Text(size(s.B.InputBytes)).
			Raw(`</td><td class="num">`).Int(int64(s.A.Tasks)).Raw(`</td><td class="num">`).Int(int64(s.B.Tasks)).
			Raw(`</td><td class="num">`).Text(msf(s.A.Quantiles[2])).Raw(`</td><td class="num">`).Text(msf(s.B.Quantiles[2])).Raw("</td></tr>\n")
	}
	if len(d.Stages) == 0 {
		w.Raw("<tr><td colspan=\"12\">No stage of A has a stage of B with its signature.</td></tr>\n")
	}
	w.Raw("</table>\n")
	if len(d.OnlyA) > 0 || len(d.OnlyB) > 0 {
		w.Raw(`<p class="explain">Stages in one run only: `)
		writeOnly(w, "A", d.OnlyA)
		writeOnly(w, "B", d.OnlyB)
		w.Raw("</p>")
	}
	w.Raw("\n<h2>Nodes that changed</h2>\n" + `<table class="grid"><tr><th>host</th><th class="num">tasks A</th><th class="num">tasks B</th><th class="num">time against stage medians A</th><th class="num">B</th><th>why listed</th></tr>` + "\n")
	for _, n := range d.Nodes {
		w.Raw(`<tr><td><a href="/node/`).URLPart(n.Host).Raw(`">`).Text(n.Host).Raw(`</a></td><td class="num">`).Int(int64(n.TasksA)).Raw(`</td><td class="num">`).Int(int64(n.TasksB)).
			Raw(`</td><td class="num">`).Text(num(n.RatioA)).Raw(`</td><td class="num">`).Text(num(n.RatioB)).Raw("</td><td>").Text(n.Why).Raw("</td></tr>\n")
	}
	if len(d.Nodes) == 0 {
		w.Raw("<tr><td colspan=\"6\">The same hosts ran both, none more than 25% slower or faster against the stage medians.</td></tr>\n")
	}
	w.Raw("</table>\n<h2>Spark configuration that differs (").Int(int64(len(d.Config))).Raw(")</h2>\n<table class=\"grid\"><tr><th>property</th><th>A</th><th>B</th></tr>\n")
	for _, c := range d.Config {
		w.Raw("<tr><td>").Text(c.Key).Raw("</td><td>").Text(or(c.A, "(unset)")).Raw("</td><td>").Text(or(c.B, "(unset)")).Raw("</td></tr>\n")
	}
	if len(d.Config) == 0 {
		w.Raw("<tr><td colspan=\"3\">The same properties.</td></tr>\n")
	}
	w.Raw("</table>\n")
	if len(d.Queries) > 0 {
		w.Raw("<h2>SQL queries (").Int(int64(len(d.Queries))).Raw(" matched)</h2>\n" +
			`<table class="grid"><tr><th>query A</th><th>query B</th><th>description</th><th class="num">wall A</th><th class="num">wall B</th><th>plan</th><th>settings that differ</th></tr>` + "\n")
		for _, q := range d.Queries {
			w.Raw("<tr><td>").Int(q.A.Query).Raw("</td><td>").Int(q.B.Query).Raw("</td><td>").Text(q.A.Description).Raw(`</td><td class="num">`).Text(ms(q.WallMs[0])).
				Raw(`</td><td class="num">`).Text(ms(q.WallMs[1])).Raw("</td><td>")
			if q.SamePlan {
				w.Raw("same")
			} else {
				w.Raw("changed: ")
				for _, c := range q.PlanChanges {
					w.Text(c).Raw(" ")
				}
			}
			w.Raw("</td><td>")
			for _, c := range q.Configs {
				w.Text(c.Key).Raw(" ").Text(c.Val[0]).Raw(" → ").Text(c.Val[1]).Raw("; ")
			}
			w.Raw("</td></tr>\n")
		}
		w.Raw("</table>")
	}
	w.Raw("\n\n")
}

// writeRun writes a run of the comparison: its link, name and start.
func writeRun(w *htmlw.Writer, a *model.App) {
	w.Raw(`<a href="/app/`).URLPart(a.ID).Raw(`">`).Text(a.ID).Raw("</a> ").Text(a.Name).Raw(" (").Text(when(a.Start)).Raw(")")
}

// writeDiffRows writes a table of values in A and B and their change,
// the rows that changed much marked.
func writeDiffRows(w *htmlw.Writer, head string, rows []diffRow, format func(diffRow, int64) string) {
	w.Raw("<table class=\"grid\"><tr><th>").Text(head).Raw("</th><th class=\"num\">A</th><th class=\"num\">B</th><th class=\"num\">change</th></tr>\n")
	for _, r := range rows {
		w.Raw("<tr")
		if changed(r.Change) {
			w.Raw(` class="changed"`)
		}
		w.Raw("><td>").Text(r.Name).Raw(`</td><td class="num">`).Text(format(r, r.A)).Raw(`</td><td class="num">`).Text(format(r, r.B)).
			Raw(`</td><td class="num">`).Text(change(r.Change)).Raw("</td></tr>\n")
	}
	w.Raw("</table>")
}

// writeOnly writes the stages of one run that the other has not.
func writeOnly(w *htmlw.Writer, run string, stages []history.Stage) {
	for _, s := range stages {
		w.Raw(run).Raw(" ").Int(int64(s.ID)).Raw(" (").Text(s.Name).Raw(", ").Text(ms(s.DurationMs)).Raw("); ")
	}
}
