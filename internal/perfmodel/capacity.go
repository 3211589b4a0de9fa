package perfmodel

import (
	"cmp"
	"math"
	"slices"
)

// capStep is the number of task slots the recorded executors offered from
// time t (ms after the workload's start) on.
type capStep struct {
	t     int64
	slots int
}

// capacitySteps are the slots the executors offered over the run, from
// their add and remove events (cores over spark.task.cpus), or nil when
// they offered the same slots all the while tasks ran (or no executor
// announced cores): the replay then keeps a constant number. After the last
// task the slots stay as they were while it ran, so that a replay running
// longer than the recorded run is not left without executors.
func capacitySteps(w *Workload, c Cores) []capStep {
	if c.FromTasks || len(w.Executors) == 0 {
		return nil
	}
	first, last := w.TaskWindow()
	type ev struct {
		t     int64
		cores int
	}
	evs := make([]ev, 0, 2*len(w.Executors))
	for _, e := range w.Executors {
		if e.Ended <= e.Added {
			continue
		}
		evs = append(evs, ev{e.Added, e.Cores}, ev{e.Ended, -e.Cores})
	}
	slices.SortFunc(evs, func(a, b ev) int {
		return cmp.Or(cmp.Compare(a.t, b.t), cmp.Compare(a.cores, b.cores))
	})
	cpus := max(1, w.TaskCPUs)
	var steps []capStep
	cores := 0
	steady := true
	for i, e := range evs {
		if e.t >= last {
			break // hold the slots the last tasks ran on
		}
		cores += e.cores
		if i+1 < len(evs) && evs[i+1].t == e.t {
			continue
		}
		t := max(0, e.t-w.Start)
		if n := len(steps); n > 0 && steps[n-1].t == t {
			steps = steps[:n-1]
		}
		steps = append(steps, capStep{t, cores / cpus})
		if e.t >= first && cores/cpus != c.Slots {
			steady = false
		}
	}
	if steady || len(steps) == 0 {
		return nil
	}
	// A task launched when no executor was alive says the add and remove
	// events are not to be trusted: keep the slots constant.
	for i := range w.Stages {
		for _, l := range w.Stages[i].Launches {
			k, _ := slices.BinarySearchFunc(steps, l-w.Start+1, func(s capStep, t int64) int { return cmp.Compare(s.t, t) })
			if k == 0 || steps[k-1].slots <= 0 {
				return nil
			}
		}
	}
	return steps
}

// scaledSteps are the steps with every level scaled so that the peak
// becomes slots: slots/peak of the executors at each moment (a level with
// executors keeps at least one slot).
func scaledSteps(steps []capStep, peak, slots int) []capStep {
	out := make([]capStep, len(steps))
	f := float64(slots) / float64(max(1, peak))
	for i, s := range steps {
		n := int(math.Round(float64(s.slots) * f))
		if s.slots > 0 {
			n = max(1, n)
		}
		out[i] = capStep{s.t, n}
	}
	return out
}

// life is one executor's slots and lifetime (ms after the workload's start).
type life struct {
	added, ended int64
	slots        int
	id           string
}

// executorLives are the executors' slots and lifetimes, for the replay at
// the recorded configuration when the executors came and went.
func executorLives(w *Workload) []life {
	cpus := max(1, w.TaskCPUs)
	out := make([]life, 0, len(w.Executors))
	for _, e := range w.Executors {
		if n := e.Cores / cpus; n > 0 && e.Ended > e.Added {
			out = append(out, life{e.Added - w.Start, e.Ended - w.Start, n, e.ID})
		}
	}
	return out
}

// slotPool holds the free slots of the replay at the recorded
// configuration, each with the end of its executor's life, in ascending
// order of that end: a task takes the free slot that dies soonest after it
// would finish, so that the tasks that ran on an executor about to be lost
// (the attempts that failed with it) are the ones placed there, and the
// others wait for a new executor as they did.
type slotPool struct {
	ends  []int64
	exec  []int32
	lives []life
	// last is the latest executor addition still to come.
	last int64
}

func (p *slotPool) add(end int64, exec int32, n int) {
	for ; n > 0; n-- {
		i, _ := slices.BinarySearch(p.ends, end)
		p.ends = slices.Insert(p.ends, i, end)
		p.exec = slices.Insert(p.exec, i, exec)
	}
}

// take removes and returns the slot for a task running from now for d ms,
// and the end of its executor's life: for an attempt that succeeded, the
// free slot whose executor lives at least until now+d and dies first (when
// none does and no executor is still to come, the longest-lived free slot);
// for one that failed, the free slot that dies first (it may have died with
// its executor). It reports false when the task must wait.
func (p *slotPool) take(now, d int64, failed bool) (int32, int64, bool) {
	k, _ := slices.BinarySearch(p.ends, now+1)
	p.ends, p.exec = p.ends[k:], p.exec[k:] // executors already gone
	if len(p.ends) == 0 {
		return 0, 0, false
	}
	i := 0
	if !failed {
		i, _ = slices.BinarySearch(p.ends, now+d)
	}
	if i == len(p.ends) {
		if now < p.last {
			return 0, 0, false
		}
		i = len(p.ends) - 1
	}
	e, end := p.exec[i], p.ends[i]
	p.ends = slices.Delete(p.ends, i, i+1)
	p.exec = slices.Delete(p.exec, i, i+1)
	return e, end, true
}
