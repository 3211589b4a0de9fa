package web

import (
	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/report"
)

// writeApp writes the application page.
func writeApp(w *htmlw.Writer, d *appData) {
	w.Raw("<h1>").Text(d.Tables.Title).Raw(" <small>").Text(d.App.ID)
	if d.App.AttemptID != "" {
		w.Raw(" attempt ").Text(d.App.AttemptID)
	}
	w.Raw("</small></h1>\n<p class=\"meta\">")
	if len(d.Attempts) > 1 {
		w.Raw("attempts: ")
		for _, a := range d.Attempts {
			w.Raw(`<a href="/app/`).URLPart(a.ID).Raw(`?attempt=`).Query(a.AttemptID).Raw(`">`).Text(or(a.AttemptID, "(none)")).Raw("</a> ")
		}
		w.Raw(" · ")
	}
	w.Raw(`<a href="`).URL(d.CompareURL).Raw(`">compare with another run</a></p>` + "\n")
	writeTabs(w, d.s, "")
	writeFindingLinks(w, d.s, d.Findings)
	if d.Explained != nil || d.NotExplained != "" {
		w.Raw("<h2 id=\"usual\">Against its usual runs</h2>\n")
		if d.Explained != nil {
			writeExplanation(w, d.Explained)
		} else {
			w.Raw(`<p class="explain">`).Text(d.NotExplained).Raw("</p>\n")
		}
	}
	w.Raw("<h2>Task throughput and durations per ").Text(d.Bin).Raw("</h2>\n<p class=\"explain\">Task attempts ended in each ").Text(d.Bin).
		Raw(", and the quantiles of their durations (computed on the server from every attempt).</p>\n" +
			"<div data-chart=\"app-throughput\"></div>\n<div data-chart=\"app-durations\"></div>\n<noscript><table class=\"grid\"><tr><th>").Text(d.Bin).
		Raw(`</th><th class="num">ended</th><th class="num">failed</th><th class="num">median</th><th class="num">90th</th><th class="num">99th</th><th class="num">max</th></tr>` + "\n")
	for _, m := range d.MinutesShown {
		w.Raw("<tr><td>").Text(when(m.Start)).Raw(`</td><td class="num">`).Int(int64(m.Finished)).Raw(`</td><td class="num">`).Int(int64(m.Failed)).
			Raw(`</td><td class="num">`).Text(ms(m.P50)).Raw(`</td><td class="num">`).Text(ms(m.P90)).Raw(`</td><td class="num">`).Text(ms(m.P99)).
			Raw(`</td><td class="num">`).Text(ms(m.Max)).Raw("</td></tr>\n")
	}
	w.Raw("</table>")
	if len(d.MinutesShown) < len(d.Minutes) {
		w.Raw(`<p class="explain">`).Int(int64(len(d.MinutesShown))).Raw(" of ").Int(int64(len(d.Minutes))).Raw(" minutes listed.</p>")
	}
	w.Raw("</noscript>\n<nav class=\"toc\" id=\"toc\" hidden></nav>\n<div id=\"report\"></div>\n<noscript>")
	report.WriteTables(w, d.Tables)
	w.Raw("</noscript>\n")
}

// writeApps writes the applications page.
func writeApps(w *htmlw.Writer, d *appsData) {
	w.Raw("<h1>Applications <small>").Int(int64(d.Matched)).Raw(" of ").Int(int64(d.All)).Raw(" read from the logs")
	if d.Unread != 0 {
		w.Raw("; ").Int(int64(d.Unread)).Raw(" logs not read in full yet")
	}
	w.Raw("</small></h1>\n<form class=\"filter\" method=\"get\" action=\"/apps\">\n<label>name or id contains<input name=\"name\" value=\"").Text(d.Name).
		Raw("\" size=\"24\"></label>\n<label>user<input name=\"user\" value=\"").Text(d.User).Raw("\" size=\"12\"></label>\n" +
		"<button type=\"submit\">Filter</button> <a href=\"/apps\">clear</a>\n</form>\n" +
		`<table class="grid"><tr><th>application</th><th>name</th><th>user</th><th>start</th><th class="num">duration</th><th>status</th><th></th></tr>` + "\n")
	for _, a := range d.Rows {
		w.Raw(`<tr><td><a href="/app/`).URLPart(a.ID).Raw(`">`).Text(a.ID).Raw("</a></td><td>").Text(a.Name).Raw("</td><td>").Text(a.User).
			Raw("</td><td>").Text(when(a.Start)).Raw(`</td><td class="num">`)
		if a.Complete {
			w.Text(ms(a.End - a.Start)).Raw(`</td><td class="status succeeded">complete`)
		} else {
			w.Raw(`-</td><td class="status running">incomplete · <a href="/live/app/`).URLPart(a.ID).Raw(`">live</a>`)
		}
		w.Raw("</td>\n<td><a href=\"/compare?a=").Query(a.ID).Raw("\">compare…</a></td></tr>\n")
	}
	if len(d.Rows) == 0 {
		w.Raw("<tr><td colspan=\"7\">No application matches.</td></tr>\n")
	}
	w.Raw("</table>\n<div class=\"pager\">")
	writePager(w, d.Prev, d.Next)
	w.Raw(" page ").Int(int64(d.Page)).Raw(" of ").Int(int64(d.Pages)).Raw("</div>\n")
}

// writePager writes the links to the newer and the next page, those
// there are.
func writePager(w *htmlw.Writer, prev, next string) {
	if prev != "" {
		w.Raw(`<a href="`).URL(prev).Raw(`">← newer page</a>`)
	}
	if next != "" {
		w.Raw(`<a href="`).URL(next).Raw(`">next page →</a>`)
	}
}

// or is a, or b when a is empty.
func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
