package shs

// StageData is one stage attempt (Spark's v1.StageData).
type StageData struct {
	Status              string `json:"status"`
	StageID             int32  `json:"stageId"`
	AttemptID           int32  `json:"attemptId"`
	NumTasks            int32  `json:"numTasks"`
	NumActiveTasks      int64  `json:"numActiveTasks"`
	NumCompleteTasks    int64  `json:"numCompleteTasks"`
	NumFailedTasks      int64  `json:"numFailedTasks"`
	NumKilledTasks      int64  `json:"numKilledTasks"`
	NumCompletedIndices int64  `json:"numCompletedIndices"`

	SubmissionTime        *Date   `json:"submissionTime,omitempty"`
	FirstTaskLaunchedTime *Date   `json:"firstTaskLaunchedTime,omitempty"`
	CompletionTime        *Date   `json:"completionTime,omitempty"`
	FailureReason         *string `json:"failureReason,omitempty"`

	ExecutorDeserializeTime          int64 `json:"executorDeserializeTime"`
	ExecutorDeserializeCPUTime       int64 `json:"executorDeserializeCpuTime"`
	ExecutorRunTime                  int64 `json:"executorRunTime"`
	ExecutorCPUTime                  int64 `json:"executorCpuTime"`
	ResultSize                       int64 `json:"resultSize"`
	JVMGCTime                        int64 `json:"jvmGcTime"`
	ResultSerializationTime          int64 `json:"resultSerializationTime"`
	MemoryBytesSpilled               int64 `json:"memoryBytesSpilled"`
	DiskBytesSpilled                 int64 `json:"diskBytesSpilled"`
	PeakExecutionMemory              int64 `json:"peakExecutionMemory"`
	InputBytes                       int64 `json:"inputBytes"`
	InputRecords                     int64 `json:"inputRecords"`
	OutputBytes                      int64 `json:"outputBytes"`
	OutputRecords                    int64 `json:"outputRecords"`
	ShuffleRemoteBlocksFetched       int64 `json:"shuffleRemoteBlocksFetched"`
	ShuffleLocalBlocksFetched        int64 `json:"shuffleLocalBlocksFetched"`
	ShuffleFetchWaitTime             int64 `json:"shuffleFetchWaitTime"`
	ShuffleRemoteBytesRead           int64 `json:"shuffleRemoteBytesRead"`
	ShuffleRemoteBytesReadToDisk     int64 `json:"shuffleRemoteBytesReadToDisk"`
	ShuffleLocalBytesRead            int64 `json:"shuffleLocalBytesRead"`
	ShuffleReadBytes                 int64 `json:"shuffleReadBytes"`
	ShuffleReadRecords               int64 `json:"shuffleReadRecords"`
	ShuffleCorruptMergedBlockChunks  int64 `json:"shuffleCorruptMergedBlockChunks"`
	ShuffleMergedFetchFallbackCount  int64 `json:"shuffleMergedFetchFallbackCount"`
	ShuffleMergedRemoteBlocksFetched int64 `json:"shuffleMergedRemoteBlocksFetched"`
	ShuffleMergedLocalBlocksFetched  int64 `json:"shuffleMergedLocalBlocksFetched"`
	ShuffleMergedRemoteChunksFetched int64 `json:"shuffleMergedRemoteChunksFetched"`
	ShuffleMergedLocalChunksFetched  int64 `json:"shuffleMergedLocalChunksFetched"`
	ShuffleMergedRemoteBytesRead     int64 `json:"shuffleMergedRemoteBytesRead"`
	ShuffleMergedLocalBytesRead      int64 `json:"shuffleMergedLocalBytesRead"`
	ShuffleRemoteReqsDuration        int64 `json:"shuffleRemoteReqsDuration"`
	ShuffleMergedRemoteReqsDuration  int64 `json:"shuffleMergedRemoteReqsDuration"`
	ShuffleWriteBytes                int64 `json:"shuffleWriteBytes"`
	ShuffleWriteTime                 int64 `json:"shuffleWriteTime"`
	ShuffleWriteRecords              int64 `json:"shuffleWriteRecords"`

	Name           string  `json:"name"`
	Description    *string `json:"description,omitempty"`
	Details        string  `json:"details"`
	SchedulingPool string  `json:"schedulingPool"`

	RDDIDs                       []int32                       `json:"rddIds"`
	AccumulatorUpdates           []AccumulableInfo             `json:"accumulatorUpdates"`
	Tasks                        *TaskMap                      `json:"tasks,omitempty"`
	ExecutorSummary              *ExecutorStageSummaries       `json:"executorSummary,omitempty"`
	SpeculationSummary           *SpeculationStageSummary      `json:"speculationSummary,omitempty"`
	KilledTasksSummary           Counts                        `json:"killedTasksSummary"`
	ResourceProfileID            int32                         `json:"resourceProfileId"`
	PeakExecutorMetrics          *PeakMetrics                  `json:"peakExecutorMetrics,omitempty"`
	TaskMetricsDistributions     *TaskMetricDistributions      `json:"taskMetricsDistributions,omitempty"`
	ExecutorMetricsDistributions *ExecutorMetricsDistributions `json:"executorMetricsDistributions,omitempty"`
	IsShufflePushEnabled         bool                          `json:"isShufflePushEnabled"`
	ShuffleMergersCount          int32                         `json:"shuffleMergersCount"`
}

// AccumulableInfo is a named accumulator's value (Spark's v1.AccumulableInfo).
type AccumulableInfo struct {
	ID     int64   `json:"id"`
	Name   *string `json:"name,omitempty"`
	Update *string `json:"update,omitempty"`
	Value  *string `json:"value,omitempty"`
}

// SpeculationStageSummary counts a stage attempt's speculative tasks.
type SpeculationStageSummary struct {
	NumTasks          int64 `json:"numTasks"`
	NumActiveTasks    int64 `json:"numActiveTasks"`
	NumCompletedTasks int64 `json:"numCompletedTasks"`
	NumFailedTasks    int64 `json:"numFailedTasks"`
	NumKilledTasks    int64 `json:"numKilledTasks"`
}

// ExecutorStageSummary is one executor's share of a stage attempt.
type ExecutorStageSummary struct {
	TaskTime              int64        `json:"taskTime"`
	FailedTasks           int64        `json:"failedTasks"`
	SucceededTasks        int64        `json:"succeededTasks"`
	KilledTasks           int64        `json:"killedTasks"`
	InputBytes            int64        `json:"inputBytes"`
	InputRecords          int64        `json:"inputRecords"`
	OutputBytes           int64        `json:"outputBytes"`
	OutputRecords         int64        `json:"outputRecords"`
	ShuffleRead           int64        `json:"shuffleRead"`
	ShuffleReadRecords    int64        `json:"shuffleReadRecords"`
	ShuffleWrite          int64        `json:"shuffleWrite"`
	ShuffleWriteRecords   int64        `json:"shuffleWriteRecords"`
	MemoryBytesSpilled    int64        `json:"memoryBytesSpilled"`
	DiskBytesSpilled      int64        `json:"diskBytesSpilled"`
	IsBlacklistedForStage bool         `json:"isBlacklistedForStage"`
	PeakMemoryMetrics     *PeakMetrics `json:"peakMemoryMetrics,omitempty"`
	IsExcludedForStage    bool         `json:"isExcludedForStage"`
}

// ExecutorStageSummaries is a Map[executorId, ExecutorStageSummary] in order.
type ExecutorStageSummaries []ExecutorStageEntry

// ExecutorStageEntry is one executor's entry of ExecutorStageSummaries.
type ExecutorStageEntry struct {
	ExecutorID string
	Summary    ExecutorStageSummary
}

// MarshalJSON writes the summaries as an object keyed by executor id.
func (es ExecutorStageSummaries) MarshalJSON() ([]byte, error) {
	return marshalKeyed(len(es), func(i int) (string, any) { return es[i].ExecutorID, es[i].Summary })
}

// TaskMap is a stage's Map[taskId, TaskData] in order; nil is omitted.
type TaskMap []TaskData

// MarshalJSON writes the tasks as an object keyed by task id.
func (tm TaskMap) MarshalJSON() ([]byte, error) {
	return marshalKeyed(len(tm), func(i int) (string, any) { return itoa(tm[i].TaskID), tm[i] })
}
