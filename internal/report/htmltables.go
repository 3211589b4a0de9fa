package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/query"
)

// Tables is one analysis as the server-rendered tables show it: the
// overview, where the slot time went, the findings with their evidence,
// the longest stages, the nodes, the what-if curve, the SQL queries and
// the notes, every value formatted.
type Tables struct {
	Title    string
	Meta     []string
	Cards    [][3]string // name, value, detail
	Causes   [][3]string // cause, time, share
	Findings []TableFinding
	// Stages and Nodes are the longest stages and the nodes with the most
	// slot time (at most MaxHTMLStages and MaxHTMLNodes), with how many
	// there are in all.
	Stages              [][]string
	StageHead, NodeHead []string
	StagesAll, NodesAll int
	Nodes               [][]string
	WhatIf              [][4]string
	Queries             [][5]string
	QueriesAll          int
	// Commands are the statements that ran no job, by command: name, count.
	Commands [][2]string
	Notes    []string
}

// TableFinding is one finding as the tables show it.
type TableFinding struct {
	Severity, Title, Scope, Summary, Recommendation, Source string
	Evidence                                                [][3]string // name, value, limits
}

// BuildTables formats an analysis for WriteTables.
func BuildTables(a *analysis.Analysis) *Tables {
	s := a.Summary
	id := s.App
	t := &Tables{Title: cmp.Or(id.Name, id.ID), Notes: a.Notes}
	status := "complete"
	if !id.Complete {
		status = "incomplete (no end record: still running, crashed or truncated)"
	}
	t.Meta = append(t.Meta, fmt.Sprintf("%s %s %s, user %s, %s", id.ID, id.Engine, id.Version, orDash(id.User), status),
		fmt.Sprintf("start %s, end %s; source %s", Time(id.Start), Time(id.End), id.Source))
	if p := id.Platform; p != nil {
		t.Meta = append(t.Meta, "platform "+p.Name)
	}
	tot := s.Totals
	t.Cards = append(t.Cards, [3]string{"Wall clock", Millis(id.DurationMs), Time(id.Start)},
		[3]string{"Tasks", strconv.Itoa(tot.Tasks), fmt.Sprintf("%d failed · %d killed · %d stages · %d jobs", tot.FailedTasks, tot.KilledTasks, tot.Stages, tot.Jobs)},
		[3]string{"Executors", strconv.Itoa(tot.Executors), fmt.Sprintf("%d hosts", tot.Hosts)})
	if e := a.Efficiency; e != nil {
		t.Cards = append(t.Cards, [3]string{"Driver alone", pct(e.DriverMs, e.AppMs), Millis(e.DriverMs) + " of " + Millis(e.AppMs)},
			[3]string{"Critical path", Millis(e.CriticalPathAppMs), "perfect parallelism " + Millis(int64(e.IdealAppMs))},
			[3]string{"Core-hours wasted", fmt.Sprintf("%.2f", coreHours(e.CoreMsWasted)), fmt.Sprintf("of %.2f available", coreHours(e.CoreMsAvailable))})
	}
	worst := "nothing to fix"
	if len(a.Findings) > 0 {
		worst = "worst: " + a.Findings[0].Severity.String()
	}
	t.Cards = append(t.Cards, [3]string{"Findings", strconv.Itoa(len(a.Findings)), worst})
	for _, f := range a.Findings {
		t.Findings = append(t.Findings, tableFinding(f))
	}
	if b := a.Dataflow; b != nil {
		t.tablesDataflow(b)
	}
	if wi := a.WhatIf; wi != nil {
		for _, e := range wi.Estimates {
			t.WhatIf = append(t.WhatIf, [4]string{fmt.Sprintf("%d%% (%.1f)", e.Percent, e.Executors), strconv.Itoa(e.Slots), Millis(e.AppMs), fmt.Sprintf("%.0f%%", 100*e.Utilization)})
		}
	}
	// Statements that ran no job (24 CreateViewCommands filled a real
	// application's table) are counted by command, not listed.
	var qs []query.Query
	for _, q := range a.Queries {
		if c := q.Command(); c != "" {
			t.Commands = countCommand(t.Commands, c)
			continue
		}
		qs = append(qs, q)
	}
	slices.SortStableFunc(qs, func(x, y query.Query) int { return cmp.Compare(y.WallMs, x.WallMs) })
	t.QueriesAll = len(qs)
	for _, q := range qs[:min(len(qs), maxTableQueries)] {
		t.Queries = append(t.Queries, [5]string{strconv.FormatInt(q.ID, 10), q.Status, Millis(q.WallMs), strconv.Itoa(len(q.Jobs)), truncate(q.Description, 100)})
	}
	return t
}

// countCommand adds one statement of command c to counts.
func countCommand(counts [][2]string, c string) [][2]string {
	for i := range counts {
		if counts[i][0] == c {
			n, _ := strconv.Atoi(counts[i][1])
			counts[i][1] = strconv.Itoa(n + 1)
			return counts
		}
	}
	return append(counts, [2]string{c, "1"})
}

// maxTableQueries is how many queries the tables list, the longest first.
const maxTableQueries = 50

func (t *Tables) tablesDataflow(b *dataflow.Breakdown) {
	if total := b.App.Total; total > 0 {
		for c := dataflow.Cause(0); c < dataflow.NumCauses; c++ {
			if v := b.App.Cause[c]; v > 0 {
				t.Causes = append(t.Causes, [3]string{c.String(), Millis(v), pct(v, total)})
			}
		}
	}
	t.StageHead = []string{"stage", "name", "wall", "tail", "tasks"}
	t.NodeHead = []string{"host", "executors", "slots", "allocated"}
	for c := dataflow.Cause(0); c < dataflow.NumCauses; c++ {
		t.StageHead = append(t.StageHead, c.String())
		t.NodeHead = append(t.NodeHead, c.String())
	}
	stages := slices.Clone(b.Stages)
	slices.SortStableFunc(stages, func(x, y dataflow.StageBreakdown) int { return cmp.Compare(y.End-y.Start, x.End-x.Start) })
	t.StagesAll = len(stages)
	for _, st := range stages[:min(len(stages), MaxHTMLStages)] {
		row := []string{fmt.Sprintf("%d.%d", st.ID, st.Attempt), truncate(st.Name, 60), Millis(st.End - st.Start), Millis(st.TailMs), strconv.Itoa(st.Attempts)}
		for c := dataflow.Cause(0); c < dataflow.NumCauses; c++ {
			row = append(row, pct(st.Cause[c], st.Total))
		}
		t.Stages = append(t.Stages, row)
	}
	nodes := slices.Clone(b.Nodes)
	slices.SortStableFunc(nodes, func(x, y dataflow.NodeBreakdown) int { return cmp.Compare(y.Total, x.Total) })
	t.NodesAll = len(nodes)
	for _, n := range nodes[:min(len(nodes), MaxHTMLNodes)] {
		row := []string{n.Host, strconv.Itoa(n.Executors), strconv.Itoa(n.Slots), Millis(n.Total)}
		for c := dataflow.Cause(0); c < dataflow.NumCauses; c++ {
			row = append(row, pct(n.Cause[c], n.Total))
		}
		t.Nodes = append(t.Nodes, row)
	}
}

func tableFinding(f finding.Finding) TableFinding {
	summary := f.Summary
	if f.Impact != nil {
		summary += " " + f.Impact.Sentence()
	}
	for _, s := range f.Symptoms {
		summary += fmt.Sprintf(" Explains: %s (%s).", s.Title, s.Severity)
	}
	tf := TableFinding{Severity: f.Severity.String(), Title: f.Title, Scope: fmt.Sprintf("%s %v", f.Scope.Kind, f.Scope.IDs),
		Summary: summary, Recommendation: f.Recommendation, Source: f.Source}
	for _, e := range f.Evidence {
		lim := ""
		if len(e.Limits) > 0 {
			lim = fmt.Sprintf("%s %v", e.Compare, e.Limits)
		}
		tf.Evidence = append(tf.Evidence, [3]string{e.Name, strconv.FormatFloat(e.Value, 'g', 4, 64) + " " + e.Unit, lim})
	}
	return tf
}

// WriteTables writes the analysis as HTML tables (no script, no style of
// its own: the page's stylesheet applies): what the page reads like
// without JavaScript.
func WriteTables(w *htmlw.Writer, t *Tables) {
	w.Raw("<section class=\"app tables\">\n<h2>").Text(t.Title).Raw("</h2>\n")
	for _, m := range t.Meta {
		w.Raw(`<div class="meta">`).Text(m).Raw("</div>\n")
	}
	w.Raw(`<div class="cards">`)
	for _, c := range t.Cards {
		w.Raw(`<div class="card"><div class="k">`).Text(c[0]).Raw(`</div><div class="v">`).Text(c[1]).Raw(`</div><div class="d">`).Text(c[2]).Raw(`</div></div>`)
	}
	w.Raw("</div>\n")
	if len(t.Causes) > 0 {
		w.Raw("<h3>Where the slot time went</h3>\n<table class=\"nd\"><tr><th>cause</th><th>slot time</th><th>share</th></tr>\n")
		for _, c := range t.Causes {
			w.Raw("<tr><td>").Text(c[0]).Raw(`</td><td class="num">`).Text(c[1]).Raw(`</td><td class="num">`).Text(c[2]).Raw("</td></tr>\n")
		}
		w.Raw("</table>")
	}
	w.Raw("\n<h3>Findings (").Int(int64(len(t.Findings))).Raw(")</h3>\n")
	for _, f := range t.Findings {
		w.Raw(`<div class="finding `).Text(f.Severity).Raw(`"><div class="title"><span class="sev `).Text(f.Severity).Raw(`">`).Text(f.Severity).
			Raw(`</span>`).Text(f.Title).Raw(`<span class="scope">`).Text(f.Scope).Raw("</span></div>\n<div class=\"summary\">").Text(f.Summary).Raw("</div>\n")
		if len(f.Evidence) > 0 {
			w.Raw("<table><tr><th>evidence</th><th>value</th><th>limits</th></tr>")
			for _, e := range f.Evidence {
				w.Raw("<tr><td>").Text(e[0]).Raw(`</td><td class="num">`).Text(e[1]).Raw("</td><td>").Text(e[2]).Raw("</td></tr>")
			}
			w.Raw("</table>")
		}
		w.Raw("\n")
		if f.Recommendation != "" {
			w.Raw(`<div class="reco">`).Text(f.Recommendation).Raw("</div>")
		}
		w.Raw(`<div class="source">`).Text(f.Source).Raw("</div></div>\n")
	}
	if len(t.Findings) == 0 {
		w.Raw("<p class=\"explain\">Nothing to fix.</p>\n")
	}
	if len(t.Stages) > 0 {
		w.Raw("<h3>Longest stages (").Int(int64(len(t.Stages))).Raw(" of ").Int(int64(t.StagesAll)).Raw(")</h3>\n")
		writeGrid(w, t.StageHead, t.Stages)
	}
	w.Raw("\n")
	if len(t.Nodes) > 0 {
		w.Raw("<h3>Nodes (").Int(int64(len(t.Nodes))).Raw(" of ").Int(int64(t.NodesAll)).Raw(", share of allocated slot time)</h3>\n")
		writeGrid(w, t.NodeHead, t.Nodes)
	}
	w.Raw("\n")
	if len(t.WhatIf) > 0 {
		w.Raw("<h3>What if (Sparklens replay)</h3>\n<table class=\"nd\"><tr><th>executors</th><th>slots</th><th>estimated time</th><th>utilization</th></tr>\n")
		for _, e := range t.WhatIf {
			w.Raw("<tr><td>").Text(e[0]).Raw(`</td><td class="num">`).Text(e[1]).Raw(`</td><td class="num">`).Text(e[2]).Raw(`</td><td class="num">`).Text(e[3]).Raw("</td></tr>\n")
		}
		w.Raw("</table>")
	}
	w.Raw("\n")
	if len(t.Queries) > 0 {
		w.Raw("<h3>SQL queries (").Int(int64(len(t.Queries))).Raw(" of ").Int(int64(t.QueriesAll)).
			Raw(", the longest first)</h3>\n<table class=\"nd\"><tr><th>query</th><th>status</th><th>wall</th><th>jobs</th><th>description</th></tr>\n")
		for _, q := range t.Queries {
			w.Raw("<tr><td>").Text(q[0]).Raw("</td><td>").Text(q[1]).Raw(`</td><td class="num">`).Text(q[2]).Raw(`</td><td class="num">`).Text(q[3]).Raw("</td><td>").Text(q[4]).Raw("</td></tr>\n")
		}
		w.Raw("</table>")
	}
	if len(t.Commands) > 0 {
		w.Raw(`<p class="explain">Statements that ran no job, not listed: `)
		for i, c := range t.Commands {
			if i > 0 {
				w.Raw(", ")
			}
			w.Text(c[0]).Raw(" ×").Text(c[1])
		}
		w.Raw(".</p>")
	}
	w.Raw("\n")
	if len(t.Notes) > 0 {
		w.Raw(`<h3>Notes</h3><ul class="notes">`)
		for _, n := range t.Notes {
			w.Raw("<li>").Text(n).Raw("</li>")
		}
		w.Raw("</ul>")
	}
	w.Raw("\n</section>\n")
}

// writeGrid writes a table of a head row and rows of text.
func writeGrid(w *htmlw.Writer, head []string, rows [][]string) {
	w.Raw(`<table class="nd"><tr>`)
	for _, h := range head {
		w.Raw("<th>").Text(h).Raw("</th>")
	}
	w.Raw("</tr>\n")
	for _, r := range rows {
		w.Raw("<tr>")
		for _, c := range r {
			w.Raw("<td>").Text(c).Raw("</td>")
		}
		w.Raw("</tr>\n")
	}
	w.Raw("</table>")
}
