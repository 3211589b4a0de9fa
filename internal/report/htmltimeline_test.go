package report

import (
	"fmt"
	"testing"

	"github.com/clusterlens/clusterlens/internal/dataflow"
)

func TestBinGridCell(t *testing.T) {
	g := newBinGrid(1, 4, 2, 1000, 400) // bins of 100 ms from 1000
	g.addLine(0, &dataflow.Line{Start: 1000, End: 1300, Bars: []dataflow.Bar{
		{Start: 1000, End: 1100, Activity: 1}, // bin 0 full of activity 1
		{Start: 1150, End: 1200, Activity: 0}, // bin 1 half of activity 0
		{Start: 1200, End: 1202, Activity: 1}, // bin 2: 2% busy, idle
	}})
	for _, c := range []struct {
		bin     int
		act     int
		permill int32
		ok      bool
	}{{0, 1, 1000, true}, {1, 0, 500, true}, {2, -1, 20, true}, {3, 0, 0, false}} {
		act, pm, ok := g.cell(0, c.bin)
		if ok != c.ok || (ok && (act != c.act || pm != c.permill)) {
			t.Errorf("bin %d: activity %d, %d‰, %v; want %d, %d‰, %v", c.bin, act, pm, ok, c.act, c.permill, c.ok)
		}
	}
}

func TestGroupLines(t *testing.T) {
	var lines []dataflow.Line
	for e := range 100 {
		for s := range 5 {
			lines = append(lines, dataflow.Line{Executor: fmt.Sprint(e), Host: fmt.Sprintf("h%d", e%7), Slot: s})
		}
	}
	for _, c := range []struct{ lines, maxRows, want int }{
		{500, 600, 500}, // one row per slot
		{500, 160, 100}, // one row per executor
		{500, 30, 25},   // four executors a row
		{5, 160, 5},
	} {
		gs := groupLines(lines[:c.lines], c.maxRows)
		if len(gs) != c.want {
			t.Errorf("%d lines, at most %d rows: %d rows, want %d", c.lines, c.maxRows, len(gs), c.want)
		}
		next := 0
		for _, g := range gs {
			if g.lo != next || g.hi <= g.lo || g.label == "" {
				t.Fatalf("%d lines: row %+v does not continue at %d", c.lines, g, next)
			}
			next = g.hi
		}
		if next != c.lines {
			t.Errorf("%d lines: rows cover %d", c.lines, next)
		}
	}
}

// TestTimelineModes: a small application is drawn exactly, bar for bar; with
// a budget it cannot meet it is binned within the row and column caps, and
// both account for the same slots.
func TestTimelineModes(t *testing.T) {
	as := simAnalyses(t, "imbalance", 5)
	for _, a := range as {
		r := a.Reconstruction()
		tl := dataflow.BuildTimeline(r, dataflow.TimelineOptions{})
		bars := 0
		for i := range tl.Lines {
			bars += len(tl.Lines[i].Bars)
		}
		exact := buildHTMLTimeline(r, tl, bars)
		binned := buildHTMLTimeline(r, tl, bars-1)
		if exact.Mode != "exact" || len(exact.Bars) != bars || len(exact.Rows) != len(tl.Lines) {
			t.Errorf("%s: exact mode %q with %d bars, %d rows; want %d bars on %d lines", a.Summary.App.ID, exact.Mode, len(exact.Bars), len(exact.Rows), bars, len(tl.Lines))
		}
		if binned.Mode != "binned" || len(binned.Rows) > MaxTimelineRows || binned.BinMs*TimelineBins < binned.WallMs {
			t.Errorf("%s: binned mode %q, %d rows, bins of %d ms over %d ms", a.Summary.App.ID, binned.Mode, len(binned.Rows), binned.BinMs, binned.WallMs)
		}
		for _, c := range binned.Cells {
			if int(c[0]) >= len(binned.Rows) || c[1] >= c[2] || c[2] > TimelineBins || int(c[3]) >= len(binned.Activities) || c[4] < 0 || c[4] > 1000 {
				t.Fatalf("%s: bad cell %v", a.Summary.App.ID, c)
			}
		}
		if len(binned.Cells) == 0 || exact.Slots != binned.Slots || len(exact.Colors) != len(exact.Activities) {
			t.Errorf("%s: %d cells, slots %d and %d", a.Summary.App.ID, len(binned.Cells), exact.Slots, binned.Slots)
		}
		for _, b := range exact.Bars {
			if b[1] < 0 || b[2] > exact.WallMs || b[1] > b[2] {
				t.Fatalf("%s: bar %v outside [0, %d]", a.Summary.App.ID, b, exact.WallMs)
			}
		}
		for _, g := range exact.Gaps {
			if g[0] < exact.BootstrapMs || g[1] <= g[0] || g[1] > exact.WallMs {
				t.Errorf("%s: driver gap %v (bootstrap %d, wall %d)", a.Summary.App.ID, g, exact.BootstrapMs, exact.WallMs)
			}
		}
	}
}

// TestActivityColorsDistinct: every activity of the built-in Spark and
// MapReduce specifications gets its own colour on the timeline.
func TestActivityColorsDistinct(t *testing.T) {
	for _, a := range simAnalyses(t, "imbalance", 3) {
		seen := map[string]string{}
		for i, c := range activityColors(a.Reconstruction().Activities) {
			name := a.Reconstruction().Activities[i].Name
			if prev, ok := seen[c]; ok {
				t.Errorf("%s: %s and %s share colour %s", a.Summary.App.Engine, prev, name, c)
			}
			seen[c] = name
		}
	}
}
