package sim

import "slices"

// allocateTick is Spark's dynamic allocation, checked every second: while
// tasks wait, ask for more executors (doubling, up to twice the configured
// count); drop executors idle longer than the idle timeout.
func (e *engine) allocateTick(a *appRun) {
	if a.done {
		return
	}
	backlog, freeCores := 0, 0
	for _, st := range a.active {
		backlog += st.nPending
	}
	live := 0
	for _, x := range a.execs {
		if !x.lost {
			live++
			freeCores += x.free
		}
	}
	limit := 2 * a.plan.spec.Executors
	if backlog > freeCores && live < limit {
		want := min(limit-live, max(1, live), (backlog-freeCores+a.plan.spec.Cores-1)/a.plan.spec.Cores)
		if e.addExecutors(a, want) > 0 {
			e.offerAll(a)
		}
	}
	idle := int64(e.sc.Scheduler.IdleTimeoutS * 1000)
	for _, x := range a.execs {
		if !x.lost && x.free == x.cores && backlog == 0 && e.now-x.idleSince >= idle && live > 1 {
			e.removeExecutor(x, "Executor killed by driver.")
			live--
		}
	}
	e.at(e.now+1000, event{kind: evAllocate, app: a})
}

// speculateTick is speculative execution, checked every second: once 75% of
// a stage's tasks succeeded, a task running longer than 1.5x their median
// gets a copy on another node (spark.speculation.quantile and multiplier);
// the first to finish wins and the other is killed.
func (e *engine) speculateTick(a *appRun) {
	if a.done {
		return
	}
	for _, st := range a.active {
		if len(st.durations) == 0 || float64(st.nDone) < 0.75*float64(st.plan.tasks) {
			continue
		}
		d := append([]int64(nil), st.durations...)
		slices.Sort(d)
		med := d[len(d)/2]
		var cands []*taskRun
		for t := range st.running {
			if t.other == nil && !t.speculative && !t.failed && !st.done[t.index] && float64(e.now-t.launch) > 1.5*float64(med) {
				cands = append(cands, t)
			}
		}
		slices.SortFunc(cands, func(x, y *taskRun) int { return int(x.index - y.index) })
		for _, t := range cands {
			e.copyTask(st, t)
		}
	}
	e.at(e.now+1000, event{kind: evSpeculate, app: a})
}

// copyTask launches a speculative copy of t on a free core of another node, if any.
func (e *engine) copyTask(st *stageRun, t *taskRun) {
	for _, x := range st.app.execs {
		if x.lost || x.free == 0 || x.node == t.exec.node {
			continue
		}
		if hung, _ := x.node.hungAt(e.now); hung {
			continue
		}
		e.launch(st, t.index, x, st.localityOf(t.index, x), t)
		return
	}
}
