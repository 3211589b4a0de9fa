package diagnose

import (
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
)

// mrTask is one MapReduce task as Dr. Elephant's fetcher sees it
// (mapreduce/data/MapReduceTaskData.java, filled by
// fetchers/MapReduceFSFetcherHadoop2.getTaskData): the successful attempt of
// a succeeded task, else the attempt that failed it; its times and counters.
type mrTask struct {
	// hasTime and hasCounters are isTimeDataPresent and
	// isCounterDataPresent: false for a task with no finished attempt.
	hasTime, hasCounters bool
	// totalMs is finish − start; shuffleMs is the shuffle end − start and
	// sortMs the sort end − the shuffle end (reduces; 0 for maps).
	totalMs, shuffleMs, sortMs int64
	// phases is false for a reduce whose history lacks a phase end.
	phases bool
	// Counters: HDFS_BYTES_READ, REDUCE_SHUFFLE_BYTES, CPU_MILLISECONDS,
	// GC_TIME_MILLIS, PHYSICAL_MEMORY_BYTES, VIRTUAL_MEMORY_BYTES,
	// SPILLED_RECORDS, MAP_OUTPUT_RECORDS.
	hdfsRead, shuffleBytes, cpuMs, gcMs, pmem, vmem, spilled, mapOut int64
}

// codeMs is MapReduceTaskData.getCodeExecutionTimeMs.
func (t *mrTask) codeMs() int64 { return t.totalMs - t.shuffleMs - t.sortMs }

// mrSucceeded is MapReduceApplicationData.getSucceeded: Dr. Elephant
// analyses only MapReduce jobs whose history says SUCCEEDED.
func mrSucceeded(app *model.App) bool {
	return app.Engine == model.MapReduce && len(app.Jobs) > 0 && app.Jobs[0].Status == model.JobSucceeded
}

// mrTasks returns the tasks of the job's map or reduce stage (getMapperData,
// getReducerData), one per task number in order of first appearance.
//
// One departure from Dr. Elephant: a reduce that launched before the last
// map finished (slow-start) waited for the maps; its run and shuffle times
// count from the last map's finish, so that waiting is not read as work
// (slow reducers, a slow shuffle) nor its absence as short tasks.
func mrTasks(app *model.App, kind model.StageKind) []mrTask {
	var out []mrTask
	mapsEnd := int64(0)
	if kind == model.StageReduce {
		mapsEnd = lastMapFinish(app)
	}
	for _, st := range app.Stages {
		if st.Kind != kind {
			continue
		}
		chosen := map[int32]int{} // task number → index of the chosen attempt
		var order []int32
		for i := range st.Tasks {
			t := &st.Tasks[i]
			j, seen := chosen[t.Index]
			if !seen {
				order = append(order, t.Index)
				chosen[t.Index] = -1
				j = -1
			}
			if drBetterAttempt(t, j, st) {
				chosen[t.Index] = i
			}
		}
		var m model.TaskMetrics
		for _, idx := range order {
			i := chosen[idx]
			if i < 0 {
				out = append(out, mrTask{})
				continue
			}
			t := &st.Tasks[i]
			st.TaskMetrics(i, &m)
			out = append(out, newMRTask(t, &m, kind, mapsEnd))
		}
	}
	return out
}

// drBetterAttempt reports whether attempt t should replace the chosen attempt j of
// its task: a success over anything, else the latest failure
// (TaskInfo.getSuccessfulAttemptId, getFailedDueToAttemptId).
func drBetterAttempt(t *model.Task, j int, st *model.Stage) bool {
	switch t.Status {
	case model.TaskSuccess:
		return j < 0 || st.Tasks[j].Status != model.TaskSuccess
	case model.TaskFailed:
		return j < 0 || st.Tasks[j].Status != model.TaskSuccess
	}
	return false
}

// newMRTask reads one chosen attempt; getTaskExecTime gives the times.
func newMRTask(t *model.Task, m *model.TaskMetrics, kind model.StageKind, mapsEnd int64) mrTask {
	if !t.Done() || t.Launch <= 0 {
		return mrTask{}
	}
	start := t.Launch
	if mapsEnd > start && t.Finish > mapsEnd {
		start = mapsEnd // the time before was waiting for the maps
	}
	mt := mrTask{
		hasTime: true, hasCounters: true, phases: true,
		totalMs:  t.Finish - start,
		hdfsRead: m[model.HDFSBytesRead], shuffleBytes: m[model.ReduceShuffleBytes],
		cpuMs: m[model.CPUMillis], gcMs: m[model.JVMGCTime],
		pmem: m[model.PhysicalMemoryBytes], vmem: m[model.VirtualMemoryBytes],
		spilled: m[model.SpilledRecords], mapOut: m[model.MapOutputRecords],
	}
	if kind == model.StageReduce {
		shuffle, sort := m[model.ShufflePhaseFinish], m[model.SortPhaseFinish]
		if shuffle <= 0 || sort <= 0 || shuffle < start || sort < shuffle || t.Finish < sort {
			mt.phases = false // a phase end missing or out of order: not applicable
		} else {
			mt.shuffleMs = shuffle - start
			mt.sortMs = sort - shuffle
		}
	}
	return mt
}

// lastMapFinish is when the job's last successful map attempt finished (0
// for none).
func lastMapFinish(app *model.App) int64 {
	var end int64
	for _, st := range app.Stages {
		if st.Kind != model.StageMap {
			continue
		}
		for i := range st.Tasks {
			if t := &st.Tasks[i]; t.Status == model.TaskSuccess {
				end = max(end, t.Finish)
			}
		}
	}
	return end
}

// mrStageScope is the scope of a map (stage 0) or reduce (stage 1) finding.
func mrStageScope(kind model.StageKind) Scope {
	id := "0"
	if kind == model.StageReduce {
		id = "1"
	}
	return Scope{Kind: ScopeStage, IDs: []string{id}}
}

// mrWord names the task kind in summaries.
func mrWord(kind model.StageKind) string {
	if kind == model.StageReduce {
		return "reduce"
	}
	return "map"
}

// drConf is a job configuration property (data.getConf().getProperty).
func drConf(app *model.App, key string) (string, bool) {
	v, ok := "", false
	for _, kv := range app.Conf {
		if kv[0] == key {
			v, ok = kv[1], true
		}
	}
	return v, ok
}

// drDefaultBlockSize is HDFSContext.HDFS_BLOCK_SIZE before load() asks HDFS.
const drDefaultBlockSize = 64 * drMiB

// drBlockSize is the HDFS block size: p when set, else the job's dfs.blocksize
// (what HDFSContext.load reads from the cluster), else 64 MiB.
func drBlockSize(app *model.App, p int64) int64 {
	if p > 0 {
		return p
	}
	for _, key := range []string{"dfs.blocksize", "dfs.block.size"} {
		if v, ok := drConf(app, key); ok {
			if n, err := drParseHadoopSize(v); err == nil && n > 0 {
				return n
			}
		}
	}
	return drDefaultBlockSize
}

// drParseHadoopSize reads a Hadoop size such as "134217728" or "128m"
// (Configuration.getLongBytes suffixes k, m, g, t, p, e).
func drParseHadoopSize(s string) (int64, error) {
	mult := int64(1)
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 't', 'T':
			mult = 1 << 40
		case 'p', 'P':
			mult = 1 << 50
		}
		if mult > 1 {
			s = s[:n-1]
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, err
	}
	return v * mult, nil
}
