package eventlog

import (
	"github.com/clusterlens/clusterlens/internal/jsonscan"

	"github.com/clusterlens/clusterlens/internal/model"
)

// internalMetrics are the task-metric accumulators (TaskMetrics.nameToAccums,
// InternalAccumulator) in Spark's order, with the model metric each carries.
var internalMetrics = [...]struct {
	name string
	m    model.Metric
}{
	{"internal.metrics.executorDeserializeTime", model.ExecutorDeserializeTime},
	{"internal.metrics.executorDeserializeCpuTime", model.ExecutorDeserializeCPUNanos},
	{"internal.metrics.executorRunTime", model.ExecutorRunTime},
	{"internal.metrics.executorCpuTime", model.ExecutorCPUNanos},
	{"internal.metrics.resultSize", model.ResultSize},
	{"internal.metrics.jvmGCTime", model.JVMGCTime},
	{"internal.metrics.resultSerializationTime", model.ResultSerializationTime},
	{"internal.metrics.memoryBytesSpilled", model.MemoryBytesSpilled},
	{"internal.metrics.diskBytesSpilled", model.DiskBytesSpilled},
	{"internal.metrics.peakExecutionMemory", model.PeakExecutionMemory},
	{"internal.metrics.shuffle.read.remoteBlocksFetched", model.ShuffleRemoteBlocksFetched},
	{"internal.metrics.shuffle.read.localBlocksFetched", model.ShuffleLocalBlocksFetched},
	{"internal.metrics.shuffle.read.remoteBytesRead", model.ShuffleRemoteBytesRead},
	{"internal.metrics.shuffle.read.remoteBytesReadToDisk", model.ShuffleRemoteBytesReadToDisk},
	{"internal.metrics.shuffle.read.localBytesRead", model.ShuffleLocalBytesRead},
	{"internal.metrics.shuffle.read.fetchWaitTime", model.ShuffleFetchWaitTime},
	{"internal.metrics.shuffle.read.recordsRead", model.ShuffleRecordsRead},
	{"internal.metrics.shuffle.push.read.corruptMergedBlockChunks", model.ShuffleCorruptMergedBlockChunks},
	{"internal.metrics.shuffle.push.read.mergedFetchFallbackCount", model.ShuffleMergedFetchFallbackCount},
	{"internal.metrics.shuffle.push.read.remoteMergedBlocksFetched", model.ShuffleMergedRemoteBlocksFetched},
	{"internal.metrics.shuffle.push.read.localMergedBlocksFetched", model.ShuffleMergedLocalBlocksFetched},
	{"internal.metrics.shuffle.push.read.remoteMergedChunksFetched", model.ShuffleMergedRemoteChunksFetched},
	{"internal.metrics.shuffle.push.read.localMergedChunksFetched", model.ShuffleMergedLocalChunksFetched},
	{"internal.metrics.shuffle.push.read.remoteMergedBytesRead", model.ShuffleMergedRemoteBytesRead},
	{"internal.metrics.shuffle.push.read.localMergedBytesRead", model.ShuffleMergedLocalBytesRead},
	{"internal.metrics.shuffle.read.remoteReqsDuration", model.ShuffleRemoteReqsDuration},
	{"internal.metrics.shuffle.push.read.remoteMergedReqsDuration", model.ShuffleMergedRemoteReqsDuration},
	{"internal.metrics.shuffle.write.bytesWritten", model.ShuffleWriteBytes},
	{"internal.metrics.shuffle.write.recordsWritten", model.ShuffleWriteRecords},
	{"internal.metrics.shuffle.write.writeTime", model.ShuffleWriteNanos},
	{"internal.metrics.input.bytesRead", model.InputBytes},
	{"internal.metrics.input.recordsRead", model.InputRecords},
	{"internal.metrics.output.bytesWritten", model.OutputBytes},
	{"internal.metrics.output.recordsWritten", model.OutputRecords},
}

// internalNameFields are the ready-made `,"Name":"..."` fields of internalMetrics.
var internalNameFields = func() (f [len(internalMetrics)][]byte) {
	for k, im := range internalMetrics {
		f[k] = jsonscan.AppendString([]byte(`,"Name":`), im.name)
	}
	return f
}()

// accumID is the id of a stage attempt's k-th task-metric accumulator:
// Spark registers one set per stage attempt from a global counter.
func accumID(st *model.Stage, k int) int64 {
	return int64(st.ID)*1000 + int64(st.Attempt)*int64(len(internalMetrics)) + int64(k) + 1
}

// internalAccumulables writes the non-zero task metrics as Spark 3.5 lists
// them among a task's or stage's accumulables (Internal, Count Failed Values).
func (e *encoder) internalAccumulables(st *model.Stage, m *model.TaskMetrics, update bool) {
	j := &e.j
	for k, im := range internalMetrics {
		v := m[im.m]
		if v == 0 {
			continue
		}
		j.open('{')
		j.kint("ID", accumID(st, k))
		j.b = append(j.b, internalNameFields[k]...) // ,"Name":"internal.metrics..."
		if update {
			j.nint(`,"Update":`, v)
		}
		j.nint(`,"Value":`, v)
		j.raw(`,"Internal":true,"Count Failed Values":true}`)
	}
}

// userAccumulable writes a named accumulator; Spark logs external values as strings.
func (e *encoder) userAccumulable(a model.Accumulable) {
	j := &e.j
	j.open('{')
	j.kint("ID", a.ID)
	j.kstr("Name", a.Name)
	if a.Update != "" {
		j.kstr("Update", a.Update)
	}
	j.kstr("Value", a.Value)
	j.kbool("Internal", false)
	j.kbool("Count Failed Values", false)
	j.close('}')
}

// taskInfo writes TaskInfo as JsonProtocol.taskInfoToJson: at the start
// (end false) with no result, finish or accumulables.
func (e *encoder) taskInfo(st *model.Stage, t *model.Task, phase uint32) {
	j := &e.j
	app := e.app
	var exec string
	if int(t.Executor) < len(app.Executors) {
		exec = app.Executors[t.Executor].ID
	}
	j.open('{')
	j.kint("Task ID", t.ID)
	j.nint(`,"Index":`, int64(t.Index))
	j.nint(`,"Attempt":`, int64(t.Attempt))
	j.nint(`,"Partition ID":`, int64(t.Partition))
	j.nint(`,"Launch Time":`, t.Launch)
	j.kstr("Executor ID", exec)
	j.kstr("Host", app.Host(t.Host))
	j.kstr("Locality", t.Locality.String())
	j.kbool("Speculative", t.Speculative)
	switch phase {
	case evTaskStart:
		j.raw(`,"Getting Result Time":0,"Finish Time":0,"Failed":false,"Killed":false`)
	case evTaskGettingResult:
		j.nint(`,"Getting Result Time":`, t.GettingResult)
		j.raw(`,"Finish Time":0,"Failed":false,"Killed":false`)
	default:
		j.nint(`,"Getting Result Time":`, t.GettingResult)
		j.nint(`,"Finish Time":`, t.Finish)
		j.kbool("Failed", t.Status == model.TaskFailed)
		j.kbool("Killed", t.Status == model.TaskKilled)
	}
	j.key("Accumulables")
	j.open('[')
	if phase == evTaskEnd {
		if t.HasMetrics {
			e.internalAccumulables(st, &e.m, true)
		}
		for _, a := range st.TaskAccumulables[t.ID] {
			e.userAccumulable(a)
		}
		e.sqlAccumulables(st, t)
	}
	j.close(']')
	j.close('}')
}

func (e *encoder) taskStart(st *model.Stage, i int) {
	e.begin("SparkListenerTaskStart")
	e.j.kint("Stage ID", int64(st.ID))
	e.j.kint("Stage Attempt ID", int64(st.Attempt))
	e.j.key("Task Info")
	e.taskInfo(st, &st.Tasks[i], evTaskStart)
}

// taskGettingResult writes SparkListenerTaskGettingResult, which in Spark
// 3.5 carries only the task info.
func (e *encoder) taskGettingResult(st *model.Stage, i int) {
	e.begin("SparkListenerTaskGettingResult")
	e.j.key("Task Info")
	e.taskInfo(st, &st.Tasks[i], evTaskGettingResult)
}

func (e *encoder) taskEnd(st *model.Stage, i int) {
	t := &st.Tasks[i]
	st.TaskMetrics(i, &e.m)
	j := &e.j
	e.begin("SparkListenerTaskEnd")
	j.kint("Stage ID", int64(st.ID))
	j.kint("Stage Attempt ID", int64(st.Attempt))
	if e.resultStage[st.ID] {
		j.kstr("Task Type", "ResultTask")
	} else {
		j.kstr("Task Type", "ShuffleMapTask")
	}
	j.key("Task End Reason")
	e.endReason(t)
	j.key("Task Info")
	e.taskInfo(st, t, evTaskEnd)
	j.key("Task Executor Metrics")
	e.executorMetrics(st.ExecutorPeaks[t.Executor])
	if t.HasMetrics {
		j.key("Task Metrics")
		e.taskMetrics(&e.m)
	}
}

// taskMetrics writes TaskMetrics as JsonProtocol.taskMetricsToJson (3.5).
func (e *encoder) taskMetrics(m *model.TaskMetrics) {
	j := &e.j
	j.open('{')
	j.kint("Executor Deserialize Time", m[model.ExecutorDeserializeTime])
	j.nint(`,"Executor Deserialize CPU Time":`, m[model.ExecutorDeserializeCPUNanos])
	j.nint(`,"Executor Run Time":`, m[model.ExecutorRunTime])
	j.nint(`,"Executor CPU Time":`, m[model.ExecutorCPUNanos])
	j.nint(`,"Peak Execution Memory":`, m[model.PeakExecutionMemory])
	j.nint(`,"Result Size":`, m[model.ResultSize])
	j.nint(`,"JVM GC Time":`, m[model.JVMGCTime])
	j.nint(`,"Result Serialization Time":`, m[model.ResultSerializationTime])
	j.nint(`,"Memory Bytes Spilled":`, m[model.MemoryBytesSpilled])
	j.nint(`,"Disk Bytes Spilled":`, m[model.DiskBytesSpilled])
	j.key("Shuffle Read Metrics")
	j.open('{')
	j.kint("Remote Blocks Fetched", m[model.ShuffleRemoteBlocksFetched])
	j.nint(`,"Local Blocks Fetched":`, m[model.ShuffleLocalBlocksFetched])
	j.nint(`,"Fetch Wait Time":`, m[model.ShuffleFetchWaitTime])
	j.nint(`,"Remote Bytes Read":`, m[model.ShuffleRemoteBytesRead])
	j.nint(`,"Remote Bytes Read To Disk":`, m[model.ShuffleRemoteBytesReadToDisk])
	j.nint(`,"Local Bytes Read":`, m[model.ShuffleLocalBytesRead])
	j.nint(`,"Total Records Read":`, m[model.ShuffleRecordsRead])
	j.nint(`,"Remote Requests Duration":`, m[model.ShuffleRemoteReqsDuration])
	j.key("Shuffle Push Read Metrics")
	j.open('{')
	j.kint("Corrupt Merged Block Chunks", m[model.ShuffleCorruptMergedBlockChunks])
	j.nint(`,"Merged Fetch Fallback Count":`, m[model.ShuffleMergedFetchFallbackCount])
	j.nint(`,"Merged Remote Blocks Fetched":`, m[model.ShuffleMergedRemoteBlocksFetched])
	j.nint(`,"Merged Local Blocks Fetched":`, m[model.ShuffleMergedLocalBlocksFetched])
	j.nint(`,"Merged Remote Chunks Fetched":`, m[model.ShuffleMergedRemoteChunksFetched])
	j.nint(`,"Merged Local Chunks Fetched":`, m[model.ShuffleMergedLocalChunksFetched])
	j.nint(`,"Merged Remote Bytes Read":`, m[model.ShuffleMergedRemoteBytesRead])
	j.nint(`,"Merged Local Bytes Read":`, m[model.ShuffleMergedLocalBytesRead])
	j.nint(`,"Merged Remote Requests Duration":`, m[model.ShuffleMergedRemoteReqsDuration])
	j.close('}')
	j.close('}')
	j.key("Shuffle Write Metrics")
	j.open('{')
	j.kint("Shuffle Bytes Written", m[model.ShuffleWriteBytes])
	j.nint(`,"Shuffle Write Time":`, m[model.ShuffleWriteNanos])
	j.nint(`,"Shuffle Records Written":`, m[model.ShuffleWriteRecords])
	j.close('}')
	j.key("Input Metrics")
	j.open('{')
	j.kint("Bytes Read", m[model.InputBytes])
	j.nint(`,"Records Read":`, m[model.InputRecords])
	j.close('}')
	j.key("Output Metrics")
	j.open('{')
	j.kint("Bytes Written", m[model.OutputBytes])
	j.nint(`,"Records Written":`, m[model.OutputRecords])
	j.close('}')
	j.key("Updated Blocks")
	j.open('[')
	j.close(']')
	j.close('}')
}
