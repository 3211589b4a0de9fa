package dataflow

import (
	"cmp"
	"slices"
	"strconv"
)

// TimelineOptions choose the timeline's lines.
type TimelineOptions struct {
	// PerTask draws one line per task attempt instead of one per slot.
	PerTask bool
}

// Timeline is HiTune's pipeline space-time diagram (§5):
// wall time across, one line per executor slot (or per task attempt), each
// line a sequence of bars coloured by activity; between bars an allocated
// slot is idle. The stretch from Start to FirstLaunch is the bootstrap.
type Timeline struct {
	Start       int64    `json:"start"`
	End         int64    `json:"end"`
	FirstLaunch int64    `json:"firstLaunch"`
	Activities  []string `json:"activities"` // indexed by Bar.Activity
	Lines       []Line   `json:"lines"`
}

// Line is one slot of an executor (or one attempt), with its allocation window.
type Line struct {
	Executor string `json:"executor"`
	Host     string `json:"host"`
	Slot     int    `json:"slot"` // -1 for per-task lines
	Start    int64  `json:"start"`
	End      int64  `json:"end"`
	Bars     []Bar  `json:"bars"`
}

// Bar is one vertex instance on a line.
type Bar struct {
	Start    int64 `json:"start"`
	End      int64 `json:"end"`
	Activity int16 `json:"activity"`
	Attempt  int32 `json:"attempt"` // index into Reconstruction.Attempts
	// Wasted marks the bars of an attempt whose work Spark threw away
	// (Attempt.Wasted): failed, killed, output lost, partition run again.
	Wasted bool `json:"wasted,omitempty"`
}

// Label names the line for people: "executor/slot host".
func (l *Line) Label() string {
	s := l.Executor
	if l.Slot >= 0 {
		s += "/" + strconv.Itoa(l.Slot)
	}
	if l.Host != "" && l.Host != l.Executor {
		s += " " + l.Host
	}
	return s
}

// BuildTimeline lays the reconstruction out as a timeline. All bars share
// one backing array.
func BuildTimeline(r *Reconstruction, opts TimelineOptions) *Timeline {
	tl := &Timeline{Start: r.Start, End: r.End, FirstLaunch: r.FirstLaunch}
	for _, a := range r.Activities {
		tl.Activities = append(tl.Activities, a.Name)
	}
	total := 0
	for i := range r.Attempts {
		for k := range Layout(r.Attempts[i].Pool) {
			if r.Attempts[i].Dur[k] > 0 {
				total++
			}
		}
	}
	bars := make([]Bar, 0, total)
	var segs []Segment
	add := func(i int32) {
		segs = r.Segments(int(i), segs[:0])
		for _, s := range segs {
			bars = append(bars, Bar{Start: s.Start, End: s.End, Activity: s.Activity, Attempt: i, Wasted: r.Attempts[i].Wasted})
		}
	}
	if opts.PerTask {
		order := make([]int32, len(r.Attempts))
		for i := range order {
			order[i] = int32(i)
		}
		slices.SortStableFunc(order, func(x, y int32) int { return cmp.Compare(r.Attempts[x].Start, r.Attempts[y].Start) })
		tl.Lines = make([]Line, 0, len(order))
		for _, i := range order {
			a := &r.Attempts[i]
			lo := len(bars)
			add(i)
			tl.Lines = append(tl.Lines, Line{Executor: r.App.Executors[a.Executor].ID, Host: r.App.Host(a.Host), Slot: -1,
				Start: a.Start, End: a.End, Bars: bars[lo:len(bars):len(bars)]})
		}
		return tl
	}
	var off []int
	var bySlot []int32
	for _, span := range r.Executors {
		// Counting sort of the executor's attempts by slot keeps start order within each slot.
		off = off[:0]
		for range span.Slots + 1 {
			off = append(off, 0)
		}
		for _, i := range span.Attempts {
			off[r.Attempts[i].Slot+1]++
		}
		for s := 1; s <= span.Slots; s++ {
			off[s] += off[s-1]
		}
		bySlot = append(bySlot[:0], span.Attempts...)
		pos := append([]int(nil), off...)
		for _, i := range span.Attempts {
			s := r.Attempts[i].Slot
			bySlot[pos[s]] = i
			pos[s]++
		}
		host := span.Host
		if host == "" && len(span.Attempts) > 0 {
			host = r.App.Host(r.Attempts[span.Attempts[0]].Host)
		}
		for s := range span.Slots {
			lo := len(bars)
			for _, i := range bySlot[off[s]:off[s+1]] {
				add(i)
			}
			tl.Lines = append(tl.Lines, Line{Executor: span.ID, Host: host, Slot: s, Start: span.Start, End: span.End,
				Bars: bars[lo:len(bars):len(bars)]})
		}
	}
	return tl
}
