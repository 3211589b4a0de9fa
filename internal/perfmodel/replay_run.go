package perfmodel

import (
	"container/heap"
	"slices"
)

// Event kinds of the replay, in the order they are handled at one instant.
const (
	evCapacity = iota // executors came or went: i is the change in slots
	evExecutor        // executor i was added (the replay with a slot pool)
	evStageDone
	evJobDone
	evJobRelease
	evStageReady
)

// item is a timed task finish or event.
type item struct {
	t    int64
	kind int
	i    int // stage or job index
	seq  int
}

// itemHeap is a binary min-heap of items by time, then kind, then
// insertion; typed rather than container/heap so pushes do not allocate.
type itemHeap struct{ items []item }

// Len is the number of items.
func (h *itemHeap) Len() int { return len(h.items) }

func (h *itemHeap) less(a, b int) bool {
	x, y := &h.items[a], &h.items[b]
	if x.t != y.t {
		return x.t < y.t
	}
	if x.kind != y.kind {
		return x.kind < y.kind
	}
	return x.seq < y.seq
}

func (h *itemHeap) push(x item) {
	h.items = append(h.items, x)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *itemHeap) pop() item {
	top := h.items[0]
	n := len(h.items) - 1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	i := 0
	for {
		l, m := 2*i+1, i
		if l < n && h.less(l, m) {
			m = l
		}
		if r := l + 1; r < n && h.less(r, m) {
			m = r
		}
		if m == i {
			return top
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}

// taskItem is a running task's finish time and stage index.
type taskItem struct {
	t    int64
	i    int32 // stage index
	exec int32 // executor index in the slot pool, when there is one
}

// stageHeap orders runnable stages by Spark's FIFO priority: job id, then stage id.
type stageHeap struct {
	w  *Workload
	st []int
}

// Len, Less, Swap, Push and Pop implement container/heap.Interface.
func (h *stageHeap) Len() int { return len(h.st) }

func (h *stageHeap) Less(a, b int) bool {
	x, y := &h.w.Stages[h.st[a]], &h.w.Stages[h.st[b]]
	jx, jy := h.w.Jobs[x.Job].ID, h.w.Jobs[y.Job].ID
	if jx != jy {
		return jx < jy
	}
	return x.ID < y.ID
}
func (h *stageHeap) Swap(a, b int) { h.st[a], h.st[b] = h.st[b], h.st[a] }
func (h *stageHeap) Push(x any)    { h.st = append(h.st, x.(int)) }
func (h *stageHeap) Pop() any {
	n := len(h.st) - 1
	x := h.st[n]
	h.st = h.st[:n]
	return x
}

// run is the state of one replay.
type run struct {
	p                 *Plan
	free              int
	tasks             *taskWheel
	events            itemHeap
	runnable          stageHeap
	seq               int
	nextTask          []int // per stage: next task to launch
	retry             []int // per stage: next of its Retries to wait for
	finished, waiting []int // per stage: tasks finished, parents not done
	jobLeft           []int // per job: stages not done
	jobReleased       []bool
	jobDone           []bool
	done              int  // jobs done
	prefix            int  // jobs done in completion order, a prefix length
	released          int  // jobs released, in p.byPrereq order
	starved           bool // a runnable task once found no free slot
	// pool, when set, holds the free slots with their executors' lives
	// (the replay at the recorded configuration with executors coming and
	// going); free is then unused.
	pool *slotPool
}

func newRun(p *Plan, slots int) *run {
	w := p.w
	n := len(w.Stages)
	r := &run{
		p: p, free: slots, tasks: newTaskWheel(), runnable: stageHeap{w: w},
		nextTask: make([]int, n), retry: make([]int, n), finished: make([]int, n), waiting: make([]int, n),
		jobLeft: make([]int, len(w.Jobs)), jobReleased: make([]bool, len(w.Jobs)), jobDone: make([]bool, len(w.Jobs)),
	}
	for i := range w.Stages {
		r.waiting[i] = len(w.Stages[i].Parents)
	}
	for k := range w.Jobs {
		r.jobLeft[k] = len(w.Jobs[k].Stages)
	}
	return r
}

// atCapacity schedules a change of delta slots at t.
func (r *run) atCapacity(t int64, delta int) {
	if delta != 0 {
		r.at(t, evCapacity, delta)
	}
}

// at schedules an event.
func (r *run) at(t int64, kind, i int) {
	r.seq++
	r.events.push(item{t: t, kind: kind, i: i, seq: r.seq})
}

// launch fills free slots with the tasks of the highest-priority runnable stages.
func (r *run) launch(now int64) {
	w := r.p.w
	r.tasks.advance(now)
	if r.pool != nil {
		r.launchPooled(now)
		return
	}
	for r.free > 0 && r.runnable.Len() > 0 {
		si := r.runnable.st[0]
		d := w.Stages[si].Durations
		end := r.attemptEnd(si)
		for r.free > 0 && r.nextTask[si] < end {
			r.tasks.push(taskItem{t: now + d[r.nextTask[si]], i: int32(si)})
			r.nextTask[si]++
			r.free--
		}
		if r.nextTask[si] == end {
			heap.Pop(&r.runnable) // all launched, or its next attempt waits for this one
		}
	}
	if r.free <= 0 && r.runnable.Len() > 0 {
		r.starved = true
	}
}

// launchPooled is launch with a slot pool: each task, in priority order,
// takes a slot whose executor outlives it; the first that finds none waits,
// and the tasks behind it with it.
func (r *run) launchPooled(now int64) {
	w := r.p.w
	for r.runnable.Len() > 0 {
		si := r.runnable.st[0]
		d := w.Stages[si].Durations
		end := r.attemptEnd(si)
		failed := w.Stages[si].Failed
		for r.nextTask[si] < end {
			k := r.nextTask[si]
			lost := k < len(failed) && failed[k]
			e, dies, ok := r.pool.take(now, d[k], lost)
			if !ok {
				r.starved = true
				return
			}
			t := now + d[k]
			if lost {
				t = min(t, max(now, dies)) // it dies with its executor
			}
			r.tasks.push(taskItem{t: t, i: int32(si), exec: e})
			r.nextTask[si]++
		}
		heap.Pop(&r.runnable) // all launched, or its next attempt waits for this one
	}
}

// attemptEnd is the end, in the stage's Durations, of the tasks of the
// stage attempt it runs now.
func (r *run) attemptEnd(si int) int {
	s := &r.p.w.Stages[si]
	if k := r.retry[si]; k < len(s.Retries) {
		return s.Retries[k].From
	}
	return len(s.Durations)
}

// finish records a task of stage si finishing at now: the stage completes
// after its last task, and its next attempt becomes ready after the last
// task of the one before it.
func (r *run) finish(now int64, it taskItem) {
	si := int(it.i)
	if r.pool != nil {
		if l := r.pool.lives[it.exec]; l.ended > now {
			r.pool.add(l.ended, it.exec, 1)
		}
	} else {
		r.free++
	}
	r.finished[si]++
	s := &r.p.w.Stages[si]
	switch k := r.retry[si]; {
	case r.finished[si] == len(s.Durations):
		r.at(now+r.p.endDelay[si], evStageDone, si)
	case k < len(s.Retries) && r.finished[si] == s.Retries[k].From:
		r.retry[si]++
		r.at(now+s.Retries[k].Delay, evStageReady, si)
	}
}

// next is the time of the next task finish or event.
func (r *run) next() (int64, bool) {
	switch {
	case r.tasks.Len() > 0 && r.events.Len() > 0:
		return min(r.tasks.min(), r.events.items[0].t), true
	case r.tasks.Len() > 0:
		return r.tasks.min(), true
	case r.events.Len() > 0:
		return r.events.items[0].t, true
	}
	return 0, false
}

// releaseFollowers advances the completed prefix of jobs in completion order
// and releases the jobs whose predecessors now all completed, each after its
// recorded gap.
func (r *run) releaseFollowers(now int64) {
	o := r.p.ord
	for r.prefix < len(o.jobs) && r.jobDone[o.jobs[r.prefix]] {
		r.prefix++
	}
	for r.released < len(r.p.byPrereq) {
		k := r.p.byPrereq[r.released]
		if o.prereq[k] > r.prefix {
			return
		}
		r.at(now+r.p.jobGap[k], evJobRelease, k)
		r.released++
	}
}

// unstick breaks a deadlock of inconsistent input: it readies the first
// stage of a released job still waiting for parents, or else releases the
// next job in order. It reports whether it found anything to start.
func (r *run) unstick(now int64) bool {
	w := r.p.w
	if r.runnable.Len() > 0 && r.pool != nil {
		// Every executor gone with work left and none to come: carry on
		// with one that lives on.
		r.pool.lives = append(r.pool.lives, life{now, 1<<62 - 1, max(1, r.p.peak), ""})
		r.pool.add(1<<62-1, int32(len(r.pool.lives)-1), max(1, r.p.peak))
		return true
	}
	if r.runnable.Len() > 0 && r.free <= 0 {
		// Every executor gone with work left and none to come: carry on
		// with the recorded slots.
		r.free += max(1, r.p.peak)
		return true
	}
	for si := range w.Stages {
		if r.waiting[si] > 0 && r.jobReleased[w.Stages[si].Job] {
			r.waiting[si] = 0
			r.at(now+r.p.startDelay[si], evStageReady, si)
			return true
		}
	}
	if r.released < len(r.p.byPrereq) {
		k := r.p.byPrereq[r.released]
		r.at(now+r.p.jobGap[k], evJobRelease, k)
		r.released++
		return true
	}
	return false
}

// sortByKey sorts xs stably by key.
func sortByKey(xs []int, key func(int) int) {
	slices.SortStableFunc(xs, func(a, b int) int { return key(a) - key(b) })
}
