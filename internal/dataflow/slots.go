package dataflow

import (
	"math"

	"github.com/clusterlens/clusterlens/internal/radix"
)

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
	var ends firstFit
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
		ends.reset()
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
			a.Slot = int32(ends.place(a.Start, a.End))
			span.Start = min(span.Start, a.Start)
			span.End = max(span.End, a.End)
		}
		span.End = max(span.End, span.Start)
		span.Slots = max(ends.n, 1)
		if e.Cores > 0 {
			span.Slots = max(span.Slots, int(e.Cores)/max(cpus, 1))
		}
		r.Executors = append(r.Executors, span)
	}
}

// firstFit is the slots of one executor by the end of their last attempt:
// a segment tree holding the least end under each node, so that placing an
// attempt on the lowest-numbered slot free at its start takes O(log slots)
// rather than a scan of every slot (executors of many cores, or whose
// attempts overlapped far beyond them).
type firstFit struct {
	n   int     // slots in use
	min []int64 // min[1] is the root; the leaves are min[len/2:], math.MaxInt64 when unused
}

// reset empties the tree for the next executor.
func (f *firstFit) reset() {
	f.n = 0
	for i := range f.min {
		f.min[i] = math.MaxInt64
	}
}

// place puts an attempt [start, end) on the lowest slot whose last attempt
// ended by start, or on a new slot, and returns the slot.
func (f *firstFit) place(start, end int64) int {
	leaves := len(f.min) / 2
	s := f.n
	if f.n > 0 && f.min[1] <= start {
		i := 1
		for i < leaves {
			if i *= 2; f.min[i] > start {
				i++
			}
		}
		s = i - leaves
	} else if f.n == leaves {
		f.grow()
		leaves = len(f.min) / 2
	}
	if s == f.n {
		f.n++
	}
	i := s + leaves
	f.min[i] = end
	for i > 1 {
		i /= 2
		f.min[i] = min(f.min[2*i], f.min[2*i+1])
	}
	return s
}

// grow doubles the leaves, keeping the slots.
func (f *firstFit) grow() {
	old := f.min[len(f.min)/2:]
	leaves := max(2*len(old), 8)
	f.min = make([]int64, 2*leaves)
	for i := range f.min {
		f.min[i] = math.MaxInt64
	}
	copy(f.min[leaves:], old)
	for i := leaves - 1; i >= 1; i-- {
		f.min[i] = min(f.min[2*i], f.min[2*i+1])
	}
}
