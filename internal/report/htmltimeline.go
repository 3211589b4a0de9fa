package report

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/clusterlens/clusterlens/internal/dataflow"
	"github.com/clusterlens/clusterlens/internal/radix"
)

// Timeline budget of the HTML report. An application whose timeline has at
// most MaxTimelineBars task phases on at most MaxTimelineRows slots is drawn
// exactly, one bar per phase; a larger one is aggregated into at most
// MaxTimelineRows rows (slots of one executor, then runs of executors, merged)
// and TimelineBins columns of wall time, each cell coloured by the activity
// that filled most of it and shaded by how busy its slots were.
const (
	// MaxTimelineBars is the most task phases drawn one by one.
	MaxTimelineBars = 12000
	// MaxTimelineRows is the most rows of a timeline.
	MaxTimelineRows = 160
	// TimelineBins is how many columns of wall time an aggregated timeline has.
	TimelineBins = 240
)

// htmlTimeline is the pipeline space-time diagram as the page draws it.
// Times are milliseconds from Start.
type htmlTimeline struct {
	Mode        string   `json:"mode"` // "exact" or "binned"
	Start       int64    `json:"start"`
	WallMs      int64    `json:"wallMs"`
	BootstrapMs int64    `json:"bootstrapMs"`
	Activities  []string `json:"activities"`
	Colors      []string `json:"colors"`
	Rows        []string `json:"rows"`
	// Alloc are allocation windows [row, start, end]: idle where no bar lies.
	Alloc [][3]int64 `json:"alloc"`
	// Bars are exact phases [row, start, end, activity, stage id, task id].
	Bars [][6]int64 `json:"bars,omitempty"`
	// Cells are binned runs [row, first bin, end bin, activity (-1 idle),
	// busy per mille of the allocated slot time].
	Cells [][5]int32 `json:"cells,omitempty"`
	BinMs int64      `json:"binMs,omitempty"`
	// Gaps are stretches after the bootstrap with no task running
	// anywhere (the driver alone), longest first, [start, end].
	Gaps  [][2]int64 `json:"gaps"`
	Slots int        `json:"slots"`
	Note  string     `json:"note"`
}

// rowGroup is a timeline row: consecutive lines merged.
type rowGroup struct {
	label  string
	lo, hi int // lines [lo, hi)
}

// buildHTMLTimeline lays out r's timeline tl within the budget (bars at
// most maxBars).
func buildHTMLTimeline(r *dataflow.Reconstruction, tl *dataflow.Timeline, maxBars int) *htmlTimeline {
	out := &htmlTimeline{Start: tl.Start, WallMs: max(tl.End-tl.Start, 1), Slots: len(tl.Lines),
		Activities: []string{}, Rows: []string{}, Alloc: [][3]int64{}, Gaps: [][2]int64{}}
	if tl.FirstLaunch > tl.Start {
		out.BootstrapMs = tl.FirstLaunch - tl.Start
	}
	out.Activities = append(out.Activities, tl.Activities...)
	out.Colors = activityColors(r.Activities)
	out.Gaps = driverGaps(r, tl.Start, tl.FirstLaunch, out.WallMs)
	bars := 0
	for i := range tl.Lines {
		bars += len(tl.Lines[i].Bars)
	}
	if bars <= maxBars && len(tl.Lines) <= MaxTimelineRows {
		out.Mode = "exact"
		exactTimeline(out, tl, r)
		out.Note = fmt.Sprintf("%d task phases on %d slots, drawn exactly", bars, len(tl.Lines))
		return out
	}
	out.Mode = "binned"
	groups := groupLines(tl.Lines, MaxTimelineRows)
	binnedTimeline(out, tl, groups, TimelineBins)
	per := "one row per executor"
	if len(groups) == len(tl.Lines) {
		per = "one row per slot"
	} else if len(groups) < countExecutors(tl.Lines) {
		per = "rows merge consecutive executors"
	}
	out.Note = fmt.Sprintf("%d task phases on %d slots: aggregated (%s, %d rows) into %d columns of %s; each cell shows the activity that filled most of it, shaded by the share of the slot time tasks held",
		bars, len(tl.Lines), per, len(groups), TimelineBins, Millis(out.BinMs))
	return out
}

func exactTimeline(out *htmlTimeline, tl *dataflow.Timeline, r *dataflow.Reconstruction) {
	out.Bars = [][6]int64{}
	for row := range tl.Lines {
		l := &tl.Lines[row]
		out.Rows = append(out.Rows, l.Label())
		out.Alloc = append(out.Alloc, [3]int64{int64(row), l.Start - tl.Start, l.End - tl.Start})
		for _, b := range l.Bars {
			a := &r.Attempts[b.Attempt]
			st := r.App.Stages[a.Stage]
			out.Bars = append(out.Bars, [6]int64{int64(row), b.Start - tl.Start, b.End - tl.Start, int64(b.Activity),
				int64(st.ID), st.Tasks[a.Task].ID})
		}
	}
}

// groupLines merges lines into at most maxRows rows: one per slot when they
// fit, else one per executor, else runs of consecutive executors.
func groupLines(lines []dataflow.Line, maxRows int) []rowGroup {
	if len(lines) <= maxRows {
		gs := make([]rowGroup, len(lines))
		for i := range lines {
			gs[i] = rowGroup{label: lines[i].Label(), lo: i, hi: i + 1}
		}
		return gs
	}
	var execs []rowGroup
	for i := 0; i < len(lines); {
		j := i + 1
		for j < len(lines) && lines[j].Executor == lines[i].Executor {
			j++
		}
		label := fmt.Sprintf("%s ×%d", lines[i].Executor, j-i)
		if h := lines[i].Host; h != "" && h != lines[i].Executor {
			label += " " + h
		}
		execs = append(execs, rowGroup{label: label, lo: i, hi: j})
		i = j
	}
	if len(execs) <= maxRows {
		return execs
	}
	per := (len(execs) + maxRows - 1) / maxRows
	var gs []rowGroup
	for i := 0; i < len(execs); i += per {
		j := min(i+per, len(execs))
		first, last := lines[execs[i].lo], lines[execs[j-1].lo]
		gs = append(gs, rowGroup{label: fmt.Sprintf("executors %s–%s (%d slots)", first.Executor, last.Executor, execs[j-1].hi-execs[i].lo),
			lo: execs[i].lo, hi: execs[j-1].hi})
	}
	return gs
}

func countExecutors(lines []dataflow.Line) int {
	n := 0
	for i := range lines {
		if i == 0 || lines[i].Executor != lines[i-1].Executor {
			n++
		}
	}
	return n
}

// binGrid accumulates slot time per row and time bin: the allocated capacity
// and the time each activity held.
type binGrid struct {
	start, binMs int64
	bins, acts   int
	capacity     []int64 // [row*bins + bin]
	activity     []int64 // [(row*bins + bin)*acts + activity]
}

func newBinGrid(rows, bins, acts int, start, wallMs int64) *binGrid {
	binMs := max((wallMs+int64(bins)-1)/int64(bins), 1)
	return &binGrid{start: start, binMs: binMs, bins: bins, acts: acts,
		capacity: make([]int64, rows*bins), activity: make([]int64, rows*bins*acts)}
}

// spread calls add(bin, overlap) for each bin that [s, e) overlaps.
func (g *binGrid) spread(s, e int64, add func(bin int, ms int64)) {
	s, e = s-g.start, e-g.start
	if e <= s {
		return
	}
	for b := max(s/g.binMs, 0); b < int64(g.bins) && b*g.binMs < e; b++ {
		lo, hi := max(s, b*g.binMs), min(e, (b+1)*g.binMs)
		if hi > lo {
			add(int(b), hi-lo)
		}
	}
}

func (g *binGrid) addLine(row int, l *dataflow.Line) {
	base := row * g.bins
	g.spread(l.Start, l.End, func(b int, ms int64) { g.capacity[base+b] += ms })
	for _, bar := range l.Bars {
		if int(bar.Activity) >= g.acts || bar.Activity < 0 {
			continue
		}
		g.spread(bar.Start, bar.End, func(b int, ms int64) { g.activity[(base+b)*g.acts+int(bar.Activity)] += ms })
	}
}

// cell returns the dominant activity (-1 when tasks held under 5% of the
// capacity) and the busy share in per mille; ok is false without capacity.
func (g *binGrid) cell(row, bin int) (act int, permille int32, ok bool) {
	i := row*g.bins + bin
	c := g.capacity[i]
	if c <= 0 {
		return 0, 0, false
	}
	var busy, best int64
	act = -1
	for a, v := range g.activity[i*g.acts : (i+1)*g.acts] {
		busy += v
		if v > best {
			best, act = v, a
		}
	}
	permille = int32(min(1000*busy/c, 1000))
	if busy*20 < c {
		act = -1
	}
	return act, permille, true
}

func binnedTimeline(out *htmlTimeline, tl *dataflow.Timeline, groups []rowGroup, bins int) {
	g := newBinGrid(len(groups), bins, len(tl.Activities), tl.Start, out.WallMs)
	out.BinMs = g.binMs
	out.Cells = [][5]int32{}
	for row, gr := range groups {
		out.Rows = append(out.Rows, gr.label)
		lo, hi := tl.Lines[gr.lo].Start, tl.Lines[gr.lo].End
		for i := gr.lo; i < gr.hi; i++ {
			g.addLine(row, &tl.Lines[i])
			lo, hi = min(lo, tl.Lines[i].Start), max(hi, tl.Lines[i].End)
		}
		out.Alloc = append(out.Alloc, [3]int64{int64(row), lo - tl.Start, hi - tl.Start})
		// Run-length encode bins of the same activity and busy decile.
		run := [5]int32{-1}
		flush := func() {
			if run[0] >= 0 {
				out.Cells = append(out.Cells, run)
			}
			run[0] = -1
		}
		for b := range bins {
			act, pm, ok := g.cell(row, b)
			if !ok {
				flush()
				continue
			}
			if run[0] >= 0 && run[3] == int32(act) && run[2] == int32(b) && run[4]/100 == pm/100 {
				run[2] = int32(b + 1)
				continue
			}
			flush()
			run = [5]int32{int32(row), int32(b), int32(b + 1), int32(act), pm}
		}
		flush()
	}
}

// driverGaps finds the stretches after the first launch with no attempt
// running, at least 1% of the wall time (and 100 ms), longest first, at
// most 30.
func driverGaps(r *dataflow.Reconstruction, start, firstLaunch, wallMs int64) [][2]int64 {
	var busy []int32 // attempts that held a slot, by start (a radix sort)
	for i := range r.Attempts {
		if a := &r.Attempts[i]; a.End > a.Start {
			busy = append(busy, int32(i))
		}
	}
	keys := radix.TimeKeys(make([]radix.Keyed, 0, len(busy)), func(i int) int64 { return r.Attempts[busy[i]].Start }, len(busy))
	keys, _ = radix.Sort(keys, make([]radix.Keyed, len(keys)))
	minGap := max(wallMs/100, 100)
	gaps := [][2]int64{}
	end := firstLaunch
	for _, k := range keys {
		a := &r.Attempts[busy[k.Idx]]
		if a.Start-end >= minGap && end >= firstLaunch {
			gaps = append(gaps, [2]int64{end - start, a.Start - start})
		}
		end = max(end, a.End)
	}
	if r.End-end >= minGap && len(keys) > 0 {
		gaps = append(gaps, [2]int64{end - start, r.End - start})
	}
	slices.SortStableFunc(gaps, func(x, y [2]int64) int { return cmp.Compare(y[1]-y[0], x[1]-x[0]) })
	if len(gaps) > 30 {
		gaps = gaps[:30]
	}
	return gaps
}
