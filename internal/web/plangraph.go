package web

import (
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/shs"
)

// A SQL execution's plan graph, laid out on the server and written as
// inline SVG (it reads without JavaScript, as the tables do): the
// operators as boxes with their metrics, data flowing down from the scans
// to the result as on the History Server's SQL page, the operators that a
// WholeStageCodegen stage fused framed together with its name and time.

// Box sizes, in pixels.
const (
	boxW      = 230
	boxGapX   = 26
	lineH     = 15
	boxPad    = 6
	rankGap   = 34
	clusterPd = 9
	boxLines  = 4 // metrics shown in a box; the table lists every one
)

// planBox is one operator placed.
type planBox struct {
	id      int32
	name    string
	desc    string
	cluster int32 // the codegen cluster's node id, -1 for none
	metrics []shs.Pair
	more    int // metrics not shown in the box
	rank    int
	x, y, h int
	slot    float64
}

// planLayout is a laid out plan graph.
type planLayout struct {
	boxes    []*planBox
	byID     map[int32]*planBox
	edges    []model.SQLEdge
	clusters []planCluster
	w, h     int
}

// planCluster is a WholeStageCodegen stage framed around its operators.
type planCluster struct {
	id            int32
	label         string
	x, y, w, h, n int
}

// layoutPlan places the operators of x: a rank per operator (its longest
// path from a scan), scans at the top; across, a leaf per slot in the
// order the plan lists children, each operator centred over its inputs.
func layoutPlan(x *model.SQLExecution, nodes []shs.SQLNode) *planLayout {
	l := &planLayout{byID: map[int32]*planBox{}}
	if x.Plan == nil {
		return l
	}
	metrics := map[int64][]shs.Pair{}
	for _, n := range nodes {
		metrics[n.ID] = n.Metrics
	}
	clusterLabel := map[int32]string{}
	for _, n := range x.Plan.Nodes {
		if n.IsCluster {
			label := n.Name
			for _, m := range metrics[int64(n.ID)] {
				label += " · " + m.Key + " " + firstLine(m.Value)
			}
			clusterLabel[n.ID] = label
			continue
		}
		b := &planBox{id: n.ID, name: n.Name, desc: n.Desc, cluster: n.Cluster, metrics: metrics[int64(n.ID)]}
		if _, ok := clusterLabel[n.Cluster]; !ok && n.Cluster >= 0 && (int(n.Cluster) >= len(x.Plan.Nodes) || !x.Plan.Nodes[n.Cluster].IsCluster) {
			b.cluster = -1
		}
		if len(b.metrics) > boxLines {
			b.more = len(b.metrics) - boxLines
		}
		b.h = 2*boxPad + lineH*(1+min(len(b.metrics), boxLines)) + min(b.more, 1)*lineH
		l.boxes = append(l.boxes, b)
		l.byID[n.ID] = b
	}
	inputs := map[int32][]int32{} // parent -> children, in edge order
	hasParent := map[int32]bool{}
	for _, e := range x.Plan.Edges {
		if l.byID[e.From] == nil || l.byID[e.To] == nil {
			continue
		}
		l.edges = append(l.edges, e)
		inputs[e.To] = append(inputs[e.To], e.From)
		hasParent[e.From] = true
	}
	// Ranks: the longest path from a scan (edges point from an input to
	// its consumer; a plan is acyclic, the depth bound guards bad input).
	var rank func(id int32, depth int) int
	rank = func(id int32, depth int) int {
		b := l.byID[id]
		if b.rank > 0 || depth > len(l.boxes) {
			return b.rank
		}
		r := 0
		for _, c := range inputs[id] {
			r = max(r, rank(c, depth+1)+1)
		}
		b.rank = r
		return r
	}
	for _, b := range l.boxes {
		rank(b.id, 0)
	}
	// Slots: leaves left to right as met from the roots; an operator
	// over the mean of its inputs'.
	next := 0.0
	placed := map[int32]bool{}
	var place func(id int32, depth int) float64
	place = func(id int32, depth int) float64 {
		b := l.byID[id]
		if placed[id] || depth > len(l.boxes) {
			return b.slot
		}
		placed[id] = true
		var sum float64
		n := 0
		for _, c := range inputs[id] {
			sum += place(c, depth+1)
			n++
		}
		if n == 0 {
			b.slot, next = next, next+1
		} else {
			b.slot = sum / float64(n)
		}
		return b.slot
	}
	for _, b := range l.boxes {
		if !hasParent[b.id] {
			place(b.id, 0)
		}
	}
	for _, b := range l.boxes { // on a cycle (bad input), none is a root
		place(b.id, 0)
	}
	// Two operators of one rank may take one slot (a reused input): the
	// later moves right.
	byRank := map[int][]*planBox{}
	maxRank := 0
	for _, b := range l.boxes {
		byRank[b.rank] = append(byRank[b.rank], b)
		maxRank = max(maxRank, b.rank)
	}
	for _, bs := range byRank {
		slices.SortStableFunc(bs, func(a, b *planBox) int {
			switch {
			case a.slot < b.slot:
				return -1
			case a.slot > b.slot:
				return 1
			}
			return 0
		})
		for i := 1; i < len(bs); i++ {
			if bs[i].slot < bs[i-1].slot+1 {
				bs[i].slot = bs[i-1].slot + 1
			}
		}
	}
	// Rows: scans (rank 0) at the top, each row as tall as its tallest box.
	y := clusterPd + lineH + 4
	for r := 0; r <= maxRank; r++ {
		h := 0
		for _, b := range byRank[r] {
			b.y = y
			h = max(h, b.h)
		}
		y += h + rankGap
	}
	for _, b := range l.boxes {
		b.x = clusterPd + int(b.slot*float64(boxW+boxGapX)+0.5)
		l.w = max(l.w, b.x+boxW+clusterPd)
	}
	l.h = y
	// Codegen clusters: the frame around their operators.
	for id, label := range clusterLabel {
		c := planCluster{id: id, label: label, x: 1 << 30, y: 1 << 30}
		for _, b := range l.boxes {
			if b.cluster != id {
				continue
			}
			c.n++
			c.x, c.y = min(c.x, b.x-clusterPd), min(c.y, b.y-clusterPd-lineH)
			c.w, c.h = max(c.w, b.x+boxW+clusterPd), max(c.h, b.y+b.h+clusterPd)
		}
		if c.n == 0 {
			continue
		}
		c.w, c.h = c.w-c.x, c.h-c.y
		l.clusters = append(l.clusters, c)
	}
	slices.SortFunc(l.clusters, func(a, b planCluster) int { return int(a.id - b.id) })
	return l
}

// firstLine is a metric value's first line (a total, for the values
// SQLMetrics prints as "total (min, med, max ...)\nvalues").
func firstLine(v string) string {
	for i := 0; i < len(v); i++ {
		if v[i] == '\n' {
			if i+1 < len(v) {
				return v[i+1:] // the line of numbers, not the header
			}
			return v[:i]
		}
	}
	return v
}

// clip shortens s to n characters with an ellipsis.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// writePlanGraph writes the laid out plan as SVG; each operator links to
// its row in the operators table and has the id node-N, which the page
// marks when the address names it (#node-N).
func writePlanGraph(w *htmlw.Writer, l *planLayout, link func(id int32) string) {
	if len(l.boxes) == 0 {
		w.Raw(`<p class="explain">The log holds no plan graph for this execution.</p>`)
		return
	}
	itoa := func(i int) string { return strconv.Itoa(i) }
	w.Raw(`<div class="plan"><svg xmlns="http://www.w3.org/2000/svg" width="`).Raw(itoa(l.w)).Raw(`" height="`).Raw(itoa(l.h)).
		Raw(`" viewBox="0 0 `).Raw(itoa(l.w)).Raw(" ").Raw(itoa(l.h)).Raw(`" role="img" aria-label="plan graph">` +
		`<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0L10,5L0,10z" fill="#7b8794"/></marker></defs>` + "\n")
	for _, c := range l.clusters {
		w.Raw(`<g class="cluster"><rect x="`).Raw(itoa(c.x)).Raw(`" y="`).Raw(itoa(c.y)).Raw(`" width="`).Raw(itoa(c.w)).Raw(`" height="`).Raw(itoa(c.h)).
			Raw(`" rx="8"/><text x="`).Raw(itoa(c.x + 8)).Raw(`" y="`).Raw(itoa(c.y + lineH)).Raw(`">`).Text(clip(c.label, (c.w-16)/6)).Raw("<title>").Text(c.label).Raw("</title></text></g>\n")
	}
	for _, e := range l.edges {
		a, b := l.byID[e.From], l.byID[e.To]
		x1, y1, x2, y2 := a.x+boxW/2, a.y+a.h, b.x+boxW/2, b.y
		if y2 < y1 { // an input drawn below its consumer (bad input)
			y1, y2 = a.y, b.y+b.h
		}
		mid := (y1 + y2) / 2
		w.Raw(`<path class="edge" d="M`).Raw(itoa(x1)).Raw(",").Raw(itoa(y1)).Raw(" C").Raw(itoa(x1)).Raw(",").Raw(itoa(mid)).Raw(" ").Raw(itoa(x2)).Raw(",").Raw(itoa(mid)).
			Raw(" ").Raw(itoa(x2)).Raw(",").Raw(itoa(y2 - 1)).Raw(`" marker-end="url(#arrow)"/>` + "\n")
	}
	for _, b := range l.boxes {
		w.Raw(`<a href="`).URL(link(b.id)).Raw(`"><g class="op" id="node-`).Raw(itoa(int(b.id))).Raw(`"><title>`).Text(b.name)
		if b.desc != "" && b.desc != b.name {
			w.Raw("\n").Text(b.desc)
		}
		for _, m := range b.metrics {
			w.Raw("\n").Text(m.Key).Raw(": ").Text(m.Value)
		}
		w.Raw(`</title><rect x="`).Raw(itoa(b.x)).Raw(`" y="`).Raw(itoa(b.y)).Raw(`" width="`).Raw(itoa(boxW)).Raw(`" height="`).Raw(itoa(b.h)).
			Raw(`" rx="5"/><text x="`).Raw(itoa(b.x + boxPad)).Raw(`" y="`).Raw(itoa(b.y + boxPad + lineH - 3)).Raw(`" class="name">`).Text(clip(b.name, 30)).Raw("</text>")
		for i, m := range b.metrics[:min(len(b.metrics), boxLines)] {
			w.Raw(`<text x="`).Raw(itoa(b.x + boxPad)).Raw(`" y="`).Raw(itoa(b.y + boxPad + lineH*(i+2) - 3)).Raw(`">`).Text(clip(m.Key+": "+firstLine(m.Value), 36)).Raw("</text>")
		}
		if b.more > 0 {
			w.Raw(`<text x="`).Raw(itoa(b.x + boxPad)).Raw(`" y="`).Raw(itoa(b.y + boxPad + lineH*(boxLines+2) - 3)).Raw(`" class="more">+`).Raw(itoa(b.more)).Raw(" more</text>")
		}
		w.Raw("</g></a>\n")
	}
	w.Raw("</svg></div>\n")
}
