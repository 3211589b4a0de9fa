package shs

import (
	"sort"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
)

// driverID is SparkContext.DRIVER_IDENTIFIER; fallbackID is the fallback
// storage's block manager, which the History Server never lists.
const (
	driverID   = "driver"
	fallbackID = "fallback"
)

// executorList answers /executors (activeOnly) and /allexecutors. Active
// executors come in descending id order (a reversed "active" index);
// all executors in ascending id order.
func (v *appView) executorList(activeOnly bool) []ExecutorSummary {
	out := []ExecutorSummary{}
	for i, e := range v.app.Executors {
		if e.ID == fallbackID || !announced(e) || activeOnly && !executorActive(e) {
			continue
		}
		out = append(out, v.executorSummary(i))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if activeOnly {
			return out[i].ID > out[j].ID
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// executorLogs are an executor's log links; the driver's come with the
// application-start event (Spark 2.4+), which the History Server copies to
// the driver once it is registered.
func executorLogs(a *model.App, e *model.Executor) Pairs {
	if e.ID == driverID && len(e.LogURLs) == 0 && a.DriverLogs != nil {
		return pairs(a.DriverLogs)
	}
	return pairs(e.LogURLs)
}

// executorAttributes are an executor's attributes, the driver's from the
// application-start event when it has driver logs.
func executorAttributes(a *model.App, e *model.Executor) Pairs {
	if e.ID == driverID && len(e.Attributes) == 0 && a.DriverLogs != nil {
		return pairs(a.DriverAttributes)
	}
	return pairs(e.Attributes)
}

// announced reports whether the log registered the executor (an
// ExecutorAdded or a BlockManagerAdded); the History Server knows no other
// executors, even when tasks name them.
func announced(e *model.Executor) bool { return e.Added > 0 || e.BlockManagerSeen }

// executorActive reports whether the executor was still registered.
func executorActive(e *model.Executor) bool { return e.Removed == 0 }

// executorSummary builds one executor's ExecutorSummary.
func (v *appView) executorSummary(i int) ExecutorSummary {
	a, e, ag := v.app, v.app.Executors[i], &v.execs[i]
	excludedIn := v.excludedInStages(e)
	es := ExecutorSummary{
		ID:                  e.ID,
		HostPort:            e.HostPort,
		IsActive:            executorActive(e),
		TotalCores:          e.Cores,
		MaxTasks:            v.maxTasks(e),
		ActiveTasks:         ag.active,
		FailedTasks:         ag.failed,
		CompletedTasks:      ag.completed,
		TotalTasks:          ag.total,
		TotalDuration:       ag.duration,
		TotalGCTime:         ag.gc,
		TotalInputBytes:     ag.input,
		TotalShuffleRead:    ag.shuffleRead,
		TotalShuffleWrite:   ag.shuffleWrite,
		IsBlacklisted:       v.executorExcluded(e),
		MaxMemory:           e.MaxMemory,
		AddTime:             Date(addTime(e)),
		ExecutorLogs:        executorLogs(a, e),
		BlacklistedInStages: excludedIn,
		PeakMemoryMetrics:   peakOf(&ag.peak),
		Attributes:          executorAttributes(a, e),
		Resources:           resources(e.Resources),
		ResourceProfileID:   e.Profile,
		IsExcluded:          v.executorExcluded(e),
		ExcludedInStages:    excludedIn,
	}
	if es.HostPort == "" {
		es.HostPort = e.Host
	}
	if e.Removed > 0 {
		es.RemoveTime = datePtr(e.Removed)
		r := e.RemoveReason
		es.RemoveReason = &r
	}
	if e.MaxOnHeapMemory > 0 || e.MaxOffHeapMemory > 0 {
		es.MemoryMetrics = &MemoryMetrics{TotalOnHeapStorageMemory: e.MaxOnHeapMemory,
			TotalOffHeapStorageMemory: e.MaxOffHeapMemory}
	}
	if e.ID == driverID {
		// AppStatusStore.replaceExec: the driver's duration is the
		// application's, its GC time the peak TotalGCTime when known.
		if end := attemptEnd(a); end > 0 {
			es.TotalDuration = end - a.Start
		} else if end < 0 {
			es.TotalDuration = v.now() - a.Start
		}
		if ag.peak.Set {
			es.TotalGCTime = ag.peak.Values[model.ExecutorMetricIndex("TotalGCTime")]
		}
	}
	return es
}

// addTime is when Spark first heard of the executor: its block manager's
// registration when that came first (the driver), else its ExecutorAdded.
func addTime(e *model.Executor) int64 {
	if e.BlockManagerAdded > 0 {
		return e.BlockManagerAdded
	}
	return e.Added
}

// executorExcluded is the executor's application-level exclusion (the
// decoder applies node exclusions to the executors on the node).
func (v *appView) executorExcluded(e *model.Executor) bool {
	return e.Excluded
}

// excludedInStages are the stages the executor is excluded in, ascending;
// Spark forgets a stage once it completes.
func (v *appView) excludedInStages(e *model.Executor) []int32 {
	out := []int32{}
	for _, id := range e.ExcludedStages {
		done := false
		for _, sa := range v.stages {
			if sa.st.ID == id && sa.st.Completed > 0 {
				done = true
				break
			}
		}
		if !done && !containsInt(out, id) {
			out = append(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// maxTasks is totalCores / cpusPerTask, with the task cpus of the
// executor's resource profile or spark.task.cpus.
func (v *appView) maxTasks(e *model.Executor) int32 {
	cpus := int64(1)
	if s, ok := v.app.Env.SparkProp("spark.task.cpus"); ok {
		if n, err := strconv.ParseInt(s, 10, 32); err == nil {
			cpus = n
		}
	}
	for _, rp := range v.app.ResourceProfiles {
		if rp.ID != e.Profile {
			continue
		}
		for _, r := range rp.Task {
			if r.Name == "cpus" {
				cpus = int64(r.Amount)
			}
		}
	}
	if cpus <= 0 {
		return 0
	}
	return int32(int64(e.Cores) / cpus)
}

// resources converts an executor's resources.
func resources(rs []model.ExecutorResource) ResourceInfos {
	out := make(ResourceInfos, 0, len(rs))
	for _, r := range rs {
		addrs := r.Addresses
		if addrs == nil {
			addrs = []string{}
		}
		out = append(out, ResourceInformation{Name: r.Name, Addresses: addrs})
	}
	return out
}

// containsInt reports whether s holds x.
func containsInt(s []int32, x int32) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}
