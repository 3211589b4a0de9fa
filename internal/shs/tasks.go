package shs

import (
	"sort"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// taskStatuses are Spark's v1.TaskStatus names.
var taskStatuses = []string{"RUNNING", "KILLED", "FAILED", "SUCCESS", "UNKNOWN"}

// Task sort orders of taskList's sortBy, as Spark's TaskSorting.
const (
	sortByID = iota
	sortByRuntime
	sortByRuntimeDesc
)

// parseTaskSorting is TaskSorting.fromString: "runtime" and "-runtime" as
// alternate names, else ID, INCREASING_RUNTIME or DECREASING_RUNTIME in any case.
func parseTaskSorting(s string) (int, *Error) {
	switch strings.ToLower(s) {
	case "runtime":
		return sortByRuntime, nil
	case "-runtime":
		return sortByRuntimeDesc, nil
	}
	n, err := parseEnum(s, []string{"ID", "INCREASING_RUNTIME", "DECREASING_RUNTIME"})
	if err != nil {
		return 0, paramError("sortBy", err.Message)
	}
	return map[string]int{"ID": sortByID, "INCREASING_RUNTIME": sortByRuntime, "DECREASING_RUNTIME": sortByRuntimeDesc}[n], nil
}

// taskOrder returns the indexes of st.Tasks in the order of Spark's task
// store: by task id, or by the "ert" (executor run time) index, in which an
// unsuccessful attempt's run time is stored as -(v+1) and an attempt
// without metrics as -1; ties by task id. descending reverses the whole
// order, as a reversed KVStore view does.
func (v *appView) taskOrder(st *model.Stage, by int) []int {
	order := make([]int, len(st.Tasks))
	for i := range order {
		order[i] = i
	}
	key := func(i int) int64 { return 0 }
	if by != sortByID {
		run := make([]int64, len(st.Tasks))
		var m model.TaskMetrics
		for i := range st.Tasks {
			run[i] = storedMetric(v.app, st, i, &m, func(m *model.TaskMetrics) int64 { return m[model.ExecutorRunTime] })
		}
		key = func(i int) int64 { return run[i] }
	}
	sort.SliceStable(order, func(a, b int) bool {
		ka, kb := key(order[a]), key(order[b])
		if ka != kb {
			return ka < kb
		}
		return st.Tasks[order[a]].ID < st.Tasks[order[b]].ID
	})
	if by == sortByRuntimeDesc {
		for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
			order[i], order[j] = order[j], order[i]
		}
	}
	return order
}

// storedMetric is a metric as TaskDataWrapper stores it: the value for a
// successful attempt, -(v+1) for another attempt with metrics, -1 without.
func storedMetric(a *model.App, st *model.Stage, i int, m *model.TaskMetrics, f func(*model.TaskMetrics) int64) int64 {
	t := &st.Tasks[i]
	if !hasMetrics(t) {
		return -1
	}
	st.TaskMetrics(i, m)
	v := f(m)
	if t.Status != model.TaskSuccess {
		return -v - 1
	}
	return v
}

// taskList answers .../taskList: offset, length, sortBy and status as
// AppStatusStore.taskList; with a status filter the offset counts matching
// tasks only.
func (v *appView) taskList(st *model.Stage, offset, length, by int, statuses []string) []TaskData {
	out := []TaskData{}
	order := v.taskOrder(st, by)
	logs := map[uint32]Pairs{}
	if len(statuses) == 0 {
		for k, i := range order {
			if k < offset {
				continue
			}
			if len(out) >= length {
				break
			}
			out = append(out, v.taskData(st, i, logs))
		}
		return out
	}
	n := 0
	for _, i := range order {
		if !contains(statuses, taskStatus(&st.Tasks[i])) {
			continue
		}
		if n >= offset && n-offset < length {
			out = append(out, v.taskData(st, i, logs))
		}
		n++
	}
	return out
}

// taskData builds the TaskData of st.Tasks[i]; logs caches executor logs.
func (v *appView) taskData(st *model.Stage, i int, logs map[uint32]Pairs) TaskData {
	a, t := v.app, &st.Tasks[i]
	td := TaskData{
		TaskID:             t.ID,
		Index:              t.Index,
		Attempt:            t.Attempt,
		PartitionID:        t.Partition,
		LaunchTime:         Date(t.Launch),
		ExecutorID:         execID(a, t.Executor),
		Host:               a.Host(t.Host),
		Status:             taskStatus(t),
		TaskLocality:       t.Locality.String(),
		Speculative:        t.Speculative,
		AccumulatorUpdates: accumulables(st.TaskAccumulables[t.ID]),
	}
	if t.GettingResult > 0 {
		td.ResultFetchStart = datePtr(t.GettingResult)
	}
	if d := taskDuration(t, a.LastUpdated); d > 0 {
		td.Duration = &d
	}
	if t.Status != model.TaskRunning {
		if r := reasonOf(a, t); t.Reason != 0 && r.Kind != "Success" {
			msg := r.Message
			td.ErrorMessage = &msg
		}
	}
	if hasMetrics(t) {
		var m model.TaskMetrics
		st.TaskMetrics(i, &m)
		td.TaskMetrics = taskMetrics(&m)
	}
	l, ok := logs[t.Executor]
	if !ok {
		l = Pairs{}
		if int(t.Executor) < len(a.Executors) && announced(a.Executors[t.Executor]) {
			l = executorLogs(a, a.Executors[t.Executor])
		}
		logs[t.Executor] = l
	}
	td.ExecutorLogs = l
	td.SchedulerDelay = schedulerDelayOf(&td)
	td.GettingResultTime = gettingResultTimeOf(&td, v.now)
	return td
}

// schedulerDelayOf is AppStatusUtils.schedulerDelay(TaskData).
func schedulerDelayOf(td *TaskData) int64 {
	switch td.Status {
	case "FAILED", "KILLED", "SUCCESS":
	default:
		return 0
	}
	if td.TaskMetrics == nil || td.Duration == nil {
		return 0
	}
	m := td.TaskMetrics
	return schedulerDelay(int64(td.LaunchTime), fetchStart(td), *td.Duration,
		m.ExecutorDeserializeTime, m.ResultSerializationTime, m.ExecutorRunTime, func() int64 { return 0 })
}

// gettingResultTimeOf is AppStatusUtils.gettingResultTime(TaskData).
func gettingResultTimeOf(td *TaskData, now func() int64) int64 {
	d := int64(-1)
	if td.Duration != nil {
		d = *td.Duration
	}
	return gettingResultTime(int64(td.LaunchTime), fetchStart(td), d, now)
}

// fetchStart is the result fetch start, or -1.
func fetchStart(td *TaskData) int64 {
	if td.ResultFetchStart != nil {
		return int64(*td.ResultFetchStart)
	}
	return -1
}

// schedulerDelay is max(0, duration - run - deserialize - serialize - getting result).
func schedulerDelay(launch, fetch, duration, deser, ser, run int64, now func() int64) int64 {
	d := duration - run - deser - ser - gettingResultTime(launch, fetch, duration, now)
	if d < 0 {
		return 0
	}
	return d
}

// gettingResultTime is the time spent fetching the result: from the fetch
// start to the end, or to now (read only then) for an attempt still fetching.
func gettingResultTime(launch, fetch, duration int64, now func() int64) int64 {
	if fetch <= 0 {
		return 0
	}
	if duration > 0 {
		return launch + duration - fetch
	}
	return now() - fetch
}

// taskMetrics converts model metrics to v1.TaskMetrics.
func taskMetrics(m *model.TaskMetrics) *TaskMetrics {
	return &TaskMetrics{
		ExecutorDeserializeTime:    m[model.ExecutorDeserializeTime],
		ExecutorDeserializeCPUTime: m[model.ExecutorDeserializeCPUNanos],
		ExecutorRunTime:            m[model.ExecutorRunTime],
		ExecutorCPUTime:            m[model.ExecutorCPUNanos],
		ResultSize:                 m[model.ResultSize],
		JVMGCTime:                  m[model.JVMGCTime],
		ResultSerializationTime:    m[model.ResultSerializationTime],
		MemoryBytesSpilled:         m[model.MemoryBytesSpilled],
		DiskBytesSpilled:           m[model.DiskBytesSpilled],
		PeakExecutionMemory:        m[model.PeakExecutionMemory],
		InputMetrics:               InputMetrics{m[model.InputBytes], m[model.InputRecords]},
		OutputMetrics:              OutputMetrics{m[model.OutputBytes], m[model.OutputRecords]},
		ShuffleReadMetrics: ShuffleReadMetrics{
			RemoteBlocksFetched:   m[model.ShuffleRemoteBlocksFetched],
			LocalBlocksFetched:    m[model.ShuffleLocalBlocksFetched],
			FetchWaitTime:         m[model.ShuffleFetchWaitTime],
			RemoteBytesRead:       m[model.ShuffleRemoteBytesRead],
			RemoteBytesReadToDisk: m[model.ShuffleRemoteBytesReadToDisk],
			LocalBytesRead:        m[model.ShuffleLocalBytesRead],
			RecordsRead:           m[model.ShuffleRecordsRead],
			RemoteReqsDuration:    m[model.ShuffleRemoteReqsDuration],
			ShufflePushReadMetrics: ShufflePushReadMetrics{
				CorruptMergedBlockChunks:  m[model.ShuffleCorruptMergedBlockChunks],
				MergedFetchFallbackCount:  m[model.ShuffleMergedFetchFallbackCount],
				RemoteMergedBlocksFetched: m[model.ShuffleMergedRemoteBlocksFetched],
				LocalMergedBlocksFetched:  m[model.ShuffleMergedLocalBlocksFetched],
				RemoteMergedChunksFetched: m[model.ShuffleMergedRemoteChunksFetched],
				LocalMergedChunksFetched:  m[model.ShuffleMergedLocalChunksFetched],
				RemoteMergedBytesRead:     m[model.ShuffleMergedRemoteBytesRead],
				LocalMergedBytesRead:      m[model.ShuffleMergedLocalBytesRead],
				RemoteMergedReqsDuration:  m[model.ShuffleMergedRemoteReqsDuration],
			},
		},
		ShuffleWriteMetrics: ShuffleWriteMetrics{m[model.ShuffleWriteBytes], m[model.ShuffleWriteNanos], m[model.ShuffleWriteRecords]},
	}
}

// accumulables converts accumulator values; internal metrics are dropped as
// Spark drops them.
func accumulables(accs []model.Accumulable) []AccumulableInfo {
	out := []AccumulableInfo{}
	for _, ac := range accs {
		if strings.HasPrefix(ac.Name, "internal.metrics.") {
			continue
		}
		ai := AccumulableInfo{ID: ac.ID}
		if ac.Name != "" {
			n := ac.Name
			ai.Name = &n
		}
		if ac.Update != "" {
			u := ac.Update
			ai.Update = &u
		}
		val := ac.Value
		ai.Value = &val
		out = append(out, ai)
	}
	return out
}

// pairs converts model key-value pairs.
func pairs(kvs [][2]string) Pairs {
	out := make(Pairs, 0, len(kvs))
	for _, kv := range kvs {
		out = append(out, Pair{kv[0], kv[1]})
	}
	return out
}
