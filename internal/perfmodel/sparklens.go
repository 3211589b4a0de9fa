package perfmodel

// SparklensFigures are the numbers Sparklens's EfficiencyStatisticsAnalyzer
// prints, computed with its own definitions, for comparing clusterlens with
// Sparklens on the same log. Compute them on a workload built with
// Options{ExecutorRunTime: true}, since Sparklens's task time is
// executorRunTime (StageTimeSpan.updateTasks). Analyze gives clusterlens's
// own, tighter figures.
type SparklensFigures struct {
	AppMs int64 `json:"appMs"`
	// JobMs sums the jobs' windows, submission to end ("Executor WallClock
	// Time"); jobs without an end are left out.
	JobMs int64 `json:"jobMs"`
	// DriverMs is AppMs - JobMs ("Driver WallClock Time"); negative when
	// jobs overlapped, as in Sparklens.
	DriverMs int64 `json:"driverMs"`
	// TotalCores is the most executors alive at once over the application
	// times one executor's cores (AppContext.getMaxConcurrent, getExecutorCores).
	TotalCores int `json:"totalCores"`
	// CriticalPathMs sums, over jobs, the critical time from the job's
	// highest stage id back through its parents (computeCriticalTimeForJob).
	CriticalPathMs    int64 `json:"criticalPathMs"`
	CriticalPathAppMs int64 `json:"criticalPathAppMs"` // DriverMs + CriticalPathMs
	// PerfectAppMs is DriverMs + CoreMsUsed/TotalCores in integer division.
	PerfectAppMs int64 `json:"perfectAppMs"`
	OneCoreAppMs int64 `json:"oneCoreAppMs"` // DriverMs + CoreMsUsed
	// CoreMsAvailable is TotalCores x AppMs ("Total OneCoreComputeHours available").
	CoreMsAvailable int64 `json:"coreMsAvailable"`
	// CoreMsAvailableAutoScale sums cores x lifetime over executors
	// ("available (AutoScale Aware)").
	CoreMsAvailableAutoScale int64 `json:"coreMsAvailableAutoScale"`
	// DriverCoreMsWasted is DriverMs x TotalCores ("wasted by driver").
	DriverCoreMsWasted int64 `json:"driverCoreMsWasted"`
	// ExecutorCoreMsAvailable is TotalCores x JobMs; CoreMsUsed sums task
	// times; ExecutorCoreMsWasted is their difference ("Cluster Utilization").
	ExecutorCoreMsAvailable int64 `json:"executorCoreMsAvailable"`
	CoreMsUsed              int64 `json:"coreMsUsed"`
	ExecutorCoreMsWasted    int64 `json:"executorCoreMsWasted"`
}

// Sparklens computes SparklensFigures as
// analyzer/EfficiencyStatisticsAnalyzer.scala does.
func Sparklens(w *Workload) SparklensFigures {
	f := SparklensFigures{AppMs: w.Duration()}
	byStage := map[int32]int{}
	for i := range w.Stages {
		byStage[w.Stages[i].ID] = i
	}
	for k := range w.Jobs {
		j := &w.Jobs[k]
		if j.Completed >= j.Submitted {
			f.JobMs += j.Completed - j.Submitted
		}
		f.CriticalPathMs += sparklensJobCritical(w, j)
		for _, si := range j.Stages {
			f.CoreMsUsed += w.Stages[si].Used()
		}
	}
	f.DriverMs = f.AppMs - f.JobMs
	f.TotalCores = maxExecutorsOverApp(w) * perExecutorCores(w)
	f.CriticalPathAppMs = f.DriverMs + f.CriticalPathMs
	if f.TotalCores > 0 {
		f.PerfectAppMs = f.DriverMs + f.CoreMsUsed/int64(f.TotalCores)
	}
	f.OneCoreAppMs = f.DriverMs + f.CoreMsUsed
	f.CoreMsAvailable = int64(f.TotalCores) * f.AppMs
	f.CoreMsAvailableAutoScale = CoreMsIn(w, w.Start, w.End)
	f.DriverCoreMsWasted = f.DriverMs * int64(f.TotalCores)
	f.ExecutorCoreMsAvailable = int64(f.TotalCores) * f.JobMs
	f.ExecutorCoreMsWasted = f.ExecutorCoreMsAvailable - f.CoreMsUsed
	return f
}

// sparklensJobCritical is JobTimeSpan.computeCriticalTimeForJob: from the
// job's highest stage id, its longest task plus the largest critical time of
// its parents within the job.
func sparklensJobCritical(w *Workload, j *Job) int64 {
	if len(j.Stages) == 0 {
		return 0
	}
	in := map[int]bool{}
	top := j.Stages[0]
	for _, si := range j.Stages {
		in[si] = true
		if w.Stages[si].ID > w.Stages[top].ID {
			top = si
		}
	}
	memo := map[int]int64{}
	var crit func(si int) int64
	crit = func(si int) int64 {
		if v, ok := memo[si]; ok {
			return v
		}
		var best int64
		for _, p := range w.Stages[si].Parents {
			if in[p] {
				best = max(best, crit(p))
			}
		}
		memo[si] = w.Stages[si].MaxTask() + best
		return memo[si]
	}
	return crit(top)
}

// maxExecutorsOverApp is the most executors alive at once over the whole
// application (AppContext.getMaxConcurrent).
func maxExecutorsOverApp(w *Workload) int {
	groups := [][]ExecutorSpan{w.Executors}
	return concurrency(groups, func(e ExecutorSpan) (int64, int64) { return e.Added, max(e.Ended, e.Added+1) })
}

// perExecutorCores is the most common executor core count.
func perExecutorCores(w *Workload) int {
	counts := map[int]int{}
	best, n := 0, 0
	for _, e := range w.Executors {
		counts[e.Cores]++
		if c := counts[e.Cores]; c > n || c == n && e.Cores > best {
			best, n = e.Cores, c
		}
	}
	return best
}
