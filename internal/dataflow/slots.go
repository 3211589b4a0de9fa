package dataflow

import "github.com/clusterlens/clusterlens/internal/radix"

// ExecutorSpan is an executor's allocation: from its add event to its
// remove event (dynamic allocation), widened to cover every attempt it ran,
// with the slots its attempts used. A missing remove event means the
// application's end (or the last time its log shows).
type ExecutorSpan struct {
	Index uint32 // into App.Executors
	ID    string
	Host  string
	// Slots is the executor's concurrent task capacity: its cores divided
	// by the cores per task, or more when its attempts overlapped more.
	Slots      int
	Start, End int64
	// Attempts are the indices of the executor's attempts, by start.
	Attempts []int32
}

// Allocated is the span's slot time, in slot-milliseconds.
func (e *ExecutorSpan) Allocated() int64 { return int64(e.Slots) * (e.End - e.Start) }

// assignSlots places attempts on executor slots greedily, in start order,
// each on the lowest-numbered slot free at its start, so that attempts
// overlapping on one executor take different slots; then it derives the
// executors' spans.
func (r *Reconstruction) assignSlots(cpus int) {
	app := r.App
	// Sort by start, then (stably) by executor: radix sorts over the keys.
	keys := radix.TimeKeys(make([]radix.Keyed, 0, len(r.Attempts)), func(i int) int64 { return r.Attempts[i].Start }, len(r.Attempts))
	buf := make([]radix.Keyed, len(keys))
	keys, buf = radix.Sort(keys, buf)
	r.starts = make([]int64, len(keys))
	for i := range keys {
		a := &r.Attempts[keys[i].Idx]
		r.starts[i] = a.Start
		keys[i].Key = uint64(a.Executor)
	}
	keys, _ = radix.Sort(keys, buf)
	r.order = make([]int32, len(keys))
	for i := range keys {
		r.order[i] = keys[i].Idx
	}
	var ends []int64
	next := 0
	for ei, e := range app.Executors {
		lo := next
		for next < len(r.order) && r.Attempts[r.order[next]].Executor == uint32(ei) {
			next++
		}
		idx := r.order[lo:next:next]
		if e == nil || len(idx) == 0 && (e.ID == "driver" || (e.Added <= 0 && e.BlockManagerAdded <= 0)) {
			continue // the driver, or an executor that never existed in time, holds no task slots
		}
		ends = ends[:0]
		span := ExecutorSpan{Index: uint32(ei), ID: e.ID, Host: e.Host, Attempts: idx}
		span.Start = e.Added
		if span.Start <= 0 {
			span.Start = e.BlockManagerAdded
		}
		if span.Start <= 0 {
			span.Start = r.Start
		}
		span.End = e.Removed
		if span.End <= 0 || span.End < span.Start {
			span.End = r.End
		}
		for _, i := range idx {
			a := &r.Attempts[i]
			s := 0
			for s < len(ends) && ends[s] > a.Start {
				s++
			}
			if s == len(ends) {
				ends = append(ends, a.End)
			} else {
				ends[s] = a.End
			}
			a.Slot = int32(s)
			span.Start = min(span.Start, a.Start)
			span.End = max(span.End, a.End)
		}
		span.End = max(span.End, span.Start)
		span.Slots = max(len(ends), 1)
		if e.Cores > 0 {
			span.Slots = max(span.Slots, int(e.Cores)/max(cpus, 1))
		}
		r.Executors = append(r.Executors, span)
	}
}
