package perfmodel

import (
	"cmp"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// executorSpans lists the executors that offered cores, each alive from its
// add event (or its block manager's registration, or the application start)
// to its remove event (or the application end), clipped to the application.
// The driver counts only when it is the sole executor (local mode). Sparklens
// does the same clipping (EfficiencyStatisticsAnalyzer,
// computeMillisFromExecutorLifetime).
func executorSpans(app *model.App, w *Workload) []ExecutorSpan {
	var out []ExecutorSpan
	var driver []ExecutorSpan
	for _, e := range app.Executors {
		if e.Cores <= 0 {
			continue
		}
		added := e.Added
		if added <= 0 {
			added = e.BlockManagerAdded
		}
		if added <= 0 || added < w.Start {
			added = w.Start
		}
		ended := e.Removed
		if ended <= 0 || ended > w.End {
			ended = w.End
		}
		if ended < added {
			ended = added
		}
		sp := ExecutorSpan{ID: e.ID, Cores: int(e.Cores), Added: added, Ended: ended}
		if e.ID == "driver" {
			driver = append(driver, sp)
			continue
		}
		out = append(out, sp)
	}
	if len(out) == 0 {
		return driver
	}
	return out
}

// Cores describes the cores an application had.
type Cores struct {
	// MaxConcurrent is the most cores alive at once while tasks ran, from the
	// first task launch to the last task finish (Sparklens:
	// AppContext.getMaxConcurrent executors times getExecutorCores, over the
	// whole application; an executor that only arrives after the last task,
	// as in Sparklint's example log, offered nothing the tasks could use).
	MaxConcurrent int `json:"maxConcurrent"`
	// MaxExecutors is the most executors alive at once.
	MaxExecutors int `json:"maxExecutors"`
	// PerExecutor is the most common executor core count.
	PerExecutor int `json:"perExecutor"`
	// Slots is MaxConcurrent divided by spark.task.cpus: the tasks that could
	// run at once. When no executor announced its cores, Slots is the most
	// task attempts observed running at once and MaxConcurrent is derived
	// from it.
	Slots int `json:"slots"`
	// FromTasks is set when the core count was inferred from task concurrency.
	FromTasks bool `json:"fromTasks,omitempty"`
}

// CoresOf measures the workload's cores from executor add and remove events.
func CoresOf(w *Workload) Cores {
	type ev struct {
		t     int64
		cores int
		execs int
	}
	first, last := w.TaskWindow()
	evs := make([]ev, 0, 2*len(w.Executors))
	counts := map[int]int{}
	for _, e := range w.Executors {
		a, b := max(e.Added, first), min(e.Ended, last)
		if b <= a && !(a == b && e.Added <= first && e.Ended >= last) {
			continue // alive only before the first or after the last task
		}
		evs = append(evs, ev{a, e.Cores, 1}, ev{b, -e.Cores, -1})
		counts[e.Cores]++
	}
	// Removals before additions at the same instant.
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			return cmp.Compare(a.t, b.t)
		}
		return a.cores - b.cores
	})
	var c Cores
	cur, execs := 0, 0
	for _, e := range evs {
		cur += e.cores
		execs += e.execs
		c.MaxConcurrent = max(c.MaxConcurrent, cur)
		c.MaxExecutors = max(c.MaxExecutors, execs)
	}
	best := 0
	for cores, n := range counts {
		if n > best || (n == best && cores > c.PerExecutor) {
			c.PerExecutor, best = cores, n
		}
	}
	c.Slots = c.MaxConcurrent / max(1, w.TaskCPUs)
	if c.Slots <= 0 {
		c.Slots = max(1, w.ObservedConcurrency)
		c.MaxConcurrent = c.Slots * max(1, w.TaskCPUs)
		c.MaxExecutors = 1
		c.PerExecutor = c.MaxConcurrent
		c.FromTasks = true
	}
	return c
}

// CoreMsIn is the core-milliseconds the executors offered within [from, to].
func CoreMsIn(w *Workload, from, to int64) int64 {
	var n int64
	for _, e := range w.Executors {
		a, b := max(from, e.Added), min(to, e.Ended)
		if b > a {
			n += int64(e.Cores) * (b - a)
		}
	}
	return n
}

// TaskWindow is the first task launch and the last task finish.
func (w *Workload) TaskWindow() (first, last int64) {
	for i := range w.Stages {
		s := &w.Stages[i]
		if i == 0 || s.FirstLaunch < first {
			first = s.FirstLaunch
		}
		last = max(last, s.LastFinish)
	}
	return first, last
}
