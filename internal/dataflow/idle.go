package dataflow

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"github.com/clusterlens/clusterlens/internal/radix"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// idleSeg is a stretch of wall time with one idle cause: what an idle slot
// at that time is waiting for.
type idleSeg struct {
	start int64
	cause Cause
	stage int32 // the stage in its straggler tail, for CauseStragglerTail
}

// stageTail is a stage's straggler-tail window: from its median attempt's
// finish to its last attempt's finish.
type stageTail struct {
	stage          int32
	median, finish int64
}

// stageTails computes each stage's tail from its attempts, which
// Reconstruct appends stage by stage.
func (r *Reconstruction) stageTails() []stageTail {
	var out []stageTail
	var ends []int64
	for lo := 0; lo < len(r.Attempts); {
		hi := lo
		for hi < len(r.Attempts) && r.Attempts[hi].Stage == r.Attempts[lo].Stage {
			hi++
		}
		ends = ends[:0]
		last := int64(0)
		for i := lo; i < hi; i++ {
			ends = append(ends, r.Attempts[i].End)
			last = max(last, r.Attempts[i].End)
		}
		out = append(out, stageTail{stage: r.Attempts[lo].Stage, median: stats.Select(ends, (len(ends)+1)/2-1), finish: last})
		lo = hi
	}
	return out
}

// idleTimeline sweeps the application's wall time and tells, for each
// stretch, why an idle slot is idle: no task runs anywhere (the driver
// alone), a stage is in its straggler tail while fewer than tailFraction of
// the allocated slots run tasks, or neither. Adjacent stretches with the
// same cause are merged. The first stretch starts at math.MinInt64.
func (r *Reconstruction) idleTimeline(tails []stageTail) []idleSeg {
	starts, ends := r.sortedTimes()
	type delta struct {
		t int64
		v int
	}
	slotEv := make([]delta, 0, 2*len(r.Executors))
	for i := range r.Executors {
		e := &r.Executors[i]
		slotEv = append(slotEv, delta{e.Start, e.Slots}, delta{e.End, -e.Slots})
	}
	slices.SortFunc(slotEv, func(a, b delta) int { return cmp.Compare(a.t, b.t) })
	tailEv := make([]delta, 0, 2*len(tails)) // v: +(i+1) opens tail i, -(i+1) closes it
	for i, t := range tails {
		if t.finish > t.median {
			tailEv = append(tailEv, delta{t.median, i + 1}, delta{t.finish, -(i + 1)})
		}
	}
	slices.SortFunc(tailEv, func(a, b delta) int { return cmp.Compare(a.t, b.t) })

	segs := []idleSeg{{start: math.MinInt64, cause: CauseDriver, stage: -1}}
	var si, ei, li, ti int
	running, slots := 0, 0
	var open []int // open tails, by index into tails
	for {
		t := int64(math.MaxInt64)
		if si < len(starts) {
			t = min(t, starts[si])
		}
		if ei < len(ends) {
			t = min(t, ends[ei])
		}
		if li < len(slotEv) {
			t = min(t, slotEv[li].t)
		}
		if ti < len(tailEv) {
			t = min(t, tailEv[ti].t)
		}
		if t == math.MaxInt64 {
			break
		}
		for ; si < len(starts) && starts[si] == t; si++ {
			running++
		}
		for ; ei < len(ends) && ends[ei] == t; ei++ {
			running--
		}
		for ; li < len(slotEv) && slotEv[li].t == t; li++ {
			slots += slotEv[li].v
		}
		for ; ti < len(tailEv) && tailEv[ti].t == t; ti++ {
			if v := tailEv[ti].v; v > 0 {
				open = append(open, v-1)
			} else if k := slices.Index(open, -v-1); k >= 0 {
				open = slices.Delete(open, k, k+1)
			}
		}
		seg := idleSeg{start: t, cause: CauseAllocatedIdle, stage: -1}
		switch {
		case running <= 0:
			seg.cause = CauseDriver
		case len(open) > 0 && float64(running) < r.tailFraction*float64(slots):
			seg.cause, seg.stage = CauseStragglerTail, tails[open[len(open)-1]].stage
		}
		if p := &segs[len(segs)-1]; p.cause == seg.cause && p.stage == seg.stage {
			continue
		}
		segs = append(segs, seg)
	}
	return segs
}

// sortedTimes returns the attempts' starts and ends, each sorted.
func (r *Reconstruction) sortedTimes() (starts, ends []int64) {
	n := len(r.Attempts)
	keys := radix.TimeKeys(make([]radix.Keyed, 0, n), func(i int) int64 { return r.Attempts[i].End }, n)
	keys, _ = radix.Sort(keys, make([]radix.Keyed, n))
	ends = make([]int64, n)
	for i := range keys {
		ends[i] = r.Attempts[keys[i].Idx].End
	}
	starts = r.starts
	if len(starts) != n {
		starts = make([]int64, n)
		for i := range r.Attempts {
			starts[i] = r.Attempts[i].Start
		}
		slices.Sort(starts)
	}
	return starts, ends
}

// classify splits the idle stretch [x, y) by cause, calling add for each part.
func classify(segs []idleSeg, x, y int64, add func(c Cause, stage int32, d int64)) {
	if y <= x {
		return
	}
	i := sort.Search(len(segs), func(i int) bool { return segs[i].start > x }) - 1
	for ; i < len(segs) && x < y; i++ {
		end := y
		if i+1 < len(segs) {
			end = min(end, segs[i+1].start)
		}
		if end > x {
			add(segs[i].cause, segs[i].stage, end-x)
			x = end
		}
	}
}
