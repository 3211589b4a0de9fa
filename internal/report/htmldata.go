package report

import (
	"cmp"
	"slices"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/perfmodel"
	"github.com/clusterlens/clusterlens/internal/query"
	"github.com/clusterlens/clusterlens/internal/summary"
)

// Chart budgets besides the timeline's: the stages and nodes with the most
// slot time are drawn, the rest counted.
const (
	// MaxHTMLStages is how many stages the stage chart draws.
	MaxHTMLStages = 40
	// MaxHTMLNodes is how many nodes the node heat maps draw.
	MaxHTMLNodes = 60
	// NodeTimeBins is how many columns of wall time the nodes × time heat
	// map has.
	NodeTimeBins = 120
)

// htmlPage is the JSON blob the page's script draws.
type htmlPage struct {
	Generator    string     `json:"generator"`
	Causes       []string   `json:"causes"`
	CauseColors  []string   `json:"causeColors"`
	Applications []*htmlApp `json:"applications"`
}

// htmlApp is one application's section.
type htmlApp struct {
	Identity   summary.Identity  `json:"identity"`
	Totals     summary.Totals    `json:"totals"`
	Efficiency *htmlEfficiency   `json:"efficiency,omitempty"`
	Dataflow   *htmlDataflow     `json:"dataflow,omitempty"`
	Timeline   *htmlTimeline     `json:"timeline,omitempty"`
	NodeTime   *htmlNodeTime     `json:"nodeTime,omitempty"`
	Metrics    *htmlMetrics      `json:"metrics,omitempty"`
	Nodes      *htmlNodeDiag     `json:"nodes,omitempty"`
	WhatIf     *perfmodel.WhatIf `json:"whatIf,omitempty"`
	Findings   []finding.Finding `json:"findings"`
	Queries    []query.Query     `json:"queries,omitempty"`
	Notes      []string          `json:"notes"`
}

// htmlEfficiency holds Sparklens's figures the overview shows.
type htmlEfficiency struct {
	perfmodel.WallClock
	CriticalPathAppMs  int64   `json:"criticalPathAppMs"`
	CriticalPathStages []int32 `json:"criticalPathStages"`
	IdealAppMs         float64 `json:"idealAppMs"`
	OneCoreAppMs       int64   `json:"oneCoreAppMs"`
	CoreMsAvailable    int64   `json:"coreMsAvailable"`
	CoreMsUsed         int64   `json:"coreMsUsed"`
	CoreMsWasted       int64   `json:"coreMsWasted"`
	DriverCoreMsWasted int64   `json:"driverCoreMsWasted"`
	Slots              int     `json:"slots"`
	MaxExecutors       int     `json:"maxExecutors"`
	CoresPerExecutor   int     `json:"coresPerExecutor"`
}

// htmlDataflow holds HiTune's breakdowns: causes indexed like htmlPage.Causes.
type htmlDataflow struct {
	WallMs      int64       `json:"wallMs"`
	BootstrapMs int64       `json:"bootstrapMs"`
	DriverMs    int64       `json:"driverMs"`
	TotalMs     int64       `json:"totalMs"`
	Causes      []int64     `json:"causes"`
	Stages      []htmlStage `json:"stages"`
	StagesAll   int         `json:"stagesAll"`
	Nodes       []htmlNode  `json:"nodes"`
	NodesAll    int         `json:"nodesAll"`
}

// htmlStage is one stage attempt's bar.
type htmlStage struct {
	ID       int32   `json:"id"`
	Attempt  int32   `json:"attempt"`
	Name     string  `json:"name"`
	Kind     string  `json:"kind"`
	Tasks    int     `json:"tasks"`
	WallMs   int64   `json:"wallMs"`
	TailMs   int64   `json:"tailMs"`
	StartMs  int64   `json:"startMs"` // from the application's start
	TotalMs  int64   `json:"totalMs"`
	Causes   []int64 `json:"causes"`
	Critical bool    `json:"critical,omitempty"`
}

// htmlNode is one node's row of the heat map.
type htmlNode struct {
	Host      string  `json:"host"`
	Executors int     `json:"executors"`
	Slots     int     `json:"slots"`
	TotalMs   int64   `json:"totalMs"`
	Causes    []int64 `json:"causes"`
}

// buildHTMLPage turns analyses into the page's data; timelineBars is the
// exact-timeline budget of each application.
func buildHTMLPage(as []*analysis.Analysis, timelineBars int) *htmlPage {
	p := &htmlPage{Generator: "clusterlens", Applications: []*htmlApp{}}
	for c := dataflow.Cause(0); c < dataflow.NumCauses; c++ {
		p.Causes = append(p.Causes, c.String())
		p.CauseColors = append(p.CauseColors, causeColors[c])
	}
	for _, a := range as {
		p.Applications = append(p.Applications, buildHTMLApp(a, timelineBars))
	}
	return p
}

func buildHTMLApp(a *analysis.Analysis, timelineBars int) *htmlApp {
	h := &htmlApp{Identity: a.Summary.App, Totals: a.Summary.Totals, WhatIf: a.WhatIf,
		Findings: a.Findings, Queries: a.Queries, Notes: append([]string{}, a.Notes...)}
	if h.Findings == nil {
		h.Findings = []finding.Finding{}
	}
	if e := a.Efficiency; e != nil {
		h.Efficiency = &htmlEfficiency{WallClock: e.WallClock, CriticalPathAppMs: e.CriticalPathAppMs,
			CriticalPathStages: e.CriticalPath.Stages, IdealAppMs: e.IdealAppMs, OneCoreAppMs: e.OneCoreAppMs,
			CoreMsAvailable: e.CoreMsAvailable, CoreMsUsed: e.CoreMsUsed, CoreMsWasted: e.CoreMsWasted,
			DriverCoreMsWasted: e.DriverCoreMsWasted, Slots: e.Cores.Slots, MaxExecutors: e.Cores.MaxExecutors,
			CoresPerExecutor: e.Cores.PerExecutor}
	}
	if a.Dataflow != nil {
		h.Dataflow = buildHTMLDataflow(a.Dataflow, a.Summary.App.Start, criticalStages(a.Efficiency))
	}
	start, wall := a.Summary.App.Start, a.Summary.App.End-a.Summary.App.Start
	if a.Reconstruction() != nil {
		tl := dataflow.BuildTimeline(a.Reconstruction(), dataflow.TimelineOptions{})
		h.Timeline = buildHTMLTimeline(a.Reconstruction(), tl, timelineBars)
		h.NodeTime = buildNodeTime(tl, MaxHTMLNodes, NodeTimeBins)
		start, wall = h.Timeline.Start, h.Timeline.WallMs
	} else if a.Dataflow != nil {
		h.Notes = append(h.Notes, "timeline: not kept (build the analysis with analysis.Options.Reconstruction)")
	}
	if a.Correlation() != nil && start > 0 {
		h.Metrics = buildHTMLMetrics(a, start, wall, h.Timeline != nil && h.Timeline.Mode == "exact")
	}
	if a.Nodes != nil {
		h.Nodes = &htmlNodeDiag{Start: cmp.Or(start, a.Summary.App.Start), Result: a.Nodes}
	}
	return h
}

func criticalStages(e *perfmodel.Efficiency) map[int32]bool {
	m := map[int32]bool{}
	if e != nil {
		for _, id := range e.CriticalPath.Stages {
			m[id] = true
		}
	}
	return m
}

func causeSlice(c dataflow.CauseTimes) []int64 { return append([]int64(nil), c[:]...) }

func buildHTMLDataflow(b *dataflow.Breakdown, appStart int64, critical map[int32]bool) *htmlDataflow {
	d := &htmlDataflow{WallMs: b.WallMs, BootstrapMs: b.BootstrapMs, DriverMs: b.DriverMs, TotalMs: b.App.Total,
		Causes: causeSlice(b.App.Cause), StagesAll: len(b.Stages), NodesAll: len(b.Nodes),
		Stages: []htmlStage{}, Nodes: []htmlNode{}}
	stages := slices.Clone(b.Stages)
	slices.SortStableFunc(stages, func(x, y dataflow.StageBreakdown) int { return cmp.Compare(y.Total, x.Total) })
	stages = stages[:min(len(stages), MaxHTMLStages)]
	slices.SortStableFunc(stages, func(x, y dataflow.StageBreakdown) int {
		return cmp.Or(cmp.Compare(x.ID, y.ID), cmp.Compare(x.Attempt, y.Attempt))
	})
	start := appStart
	if start <= 0 && len(b.Stages) > 0 {
		start = b.Stages[0].Start
	}
	for _, s := range stages {
		d.Stages = append(d.Stages, htmlStage{ID: s.ID, Attempt: s.Attempt, Name: truncate(s.Name, 80), Kind: s.Kind,
			Tasks: s.Attempts, WallMs: s.End - s.Start, TailMs: s.TailMs, StartMs: s.Start - start, TotalMs: s.Total,
			Causes: causeSlice(s.Cause), Critical: critical[s.ID]})
	}
	nodes := slices.Clone(b.Nodes)
	slices.SortStableFunc(nodes, func(x, y dataflow.NodeBreakdown) int { return cmp.Compare(y.Total, x.Total) })
	nodes = nodes[:min(len(nodes), MaxHTMLNodes)]
	slices.SortStableFunc(nodes, func(x, y dataflow.NodeBreakdown) int { return cmp.Compare(x.Host, y.Host) })
	for _, n := range nodes {
		d.Nodes = append(d.Nodes, htmlNode{Host: n.Host, Executors: n.Executors, Slots: n.Slots, TotalMs: n.Total,
			Causes: causeSlice(n.Cause)})
	}
	return d
}
