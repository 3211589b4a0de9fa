package web

import (
	"time"

	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/htmlw"
)

// writeNodes writes the nodes page.
func writeNodes(w *htmlw.Writer, d *nodesData) {
	w.Raw("<h1>Nodes</h1>\n")
	if d.NoHistory {
		w.Raw(`<p class="message">PARC's node classes and speeds need the run history (serve --store).</p>`)
	} else if d.NoPARC != "" {
		w.Raw(`<p class="message">`).Text(d.NoPARC).Raw("</p>")
	}
	w.Raw("\n")
	if d.NoMetrics {
		w.Raw(`<p class="explain">No node metrics (serve --metrics DSN): peer diagnosis and metric charts are not shown.</p>`)
	} else if d.Peer == nil {
		w.Raw(`<p class="explain">No peer profile (serve --peer-profile FILE): peer diagnosis is not shown.</p>`)
	}
	w.Raw("\n")
	if a := d.Assessment; a != nil {
		w.Raw(`<p class="explain">PARC (`).Text(a.Model).Raw(" model): ").Int(int64(a.HistoryRuns)).Raw(" runs learned from, the newest ").Int(int64(a.JudgedRuns)).
			Raw(" judged (").Text(when(a.JudgedFrom)).Raw(" → ").Text(when(a.JudgedTo)).Raw(").</p>\n<div data-chart=\"nodes-speed\"></div>\n")
		if len(a.Classes) > 0 {
			w.Raw(`<h2>Node classes</h2><table class="grid"><tr><th>class</th><th>nodes</th><th>speed factors</th><th>slow by design</th></tr>` + "\n")
			for _, c := range a.Classes {
				w.Raw("<tr><td>").Text(c.Name).Raw(" <small>(").Text(count(int64(len(c.Nodes)))).Raw(" nodes)</small></td><td>")
				// A class of 2,400 nodes named in full filled the page: the
				// first classNodes named, the rest folded.
				for i, n := range c.Nodes {
					if i == classNodes {
						w.Raw("<details><summary>and ").Text(count(int64(len(c.Nodes) - classNodes))).Raw(" more</summary>")
					}
					w.Raw(`<a href="/node/`).URLPart(n).Raw(`">`).Text(n).Raw("</a> ")
				}
				if len(c.Nodes) > classNodes {
					w.Raw("</details>")
				}
				w.Raw("</td><td>")
				writeFactors(w, c.Factors)
				w.Raw("</td><td>")
				if c.SlowByDesign {
					w.Raw("yes")
				}
				w.Raw("</td></tr>\n")
			}
			w.Raw("</table>")
		}
	}
	w.Raw("\n")
	if p := d.Peer; p != nil {
		w.Raw(`<p class="explain">Peer diagnosis (Ganesha) over `)
		writeWindow(w, d.From, d.To)
		w.Raw(": ").Int(p.Vectors).Raw(" metric vectors, ").Int(int64(len(p.Indictments))).Raw(" indictments.</p>")
	}
	w.Raw("\n<h2>Every node</h2>\n" + `<table class="grid"><tr><th>host</th><th>class</th><th>speed factors</th><th>PARC verdict</th><th>why</th><th class="num">peer alarms</th><th>peer state</th></tr>` + "\n")
	for _, r := range d.Rows {
		w.Raw(`<tr><td><a href="/node/`).URLPart(r.Host).Raw(`">`).Text(r.Host).Raw("</a></td><td>")
		if r.Speed != nil {
			w.Text(r.Speed.Class)
		}
		w.Raw("</td><td>")
		if r.Speed != nil {
			writeFactors(w, r.Speed.Factors)
		}
		w.Raw("</td>\n<td>")
		if v := r.PARC; v != nil {
			w.Raw(`<span class="status `)
			if v.Status == driver.NodeDegraded {
				w.Raw("failed")
			}
			w.Raw(`">`).Text(string(v.Status)).Raw("</span>")
			if v.Resource != "" {
				w.Raw(" (").Text(v.Resource).Raw(")")
			}
		}
		w.Raw("</td><td>")
		if r.PARC != nil {
			w.Text(r.PARC.Why)
		}
		w.Raw("</td>\n<td class=\"num\">")
		if p := r.Peer; p != nil {
			w.Int(int64(p.Alarms)).Raw(" of ").Int(int64(p.Steps))
		}
		w.Raw("</td><td>")
		if p := r.Peer; p != nil {
			switch {
			case p.Indicted:
				w.Raw(`<span class="status failed">indicted</span> since `).Text(when(p.FirstIndicted))
			case p.FirstIndicted != 0:
				w.Raw("indicted at ").Text(when(p.FirstIndicted)).Raw(", no longer")
			default:
				w.Raw("ok")
			}
		}
		w.Raw("</td></tr>\n")
	}
	if len(d.Rows) == 0 {
		w.Raw("<tr><td colspan=\"7\">No node is known: index runs (serve --store) or collect node metrics (serve --metrics).</td></tr>\n")
	}
	w.Raw("</table>\n")
}

// classNodes is how many of a class's nodes its row names before folding.
const classNodes = 24

// writeFactors writes a node's or a class's speed factors.
func writeFactors(w *htmlw.Writer, fs []driver.ResourceFactor) {
	for _, f := range fs {
		w.Text(f.Resource).Raw(" ").Text(num(f.Factor.Value)).Raw("× ")
	}
}

// writeWindow writes the time window of a node page's metrics.
func writeWindow(w *htmlw.Writer, from, to time.Time) {
	w.Text(from.UTC().Format("2006-01-02 15:04Z")).Raw(" → ").Text(to.UTC().Format("15:04Z"))
}

// writeNode writes a node's page.
func writeNode(w *htmlw.Writer, d *nodeData) {
	w.Raw("<h1>").Text(d.Host).Raw("</h1>\n<div class=\"cards\">\n" + `<div class="card"><div class="k">PARC class</div><div class="v">`)
	if d.Speed != nil {
		w.Text(or(d.Speed.Class, "-"))
	} else {
		w.Raw("-")
	}
	w.Raw(`</div><div class="d">`)
	if c := d.Class; c != nil {
		w.Int(int64(len(c.Nodes))).Raw(" nodes")
		if c.SlowByDesign {
			w.Raw(", slow by design")
		}
	}
	w.Raw("</div></div>\n" + `<div class="card"><div class="k">Speed factors</div><div class="v">`)
	if d.Speed != nil {
		for _, f := range d.Speed.Factors {
			w.Text(num(f.Factor.Value)).Raw("× ")
		}
	} else {
		w.Raw("-")
	}
	w.Raw(`</div><div class="d">`)
	if d.Speed != nil {
		for _, f := range d.Speed.Factors {
			w.Text(f.Resource).Raw(" ")
		}
		w.Raw("over ").Int(int64(d.Speed.Tasks)).Raw(" tasks")
	}
	w.Raw("</div></div>\n" + `<div class="card"><div class="k">PARC verdict</div><div class="v">`)
	if d.PARC != nil {
		w.Text(string(d.PARC.Status))
	} else {
		w.Raw("-")
	}
	w.Raw(`</div><div class="d">`)
	if d.PARC != nil {
		w.Text(d.PARC.Why)
	}
	w.Raw("</div></div>\n" + `<div class="card"><div class="k">Peer diagnosis</div><div class="v">`)
	switch {
	case d.Peer == nil:
		w.Raw("-")
	case d.Peer.Indicted:
		w.Raw("indicted")
	default:
		w.Raw("ok")
	}
	w.Raw(`</div><div class="d">`)
	if d.Peer != nil {
		w.Int(int64(d.Peer.Alarms)).Raw(" alarms in ").Int(int64(d.Peer.Steps)).Raw(" steps")
	} else if d.NoPeer {
		w.Raw("no peer profile (serve --peer-profile)")
	}
	w.Raw("</div></div>\n</div>\n")
	if v := d.Verdict; v != nil {
		w.Raw(`<p class="explain">Ganesha's verdict: `).Text(v.Role)
		if v.VictimOf != "" {
			w.Raw(" of ").Text(v.VictimOf)
		}
		w.Raw(", resource ").Text(v.Resource).Raw(", first indicted ").Text(when(v.FirstIndicted)).Raw("; evidence: ")
		for _, e := range v.Evidence {
			w.Text(e.Metric).Raw(" z=").Text(num(e.Z)).Raw("; ")
		}
		w.Raw("</p>")
	}
	w.Raw("\n")
	if len(d.Indictments) > 0 {
		w.Raw(`<h2>Indictments</h2><table class="grid"><tr><th>time</th><th class="num">alarm count</th><th class="num">peers it differed from</th></tr>` + "\n")
		for _, in := range d.Indictments {
			w.Raw("<tr><td>").Text(when(in.Time)).Raw(`</td><td class="num">`).Text(num(in.AlarmCount)).Raw(`</td><td class="num">`).Text(pct(in.Differs)).Raw("</td></tr>")
		}
		w.Raw("</table>")
	}
	w.Raw("\n<h2>Metrics <small class=\"explain\">")
	writeWindow(w, d.From, d.To)
	if d.NoMetrics {
		w.Raw(": no node metrics (serve --metrics)")
	} else {
		w.Raw(", ").Int(int64(d.Samples)).Raw(" samples")
	}
	w.Raw("</small></h2>\n" + `<div data-chart="node-cpu"></div><div data-chart="node-disk"></div><div data-chart="node-net"></div><div data-chart="node-load"></div>` +
		"\n<h2>Across runs</h2>\n")
	if h := d.History; h != nil {
		w.Raw("<div data-chart=\"node-runs\"></div>\n<p class=\"explain\">Its usual time against the stage medians: ").Text(num(h.Baseline)).Raw(".</p>\n" +
			`<table class="grid"><tr><th>start</th><th>run</th><th>name</th><th class="num">tasks</th><th class="num">stages</th><th class="num">time against stage medians</th></tr>` + "\n")
		for _, r := range h.Runs {
			w.Raw("<tr><td>").Text(when(r.Start)).Raw("</td><td>").Text(r.Key).Raw("</td><td>").Text(r.Name).Raw(`</td><td class="num">`).Int(int64(r.Tasks)).
				Raw(`</td><td class="num">`).Int(int64(r.Stages)).Raw(`</td><td class="num">`).Text(num(r.Ratio)).Raw("</td></tr>\n")
		}
		w.Raw("</table>")
	} else {
		w.Raw(`<p class="message">`).Text(d.NoHistory).Raw("</p>")
	}
	w.Raw("\n")
}
