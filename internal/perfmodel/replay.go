package perfmodel

import (
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"sync"
)

// ErrStalled is returned when the replay cannot finish every job even after
// breaking inconsistent links (see Plan.Replay).
var ErrStalled = errors.New("replay stalled")

// Plan is a workload prepared for replay: the recorded driver and scheduler
// delays the replay keeps fixed, and the job order. Build it once with
// NewPlan and Replay it for any number of slots.
type Plan struct {
	w *Workload
	// Per stage: delay from readiness (job released and parents done) to its
	// first task launch, and from its last task finish to its completion.
	startDelay, endDelay []int64
	children             [][]int
	// Per job: delay from its predecessors' end to its submission, and from
	// its last stage to its completion (for a job without stages, its span).
	jobGap, jobTail []int64
	ord             order
	byPrereq        []int // job indexes by prerequisite count
	// appTail is the time from the last job's completion to the application end.
	appTail int64
	// steps are the slots the executors offered over time, nil when steady
	// (capacitySteps); peak is the recorded slots.
	steps []capStep
	peak  int
	// lives are the executors' lives the replay at the recorded
	// configuration follows when steps is set.
	lives []life
	// impact is the plan Without replays (impactPlan), once built; base
	// is its replay at the recorded configuration, once done.
	impact   *Plan
	base     int64
	baseErr  error
	baseDone bool
	// memo keeps the replays done (nil for a plan Without edited).
	memo *planMemo
}

// planMemo holds a plan's replays done, by slots (a replay is
// deterministic: the self-check, the impacts' base and the what-if share
// one), and alone each stage's replay alone at the recorded slots
// (StageAlone).
type planMemo struct {
	mu    sync.Mutex
	times map[int]replayed
	alone map[int]*aloneRecorded
}

// replayed is one replay's outcome (Plan.replay).
type replayed struct {
	t       int64
	starved bool
	err     error
}

// NewPlan prepares w for replay. The delays are measured on the recorded run
// and never negative:
//
//   - a job is submitted when every job that completed before its recorded
//     submission has completed, plus the recorded gap after the last of them
//     (the driver's time between actions);
//   - a stage becomes ready when its job is submitted and its parents are
//     complete, and launches its first task after the recorded delay from that
//     point (stage submission, scheduler delay), unless other stages' tasks
//     filled every slot when it was submitted: then the wait was for slots,
//     which the replay models, and only the submission delay is kept;
//   - a retried stage (Stage.Retries) runs its attempts one after another:
//     a retry's tasks launch when every earlier task of the stage finished,
//     plus the retry's recorded delay from its submission to its first
//     launch; its children's start delays count from its first attempt's
//     completion. Failed, killed and speculative attempts take a slot for
//     their recorded time like any task, so the replay keeps the time the
//     run lost to failures (Sparklens merges the attempts into one wave);
//   - a stage completes its recorded lag after its last task, and a job its
//     recorded lag after its last stage;
//   - the application ends its recorded lag after its last job.
func NewPlan(w *Workload) *Plan {
	p := &Plan{w: w, ord: jobOrder(w), memo: &planMemo{times: map[int]replayed{}, alone: map[int]*aloneRecorded{}}}
	c := CoresOf(w)
	slots := c.Slots
	p.steps, p.peak = capacitySteps(w, c), slots
	if p.steps != nil {
		p.lives = executorLives(w)
	}
	n := len(w.Stages)
	p.startDelay, p.endDelay = make([]int64, n), make([]int64, n)
	p.children = make([][]int, n)
	for i := range w.Stages {
		s := &w.Stages[i]
		base := w.Jobs[s.Job].Submitted
		for _, par := range s.Parents {
			base = max(base, w.Stages[par].FirstCompleted)
			p.children[par] = append(p.children[par], i)
		}
		launch := s.FirstLaunch
		if s.BusyAtSubmit >= slots {
			// Every slot was taken: the stage waited for slots, which the
			// replay models itself; keep only the submission delay.
			launch = s.Submitted
		}
		p.startDelay[i] = max(0, launch-base)
		p.endDelay[i] = max(0, s.Completed-s.LastFinish)
	}
	p.jobGap, p.jobTail = make([]int64, len(w.Jobs)), make([]int64, len(w.Jobs))
	var lastJob int64
	for k := range w.Jobs {
		j := &w.Jobs[k]
		base := w.Start
		if pre := p.ord.prereq[k]; pre > 0 {
			base = max(base, w.Jobs[p.ord.jobs[pre-1]].Completed)
		}
		p.jobGap[k] = max(0, j.Submitted-base)
		if len(j.Stages) == 0 {
			p.jobTail[k] = max(0, j.Completed-j.Submitted)
		} else {
			var last int64
			for _, si := range j.Stages {
				last = max(last, w.Stages[si].Completed)
			}
			p.jobTail[k] = max(0, j.Completed-last)
		}
		lastJob = max(lastJob, j.Completed)
	}
	p.appTail = max(0, w.End-lastJob)
	p.byPrereq = make([]int, len(w.Jobs))
	for k := range p.byPrereq {
		p.byPrereq[k] = k
	}
	sortByKey(p.byPrereq, func(k int) int { return p.ord.prereq[k] })
	return p
}

// Replay runs the plan on slots task slots (cores / spark.task.cpus) and
// returns the application's completion time in milliseconds. When the
// recorded executors came and went while tasks ran (dynamic allocation,
// executors lost and replaced), the slots follow them over time, scaled so
// that the most at once is slots.
//
// The scheduler follows Sparklens's CompletionEstimator and
// PQParallelStageScheduler: stages start when their parents end, each task
// takes its recorded duration and occupies a free slot as soon as one is
// available, tasks are offered in the order they launched, and runnable
// stages are served in Spark's FIFO order (job, then stage id). Unlike
// Sparklens, which replays each job group separately and adds the driver
// time back as one sum, jobs run on one shared cluster and the recorded
// driver gaps stay where they happened, so concurrent jobs compete for slots.
//
// Inconsistent input (a stage whose parent belongs to a job that itself
// waits for the stage's job) could deadlock the replay; when nothing is left
// to happen, the replay starts the waiting stage (or job) that comes first,
// as if its unfinished links were absent, and carries on.
func (p *Plan) Replay(slots int) (int64, error) {
	t, _, err := p.replay(slots)
	return t, err
}

// replay is Replay that also reports whether a task ever waited for a free
// slot. When none did, every task launched the moment its stage could run,
// so the replay with any larger number of slots goes step for step the same
// way and gives the same time.
func (p *Plan) replay(slots int) (int64, bool, error) {
	if slots <= 0 {
		return 0, false, fmt.Errorf("replay with %d slots: need at least one", slots)
	}
	m := p.memo
	if m == nil {
		return p.replayOnce(slots)
	}
	m.mu.Lock()
	r, ok := m.times[slots]
	m.mu.Unlock()
	if !ok {
		r.t, r.starved, r.err = p.replayOnce(slots)
		m.mu.Lock()
		m.times[slots] = r
		m.mu.Unlock()
	}
	return r.t, r.starved, r.err
}

// replayOnce is replay without the memo.
func (p *Plan) replayOnce(slots int) (int64, bool, error) {
	w := p.w
	r := newRun(p, slots)
	defer r.tasks.release()
	switch {
	case p.steps != nil && slots == p.peak:
		// The recorded configuration: each executor's slots for its life.
		r.pool = &slotPool{lives: slices.Clone(p.lives)}
		for e, l := range r.pool.lives {
			r.at(max(0, l.added), evExecutor, e)
			r.pool.last = max(r.pool.last, l.added)
		}
	case p.steps != nil:
		r.free = 0
		prev := 0
		for _, st := range scaledSteps(p.steps, p.peak, slots) {
			r.atCapacity(st.t, st.slots-prev)
			prev = st.slots
		}
	}
	for _, k := range p.byPrereq {
		if p.ord.prereq[k] > 0 {
			break
		}
		r.at(p.jobGap[k], evJobRelease, k)
		r.released++
	}
	var now, lastJob int64
	for {
		r.launch(now)
		next, ok := r.next()
		if !ok {
			if r.done == len(w.Jobs) || !r.unstick(now) {
				break
			}
			continue
		}
		now = next
		for r.tasks.Len() > 0 && r.tasks.min() == now || r.events.Len() > 0 && r.events.items[0].t == now {
			if r.tasks.Len() > 0 && r.tasks.min() == now {
				r.finish(now, r.tasks.pop())
				continue
			}
			it := r.events.pop()
			switch it.kind {
			case evCapacity:
				r.free += it.i
			case evExecutor:
				l := r.pool.lives[it.i]
				r.pool.add(l.ended, int32(it.i), l.slots)
			case evJobRelease:
				r.jobReleased[it.i] = true
				j := &w.Jobs[it.i]
				if len(j.Stages) == 0 {
					r.at(now+p.jobTail[it.i], evJobDone, it.i)
				}
				for _, si := range j.Stages {
					if r.waiting[si] == 0 {
						r.at(now+p.startDelay[si], evStageReady, si)
					}
				}
			case evStageReady:
				heap.Push(&r.runnable, it.i)
			case evStageDone:
				for _, c := range p.children[it.i] {
					r.waiting[c]--
					if r.waiting[c] == 0 && r.jobReleased[w.Stages[c].Job] {
						r.at(now+p.startDelay[c], evStageReady, c)
					}
				}
				k := w.Stages[it.i].Job
				r.jobLeft[k]--
				if r.jobLeft[k] == 0 {
					r.at(now+p.jobTail[k], evJobDone, k)
				}
			case evJobDone:
				r.jobDone[it.i] = true
				r.done++
				lastJob = max(lastJob, now)
				r.releaseFollowers(now)
			}
		}
	}
	if r.done != len(w.Jobs) {
		return 0, r.starved, fmt.Errorf("%w: %d of %d jobs finished", ErrStalled, r.done, len(w.Jobs))
	}
	return lastJob + p.appTail, r.starved, nil
}
