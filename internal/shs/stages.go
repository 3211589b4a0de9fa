package shs

import (
	"slices"
	"sort"

	"github.com/clusterlens/clusterlens/internal/model"
)

// stageStatuses are Spark's v1.StageStatus names.
var stageStatuses = []string{"ACTIVE", "COMPLETE", "FAILED", "PENDING", "SKIPPED"}

// stageOptions are the query options of the stage endpoints.
type stageOptions struct {
	details       bool
	taskStatuses  []string
	withSummaries bool
	quantiles     []float64 // sorted
}

// stageList answers /stages: attempts in descending (stage id, attempt)
// order, filtered by status and, with details and taskStatus, to stages
// that have tasks in one of those states.
func (v *appView) stageList(statuses []string, o stageOptions) []StageData {
	order := make([]int, len(v.stages))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := v.stages[order[i]].st, v.stages[order[j]].st
		if a.ID != b.ID {
			return a.ID > b.ID
		}
		return a.Attempt > b.Attempt
	})
	out := []StageData{}
	for _, i := range order {
		sa := v.stages[i]
		if len(statuses) > 0 && !contains(statuses, sa.st.Status.String()) {
			continue
		}
		sd := v.stageData(sa, o)
		if o.details && len(o.taskStatuses) > 0 && !hasTasksIn(&sd, o.taskStatuses) {
			continue
		}
		out = append(out, sd)
	}
	return out
}

// hasTasksIn is StagesResource's filter of stages by task status.
func hasTasksIn(sd *StageData, statuses []string) bool {
	for _, s := range statuses {
		switch s {
		case "FAILED":
			if sd.NumFailedTasks > 0 {
				return true
			}
		case "KILLED":
			if sd.NumKilledTasks > 0 {
				return true
			}
		case "RUNNING":
			if sd.NumActiveTasks > 0 {
				return true
			}
		case "SUCCESS":
			if sd.NumCompleteTasks > 0 {
				return true
			}
		case "UNKNOWN":
			if int64(sd.NumTasks)-sd.NumFailedTasks-sd.NumKilledTasks-sd.NumActiveTasks-sd.NumCompleteTasks > 0 {
				return true
			}
		}
	}
	return false
}

// stageAttempts returns the attempts of a stage, ascending.
func (v *appView) stageAttempts(id int32) []*stageAgg {
	var out []*stageAgg
	for _, sa := range v.stages {
		if sa.st.ID == id {
			out = append(out, sa)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].st.Attempt < out[j].st.Attempt })
	return out
}

// oneStage answers /stages/{stageId}: every attempt.
func (v *appView) oneStage(id int32, o stageOptions) ([]StageData, *Error) {
	attempts := v.stageAttempts(id)
	if len(attempts) == 0 {
		return nil, notFound("unknown stage: %d", id)
	}
	out := make([]StageData, 0, len(attempts))
	for _, sa := range attempts {
		out = append(out, v.stageData(sa, o))
	}
	return out, nil
}

// findAttempt returns one stage attempt, or Spark's 404.
func (v *appView) findAttempt(id, attempt int32) (*stageAgg, *Error) {
	attempts := v.stageAttempts(id)
	for _, sa := range attempts {
		if sa.st.Attempt == attempt {
			return sa, nil
		}
	}
	if len(attempts) == 0 {
		return nil, notFound("unknown stage: %d", id)
	}
	ids := ""
	for i, sa := range attempts {
		if i > 0 {
			ids += ","
		}
		ids += itoa(int64(sa.st.Attempt))
	}
	return nil, notFound("unknown attempt for stage %d.  Found attempts: [%s]", id, ids)
}

// stageData builds a stage attempt's StageData with the requested extras.
func (v *appView) stageData(sa *stageAgg, o stageOptions) StageData {
	st, m := sa.st, &sa.sum
	sd := StageData{
		Status:              st.Status.String(),
		StageID:             st.ID,
		AttemptID:           st.Attempt,
		NumTasks:            st.NumTasks,
		NumActiveTasks:      sa.active,
		NumCompleteTasks:    sa.complete,
		NumFailedTasks:      sa.failed,
		NumKilledTasks:      sa.killed,
		NumCompletedIndices: sa.completedIndices,

		ExecutorDeserializeTime:          m[model.ExecutorDeserializeTime],
		ExecutorDeserializeCPUTime:       m[model.ExecutorDeserializeCPUNanos],
		ExecutorRunTime:                  m[model.ExecutorRunTime],
		ExecutorCPUTime:                  m[model.ExecutorCPUNanos],
		ResultSize:                       m[model.ResultSize],
		JVMGCTime:                        m[model.JVMGCTime],
		ResultSerializationTime:          m[model.ResultSerializationTime],
		MemoryBytesSpilled:               m[model.MemoryBytesSpilled],
		DiskBytesSpilled:                 m[model.DiskBytesSpilled],
		PeakExecutionMemory:              m[model.PeakExecutionMemory],
		InputBytes:                       m[model.InputBytes],
		InputRecords:                     m[model.InputRecords],
		OutputBytes:                      m[model.OutputBytes],
		OutputRecords:                    m[model.OutputRecords],
		ShuffleRemoteBlocksFetched:       m[model.ShuffleRemoteBlocksFetched],
		ShuffleLocalBlocksFetched:        m[model.ShuffleLocalBlocksFetched],
		ShuffleFetchWaitTime:             m[model.ShuffleFetchWaitTime],
		ShuffleRemoteBytesRead:           m[model.ShuffleRemoteBytesRead],
		ShuffleRemoteBytesReadToDisk:     m[model.ShuffleRemoteBytesReadToDisk],
		ShuffleLocalBytesRead:            m[model.ShuffleLocalBytesRead],
		ShuffleReadBytes:                 m.ShuffleReadBytes(),
		ShuffleReadRecords:               m[model.ShuffleRecordsRead],
		ShuffleCorruptMergedBlockChunks:  m[model.ShuffleCorruptMergedBlockChunks],
		ShuffleMergedFetchFallbackCount:  m[model.ShuffleMergedFetchFallbackCount],
		ShuffleMergedRemoteBlocksFetched: m[model.ShuffleMergedRemoteBlocksFetched],
		ShuffleMergedLocalBlocksFetched:  m[model.ShuffleMergedLocalBlocksFetched],
		ShuffleMergedRemoteChunksFetched: m[model.ShuffleMergedRemoteChunksFetched],
		ShuffleMergedLocalChunksFetched:  m[model.ShuffleMergedLocalChunksFetched],
		ShuffleMergedRemoteBytesRead:     m[model.ShuffleMergedRemoteBytesRead],
		ShuffleMergedLocalBytesRead:      m[model.ShuffleMergedLocalBytesRead],
		ShuffleRemoteReqsDuration:        m[model.ShuffleRemoteReqsDuration],
		ShuffleMergedRemoteReqsDuration:  m[model.ShuffleMergedRemoteReqsDuration],
		ShuffleWriteBytes:                m[model.ShuffleWriteBytes],
		ShuffleWriteTime:                 m[model.ShuffleWriteNanos],
		ShuffleWriteRecords:              m[model.ShuffleWriteRecords],

		Name:                 st.Name,
		Description:          prop(st.Properties, propJobDescription),
		Details:              st.Details,
		SchedulingPool:       schedulingPool(st),
		RDDIDs:               nonNilInts(st.RDDIDs),
		AccumulatorUpdates:   stageAccumulables(st.Accumulables),
		KilledTasksSummary:   nonNilCounts(sa.killedSummary),
		ResourceProfileID:    st.Profile,
		PeakExecutorMetrics:  peakOf(&sa.peak),
		IsShufflePushEnabled: st.ShufflePushEnabled,
		ShuffleMergersCount:  st.ShuffleMergers,
	}
	if st.Submitted > 0 {
		sd.SubmissionTime = datePtr(st.Submitted)
	}
	if sa.firstLaunch > 0 {
		sd.FirstTaskLaunchedTime = datePtr(sa.firstLaunch)
	}
	if st.Completed > 0 {
		sd.CompletionTime = datePtr(st.Completed)
	}
	if st.Failure != "" {
		f := st.Failure
		sd.FailureReason = &f
	}
	if o.details {
		tasks := v.stageTasks(st, o.taskStatuses)
		execs := v.executorStageSummaries(sa)
		sd.Tasks, sd.ExecutorSummary = &tasks, &execs
		if sa.spec != nil {
			spec := *sa.spec
			sd.SpeculationSummary = &spec
		}
	}
	if o.withSummaries {
		sd.TaskMetricsDistributions = v.taskSummary(st, o.quantiles)
		sd.ExecutorMetricsDistributions = executorDistributions(sa, o.quantiles)
	}
	return sd
}

// stageTasks is the details map: every task (of the given statuses), by
// descending task id as AppStatusStore lists them.
func (v *appView) stageTasks(st *model.Stage, statuses []string) TaskMap {
	tasks := v.taskList(st, 0, int(^uint(0)>>1), sortByID, statuses)
	slices.Reverse(tasks)
	return TaskMap(append(make([]TaskData, 0, len(tasks)), tasks...))
}

// schedulingPool is the stage's pool: spark.scheduler.pool, else "default".
func schedulingPool(st *model.Stage) string {
	if p := prop(st.Properties, propSchedulerPool); p != nil {
		return *p
	}
	if st.Pool != "" {
		return st.Pool
	}
	return "default"
}

// stageAccumulables are a stage's named accumulators, by id.
func stageAccumulables(accs []model.Accumulable) []AccumulableInfo {
	out := accumulables(accs)
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// executorStageSummaries are the per-executor summaries of a stage attempt.
func (v *appView) executorStageSummaries(sa *stageAgg) ExecutorStageSummaries {
	out := make(ExecutorStageSummaries, 0, len(sa.execs))
	for _, es := range sa.execs {
		out = append(out, ExecutorStageEntry{ExecutorID: es.id, Summary: es.summary()})
	}
	return out
}

// summary converts an executor's stage counters.
func (es *execStageAgg) summary() ExecutorStageSummary {
	m := &es.sum
	return ExecutorStageSummary{
		TaskTime:              es.taskTime,
		FailedTasks:           es.failed,
		SucceededTasks:        es.succeeded,
		KilledTasks:           es.killed,
		InputBytes:            m[model.InputBytes],
		InputRecords:          m[model.InputRecords],
		OutputBytes:           m[model.OutputBytes],
		OutputRecords:         m[model.OutputRecords],
		ShuffleRead:           m.ShuffleReadBytes(),
		ShuffleReadRecords:    m[model.ShuffleRecordsRead],
		ShuffleWrite:          m[model.ShuffleWriteBytes],
		ShuffleWriteRecords:   m[model.ShuffleWriteRecords],
		MemoryBytesSpilled:    m[model.MemoryBytesSpilled],
		DiskBytesSpilled:      m[model.DiskBytesSpilled],
		IsBlacklistedForStage: es.excluded,
		PeakMemoryMetrics:     peakOf(&es.peak),
		IsExcludedForStage:    es.excluded,
	}
}

// executorDistributions is AppStatusStore.stageExecutorSummary: quantiles
// over the stage's executor summaries, or nil when it has none.
func executorDistributions(sa *stageAgg, quantiles []float64) *ExecutorMetricsDistributions {
	if len(sa.execs) == 0 {
		return nil
	}
	sums := make([]ExecutorStageSummary, len(sa.execs))
	for i, es := range sa.execs {
		sums[i] = es.summary()
	}
	q := func(f func(*ExecutorStageSummary) int64) Doubles {
		vals := make([]float64, len(sums))
		for i := range sums {
			vals[i] = float64(f(&sums[i]))
		}
		return quantilesOf(vals, quantiles)
	}
	d := &ExecutorMetricsDistributions{
		Quantiles:           Doubles(slices.Clone(quantiles)),
		TaskTime:            q(func(s *ExecutorStageSummary) int64 { return s.TaskTime }),
		FailedTasks:         q(func(s *ExecutorStageSummary) int64 { return s.FailedTasks }),
		SucceededTasks:      q(func(s *ExecutorStageSummary) int64 { return s.SucceededTasks }),
		KilledTasks:         q(func(s *ExecutorStageSummary) int64 { return s.KilledTasks }),
		InputBytes:          q(func(s *ExecutorStageSummary) int64 { return s.InputBytes }),
		InputRecords:        q(func(s *ExecutorStageSummary) int64 { return s.InputRecords }),
		OutputBytes:         q(func(s *ExecutorStageSummary) int64 { return s.OutputBytes }),
		OutputRecords:       q(func(s *ExecutorStageSummary) int64 { return s.OutputRecords }),
		ShuffleRead:         q(func(s *ExecutorStageSummary) int64 { return s.ShuffleRead }),
		ShuffleReadRecords:  q(func(s *ExecutorStageSummary) int64 { return s.ShuffleReadRecords }),
		ShuffleWrite:        q(func(s *ExecutorStageSummary) int64 { return s.ShuffleWrite }),
		ShuffleWriteRecords: q(func(s *ExecutorStageSummary) int64 { return s.ShuffleWriteRecords }),
		MemoryBytesSpilled:  q(func(s *ExecutorStageSummary) int64 { return s.MemoryBytesSpilled }),
		DiskBytesSpilled:    q(func(s *ExecutorStageSummary) int64 { return s.DiskBytesSpilled }),
	}
	for k := range model.NumExecutorMetrics {
		var vals []float64
		for _, es := range sa.execs {
			if es.peak.Set {
				vals = append(vals, float64(es.peak.Values[k]))
			}
		}
		d.PeakMemoryMetrics[k] = quantilesOf(vals, quantiles)
	}
	return d
}
