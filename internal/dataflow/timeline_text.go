package dataflow

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"
)

// Text rendering defaults.
const (
	DefaultTextWidth    = 100
	DefaultTextMaxLines = 40
)

// WriteText draws the timeline for a terminal: width columns of wall time,
// one row per line, each cell the letter of the activity that filled most of
// it (when tasks filled at least 5% of it, so that short bursts stay
// visible), '.' where the slot was allocated but idle, ' ' where it was not
// allocated. An axis row marks the bootstrap with '='. When there are more
// lines than maxLines, slots are merged into one row per executor, and rows
// beyond maxLines are counted, not drawn. Zero arguments take the defaults.
func (tl *Timeline) WriteText(w io.Writer, width, maxLines int) error {
	if width <= 0 {
		width = DefaultTextWidth
	}
	if maxLines <= 0 {
		maxLines = DefaultTextMaxLines
	}
	bw := bufio.NewWriter(w)
	span := max(tl.End-tl.Start, 1)
	letters := activityLetters(tl.Activities)
	fmt.Fprintf(bw, "timeline %s to %s (%s), one column = %s\n", clock(tl.Start), clock(tl.End),
		dur(tl.End-tl.Start), dur((span+int64(width)-1)/int64(width)))
	rows := tl.rows(maxLines)
	labelW := 0
	for _, r := range rows {
		labelW = max(labelW, len(r.label))
	}
	axis := make([]byte, width)
	for c := range axis {
		axis[c] = '-'
		if t := tl.Start + span*int64(c)/int64(width); tl.FirstLaunch > 0 && t < tl.FirstLaunch {
			axis[c] = '='
		}
	}
	fmt.Fprintf(bw, "%-*s |%s|\n", labelW, "", axis)
	acc := make([]int64, width*(len(tl.Activities)+1))
	for _, r := range rows {
		clear(acc)
		for _, l := range r.lines {
			tl.fill(acc, width, l)
		}
		fmt.Fprintf(bw, "%-*s |%s|\n", labelW, r.label, cells(acc, width, len(tl.Activities), letters))
	}
	if hidden := tl.hiddenLines(rows); hidden > 0 {
		fmt.Fprintf(bw, "... %d more lines\n", hidden)
	}
	var legend []string
	for i, a := range tl.Activities {
		legend = append(legend, string(letters[i])+" "+a)
	}
	legend = append(legend, ". idle", "= bootstrap")
	fmt.Fprintf(bw, "%s\n", strings.Join(legend, "  "))
	return bw.Flush()
}

// textRow is one drawn row: one line, or all slots of one executor.
type textRow struct {
	label string
	lines []*Line
}

// rows groups lines into at most maxLines rows.
func (tl *Timeline) rows(maxLines int) []textRow {
	var rows []textRow
	if len(tl.Lines) <= maxLines {
		for i := range tl.Lines {
			rows = append(rows, textRow{tl.Lines[i].Label(), []*Line{&tl.Lines[i]}})
		}
		return rows
	}
	for i := range tl.Lines {
		l := &tl.Lines[i]
		if n := len(rows); n > 0 && l.Slot > 0 && rows[n-1].lines[0].Executor == l.Executor {
			rows[n-1].lines = append(rows[n-1].lines, l)
			continue
		}
		label := l.Executor
		if l.Host != "" && l.Host != l.Executor {
			label += " " + l.Host
		}
		rows = append(rows, textRow{label, []*Line{l}})
	}
	if len(rows) > maxLines {
		rows = rows[:maxLines]
	}
	return rows
}

// hiddenLines counts lines not drawn in rows.
func (tl *Timeline) hiddenLines(rows []textRow) int {
	n := 0
	for _, r := range rows {
		n += len(r.lines)
	}
	return len(tl.Lines) - n
}

// fill adds line l's activity time and idle time to acc, per column; the
// idle time of column c is at acc[c*stride+nAct].
func (tl *Timeline) fill(acc []int64, width int, l *Line) {
	nAct := len(tl.Activities)
	stride := nAct + 1
	span := max(tl.End-tl.Start, 1)
	col := func(t int64) int { return int(min(max((t-tl.Start)*int64(width)/span, 0), int64(width-1))) }
	colStart := func(c int) int64 { return tl.Start + span*int64(c)/int64(width) }
	spread := func(x, y int64, k int, sign int64) {
		if y <= x {
			return
		}
		for c := col(x); c <= col(y-1); c++ {
			lo, hi := max(x, colStart(c)), min(y, colStart(c+1))
			if hi > lo {
				acc[c*stride+k] += sign * (hi - lo)
			}
		}
	}
	if l.Slot >= 0 {
		spread(l.Start, l.End, nAct, 1)
	}
	for _, b := range l.Bars {
		if int(b.Activity) < nAct {
			spread(b.Start, b.End, int(b.Activity), 1)
			if l.Slot >= 0 {
				spread(b.Start, b.End, nAct, -1)
			}
		}
	}
}

// minWorkShare: a column shows its main activity when activities fill at
// least this share of its time, so short bursts of tasks stay visible.
const minWorkShare = 0.05

// cells picks each column's letter: the activity that filled most of it
// when work filled at least minWorkShare of it, else '.' for idle
// allocated time, else ' '.
func cells(acc []int64, width, nAct int, letters []byte) []byte {
	out := make([]byte, width)
	stride := nAct + 1
	for c := range out {
		best, bestV, work := -1, int64(0), int64(0)
		for k := range nAct {
			v := acc[c*stride+k]
			work += v
			if v > bestV {
				best, bestV = k, v
			}
		}
		idle := acc[c*stride+nAct]
		switch {
		case best >= 0 && float64(work) >= minWorkShare*float64(work+max(idle, 0)):
			out[c] = letters[best]
		case idle > 0:
			out[c] = '.'
		default:
			out[c] = ' '
		}
	}
	return out
}

// activityLetters gives each activity a distinct letter, from its name when possible.
func activityLetters(names []string) []byte {
	used := map[byte]bool{'.': true, '=': true, ' ': true}
	out := make([]byte, len(names))
	pool := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	for i, n := range names {
		for _, c := range []byte(strings.ToLower(n) + pool) {
			if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') && !used[c] {
				out[i] = c
				used[c] = true
				break
			}
		}
		if out[i] == 0 {
			out[i] = '#'
		}
	}
	return out
}

func clock(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04:05") }

func dur(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.String()
}
