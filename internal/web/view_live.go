package web

import (
	"strconv"

	"github.com/clusterlens/clusterlens/internal/htmlw"
)

// writeLiveApp writes the live application page; its live part is
// writeLiveAppPart.
func writeLiveApp(w *htmlw.Writer, d *liveAppData) {
	w.Raw("<h1>").Text(d.Name).Raw(" <small>").Text(d.ID)
	if d.User != "" {
		w.Raw(" · ").Text(d.User)
	}
	w.Raw(" · live</small></h1>\n<p class=\"explain\" id=\"cl-live-status\">")
	if d.Ended != "" {
		w.Raw("No longer live: ").Text(d.Ended).Raw(".")
	} else {
		w.Raw("Followed as its log grows; this page updates itself (at most once a second).")
	}
	w.Raw(` <a href="/app/`).URLPart(d.ID).Raw("\">The full analysis</a>.</p>\n<div data-chart=\"app-throughput\"></div>\n<div data-chart=\"app-durations\"></div>\n<div id=\"cl-live\">")
	writeLiveAppPart(w, d)
	w.Raw("</div>\n")
}

// writeLiveAppPart writes what the live application page's stream sends
// again: the application's progress.
func writeLiveAppPart(w *htmlw.Writer, d *liveAppData) {
	if d.Problem != "" {
		w.Raw(`<p class="message">`).Text(d.Problem).Raw("</p>")
	}
	w.Raw("\n")
	p := d.Progress
	if p == nil {
		return
	}
	w.Raw("<div class=\"cards\">\n" + `<div class="card"><div class="k">tasks</div><div class="v" id="cl-live-tasks">`).Int(int64(p.Tasks)).
		Raw(`</div><div class="d">`).Int(int64(p.Running)).Raw(" running, ").Int(int64(p.Failed)).Raw(" failed</div></div>\n" +
		`<div class="card"><div class="k">stages</div><div class="v">`).Int(int64(p.StagesAll)).Raw(`</div><div class="d">`).Int(int64(p.Jobs)).Raw(" jobs</div></div>\n" +
		`<div class="card"><div class="k">executors</div><div class="v">`).Int(int64(p.Executors)).Raw("</div></div>\n" +
		`<div class="card"><div class="k">running for</div><div class="v">`)
	switch {
	case d.End != 0:
		w.Text(ms(d.End - d.Start))
	case p.Newest != 0:
		w.Text(ms(p.Newest - d.Start))
	default:
		w.Raw("-")
	}
	w.Raw(`</div><div class="d">started `).Text(when(d.Start)).Raw("</div></div>\n</div>\n<h2>Stages <small>the newest ").Int(int64(len(p.Stages))).Raw(" of ").Int(int64(p.StagesAll)).
		Raw("</small></h2>\n" + `<table class="grid"><tr><th>stage</th><th>name</th><th>status</th><th class="num">tasks</th><th class="num">done</th><th class="num">running</th><th class="num">failed</th></tr>` + "\n")
	for _, s := range p.Stages {
		w.Raw("<tr><td>").Int(int64(s.ID))
		if s.Attempt != 0 {
			w.Raw(".").Int(int64(s.Attempt))
		}
		w.Raw("</td><td>").Text(s.Name).Raw(`</td><td><span class="status `).Text(s.Status).Raw(`">`).Text(s.Status).Raw(`</span></td><td class="num">`).Int(int64(s.Total)).
			Raw(`</td><td class="num">`).Int(int64(s.Done)).Raw(`</td><td class="num">`).Int(int64(s.Running)).Raw(`</td><td class="num">`).Int(int64(s.Failed)).Raw("</td></tr>\n")
	}
	if len(p.Stages) == 0 {
		w.Raw(`<tr><td colspan="7">No stage yet.</td></tr>`)
	}
	w.Raw("</table>")
}

// writeLiveNodes writes the live nodes page; its live part is
// writeLiveNodesPart.
func writeLiveNodes(w *htmlw.Writer, d *liveNodesData) {
	w.Raw("<h1>Live <small>nodes as the collector stores their samples</small></h1>\n<p class=\"explain\" id=\"cl-live-status\">")
	if v := d.View; v != nil {
		w.Raw("Newest sample ")
		if v.Newest != 0 {
			w.Text(when(v.Newest))
		} else {
			w.Raw("none yet")
		}
		w.Raw("; this page updates itself (at most once a second).")
	}
	w.Raw("</p>\n<div data-chart=\"live-cpu\"></div>\n<div id=\"cl-live\">")
	writeLiveNodesPart(w, d)
	w.Raw("</div>\n")
}

// writeLiveNodesPart writes what the live nodes page's stream sends
// again: the running applications, the indictments and every node.
func writeLiveNodesPart(w *htmlw.Writer, d *liveNodesData) {
	if len(d.Running) > 0 {
		w.Raw("<h2>Running applications</h2>\n<table class=\"grid\"><tr><th>application</th><th>name</th><th>user</th></tr>\n")
		for _, a := range d.Running {
			w.Raw(`<tr><td><a href="/live/app/`).URLPart(a.ID).Raw(`">`).Text(a.ID).Raw("</a></td><td>").Text(a.Name).Raw("</td><td>").Text(a.User).Raw("</td></tr>\n")
		}
		w.Raw("</table>")
	}
	w.Raw("\n")
	v := d.View
	if v == nil {
		return
	}
	w.Raw("<h2>Indictments (Ganesha, online)</h2>\n")
	if !v.Peer {
		w.Raw(`<p class="explain">No peer profile (serve --peer-profile FILE): no peer diagnosis.</p>`)
	} else {
		w.Raw("\n" + `<table class="grid"><tr><th>time</th><th>host</th><th class="num">alarm count</th><th class="num">differs from peers</th><th>confidence</th></tr>` + "\n")
		for _, in := range v.Indictments {
			w.Raw("<tr><td>").Text(when(in.Time)).Raw(`</td><td><a href="/node/`).URLPart(in.Host).Raw(`">`).Text(in.Host).Raw(`</a></td><td class="num">`).Text(num(in.AlarmCount)).
				Raw(`</td><td class="num">`).Text(pct(in.Differs)).Raw("</td><td>").Text(in.Confidence).Raw("</td></tr>\n")
		}
		if len(v.Indictments) == 0 {
			w.Raw(`<tr><td colspan="5">None since this server started watching.</td></tr>`)
		}
		w.Raw("</table>")
	}
	w.Raw("\n<h2>Every node <small>").Text(count(int64(len(v.Nodes)))).Raw(" nodes, their newest samples; ").Text(count(v.Samples)).
		Raw(" samples read since ").Text(when(v.Since)).Raw("</small></h2>\n" +
		`<table class="grid"><tr><th>host</th><th>newest sample</th><th class="num">CPU</th><th class="num">load</th><th class="num">disk</th><th class="num">network</th><th>peer state</th></tr>` + "\n")
	for _, n := range v.Nodes {
		w.Raw(`<tr><td><a href="/node/`).URLPart(n.Host).Raw(`">`).Text(n.Host).Raw("</a></td><td>").Text(when(n.Time)).
			Raw(`</td><td class="num">`).Text(strconv.FormatFloat(n.CPU, 'f', 0, 64)).Raw(`%</td><td class="num">`).Text(strconv.FormatFloat(n.Load, 'f', 2, 64)).
			Raw(`</td><td class="num">`).Text(size(int64(n.Disk))).Raw(`/s</td><td class="num">`).Text(size(int64(n.Net))).Raw("/s</td><td>")
		if p := n.Peer; p != nil {
			if p.Indicted {
				w.Raw(`<span class="status failed">indicted</span>`)
			} else {
				w.Raw("ok")
			}
			w.Raw(" (").Int(int64(p.Alarms)).Raw(" alarms of ").Int(int64(p.Steps)).Raw(")")
		}
		w.Raw("</td></tr>\n")
	}
	if len(v.Nodes) == 0 {
		w.Raw(`<tr><td colspan="7">No sample in the store yet.</td></tr>`)
	}
	w.Raw("</table>")
}
