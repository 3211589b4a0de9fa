package sim

import (
	"github.com/clusterlens/clusterlens/internal/model"
)

// taskRun is one task attempt.
type taskRun struct {
	st          *stageRun
	index       int32
	attempt     int32
	exec        *execRun
	mi          int // index in the model stage's Tasks
	launch      int64
	finish      int64
	failed      bool
	speculative bool
	other       *taskRun // the speculative copy or its original
	gen         uint32
	out         int64 // shuffle bytes written
	ivs         []interval
	ended       bool
	hung        bool // failed because its node hung
	recs        []phaseRec
	cz          attemptCauses // what its time is the product of (causes.go)
}

// interval is a resource use recorded for node metrics.
type interval struct {
	n          *node
	ch         int
	start, end int64
	rate       float64
}

// launch starts attempt of task i of st on executor x.
func (e *engine) launch(st *stageRun, i int32, x *execRun, loc model.Locality, orig *taskRun) {
	if orig == nil {
		st.pending[i] = false
		st.nPending--
		if st.attempts[i] == 0 && (st.plan.input == inHDFS || st.plan.input == inCached) && st.nPendingPref > 0 {
			st.nPendingPref--
		}
	}
	if loc <= st.levelLocality() || orig == nil {
		if lv := localityLevel(loc); lv >= 0 && lv <= st.level {
			st.level = lv
			for !st.levels[st.level] {
				st.level++
			}
		}
		st.waitSince = e.now
	}
	if st.plan.launchGapMs > 0 {
		st.nextLaunch = e.now + st.plan.launchGapMs
	}
	t := &taskRun{st: st, index: i, attempt: st.attempts[i], exec: x, launch: e.now, speculative: orig != nil}
	st.attempts[i]++
	if orig != nil {
		t.other, orig.other = orig, t
	}
	x.free--
	x.node.running++
	if st.app.hostSet == nil {
		st.app.hostSet = map[int]bool{}
	}
	st.app.hostSet[x.node.idx] = true
	st.running[t] = struct{}{}
	w := e.execute(t, loc)
	t.finish = w.finish
	t.failed = w.failed
	t.hung = w.nodeHung
	t.out = w.shuffleOut
	t.mi = addModelTask(st, t, loc, w)
	e.at(t.finish, event{kind: evTaskEnd, task: t, gen: t.gen})
}

// levelLocality is the stage's current locality as a Locality.
func (st *stageRun) levelLocality() model.Locality {
	return [...]model.Locality{model.ProcessLocal, model.NodeLocal, model.RackLocal, model.AnyLocality}[st.level]
}

func localityLevel(l model.Locality) int {
	switch l {
	case model.ProcessLocal:
		return 0
	case model.NodeLocal, model.NoPref:
		return 1
	case model.RackLocal:
		return 2
	case model.AnyLocality:
		return 3
	}
	return -1
}

// taskEnd frees the attempt's core and moves the stage on.
func (e *engine) taskEnd(t *taskRun) {
	st, x := t.st, t.exec
	if t.ended {
		return
	}
	t.ended = true
	delete(st.running, t)
	if e.phaseW != nil {
		e.writePhases(t)
	}
	x.free++
	x.node.running--
	x.idleSince = e.now
	a := st.app
	switch {
	case t.failed:
		a.truth.Failed++
		if !st.done[t.index] && (t.other == nil || t.other.ended) {
			st.pending[t.index] = true
			st.nPending++
			st.avoid[t.index] = int32(x.node.idx)
			st.retries = append(st.retries, t.index)
		}
	case !st.done[t.index]:
		st.done[t.index] = true
		st.nDone++
		st.durations = append(st.durations, t.finish-t.launch)
		if st.causes == nil {
			st.causes = make([]attemptCauses, 0, st.plan.tasks)
		}
		st.causes = append(st.causes, t.cz)
		if t.out > 0 {
			st.outByNode[int32(x.node.idx)] += t.out
			st.outTotal += t.out
		}
		if st.plan.cache {
			for len(a.cachedAt) <= int(t.index) {
				a.cachedAt = append(a.cachedAt, nil)
			}
			a.cachedAt[t.index] = x
		}
		if o := t.other; o != nil && !o.ended {
			e.kill(o)
		}
	}
	a.truth.Attempts++
	if st.nDone == st.plan.tasks && len(st.running) == 0 && st.m.Status != model.StageComplete {
		e.stageDone(st)
	}
	if t.hung && a.plan.engine == model.Spark && !x.lost {
		// The executor was lost with its hung node: Spark asks for another.
		e.removeExecutor(x, "Executor heartbeat timed out after 120000 ms")
		e.addExecutors(a, 1)
	}
	if t.failed || t.hung {
		e.offerAll(a) // a retry may go to any executor but this one
		return
	}
	e.offer(x)
	e.scheduleReoffer(a)
}

// kill ends a running attempt now because another attempt of its task succeeded.
func (e *engine) kill(t *taskRun) {
	t.gen++
	for _, iv := range t.ivs {
		if iv.end > e.now {
			e.sink.add(iv.n, iv.ch, max(iv.start, e.now), iv.end, -iv.rate)
		}
	}
	t.finish = e.now
	t.recs = cutRecs(t.recs, e.now)
	killModelTask(t, e.now)
	t.failed = false
	e.taskEnd(t)
	t.st.app.truth.Killed++
}
