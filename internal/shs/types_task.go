package shs

import "strconv"

// TaskData is one task attempt (Spark's v1.TaskData).
type TaskData struct {
	TaskID             int64             `json:"taskId"`
	Index              int32             `json:"index"`
	Attempt            int32             `json:"attempt"`
	PartitionID        int32             `json:"partitionId"`
	LaunchTime         Date              `json:"launchTime"`
	ResultFetchStart   *Date             `json:"resultFetchStart,omitempty"`
	Duration           *int64            `json:"duration,omitempty"`
	ExecutorID         string            `json:"executorId"`
	Host               string            `json:"host"`
	Status             string            `json:"status"`
	TaskLocality       string            `json:"taskLocality"`
	Speculative        bool              `json:"speculative"`
	AccumulatorUpdates []AccumulableInfo `json:"accumulatorUpdates"`
	ErrorMessage       *string           `json:"errorMessage,omitempty"`
	TaskMetrics        *TaskMetrics      `json:"taskMetrics,omitempty"`
	ExecutorLogs       Pairs             `json:"executorLogs"`
	SchedulerDelay     int64             `json:"schedulerDelay"`
	GettingResultTime  int64             `json:"gettingResultTime"`
}

// TaskMetrics are one task attempt's metrics (Spark's v1.TaskMetrics).
type TaskMetrics struct {
	ExecutorDeserializeTime    int64               `json:"executorDeserializeTime"`
	ExecutorDeserializeCPUTime int64               `json:"executorDeserializeCpuTime"`
	ExecutorRunTime            int64               `json:"executorRunTime"`
	ExecutorCPUTime            int64               `json:"executorCpuTime"`
	ResultSize                 int64               `json:"resultSize"`
	JVMGCTime                  int64               `json:"jvmGcTime"`
	ResultSerializationTime    int64               `json:"resultSerializationTime"`
	MemoryBytesSpilled         int64               `json:"memoryBytesSpilled"`
	DiskBytesSpilled           int64               `json:"diskBytesSpilled"`
	PeakExecutionMemory        int64               `json:"peakExecutionMemory"`
	InputMetrics               InputMetrics        `json:"inputMetrics"`
	OutputMetrics              OutputMetrics       `json:"outputMetrics"`
	ShuffleReadMetrics         ShuffleReadMetrics  `json:"shuffleReadMetrics"`
	ShuffleWriteMetrics        ShuffleWriteMetrics `json:"shuffleWriteMetrics"`
}

// InputMetrics are a task's input metrics.
type InputMetrics struct {
	BytesRead   int64 `json:"bytesRead"`
	RecordsRead int64 `json:"recordsRead"`
}

// OutputMetrics are a task's output metrics.
type OutputMetrics struct {
	BytesWritten   int64 `json:"bytesWritten"`
	RecordsWritten int64 `json:"recordsWritten"`
}

// ShuffleReadMetrics are a task's shuffle-read metrics.
type ShuffleReadMetrics struct {
	RemoteBlocksFetched    int64                  `json:"remoteBlocksFetched"`
	LocalBlocksFetched     int64                  `json:"localBlocksFetched"`
	FetchWaitTime          int64                  `json:"fetchWaitTime"`
	RemoteBytesRead        int64                  `json:"remoteBytesRead"`
	RemoteBytesReadToDisk  int64                  `json:"remoteBytesReadToDisk"`
	LocalBytesRead         int64                  `json:"localBytesRead"`
	RecordsRead            int64                  `json:"recordsRead"`
	RemoteReqsDuration     int64                  `json:"remoteReqsDuration"`
	ShufflePushReadMetrics ShufflePushReadMetrics `json:"shufflePushReadMetrics"`
}

// ShufflePushReadMetrics are a task's push-based shuffle-read metrics.
type ShufflePushReadMetrics struct {
	CorruptMergedBlockChunks  int64 `json:"corruptMergedBlockChunks"`
	MergedFetchFallbackCount  int64 `json:"mergedFetchFallbackCount"`
	RemoteMergedBlocksFetched int64 `json:"remoteMergedBlocksFetched"`
	LocalMergedBlocksFetched  int64 `json:"localMergedBlocksFetched"`
	RemoteMergedChunksFetched int64 `json:"remoteMergedChunksFetched"`
	LocalMergedChunksFetched  int64 `json:"localMergedChunksFetched"`
	RemoteMergedBytesRead     int64 `json:"remoteMergedBytesRead"`
	LocalMergedBytesRead      int64 `json:"localMergedBytesRead"`
	RemoteMergedReqsDuration  int64 `json:"remoteMergedReqsDuration"`
}

// ShuffleWriteMetrics are a task's shuffle-write metrics.
type ShuffleWriteMetrics struct {
	BytesWritten   int64 `json:"bytesWritten"`
	WriteTime      int64 `json:"writeTime"`
	RecordsWritten int64 `json:"recordsWritten"`
}

// TaskMetricDistributions are quantiles of a stage attempt's task metrics.
type TaskMetricDistributions struct {
	Quantiles                  Doubles                         `json:"quantiles"`
	Duration                   Doubles                         `json:"duration"`
	ExecutorDeserializeTime    Doubles                         `json:"executorDeserializeTime"`
	ExecutorDeserializeCPUTime Doubles                         `json:"executorDeserializeCpuTime"`
	ExecutorRunTime            Doubles                         `json:"executorRunTime"`
	ExecutorCPUTime            Doubles                         `json:"executorCpuTime"`
	ResultSize                 Doubles                         `json:"resultSize"`
	JVMGCTime                  Doubles                         `json:"jvmGcTime"`
	ResultSerializationTime    Doubles                         `json:"resultSerializationTime"`
	GettingResultTime          Doubles                         `json:"gettingResultTime"`
	SchedulerDelay             Doubles                         `json:"schedulerDelay"`
	PeakExecutionMemory        Doubles                         `json:"peakExecutionMemory"`
	MemoryBytesSpilled         Doubles                         `json:"memoryBytesSpilled"`
	DiskBytesSpilled           Doubles                         `json:"diskBytesSpilled"`
	InputMetrics               InputMetricDistributions        `json:"inputMetrics"`
	OutputMetrics              OutputMetricDistributions       `json:"outputMetrics"`
	ShuffleReadMetrics         ShuffleReadMetricDistributions  `json:"shuffleReadMetrics"`
	ShuffleWriteMetrics        ShuffleWriteMetricDistributions `json:"shuffleWriteMetrics"`
}

// InputMetricDistributions are quantiles of input metrics.
type InputMetricDistributions struct {
	BytesRead   Doubles `json:"bytesRead"`
	RecordsRead Doubles `json:"recordsRead"`
}

// OutputMetricDistributions are quantiles of output metrics.
type OutputMetricDistributions struct {
	BytesWritten   Doubles `json:"bytesWritten"`
	RecordsWritten Doubles `json:"recordsWritten"`
}

// ShuffleReadMetricDistributions are quantiles of shuffle-read metrics.
type ShuffleReadMetricDistributions struct {
	ReadBytes                  Doubles                            `json:"readBytes"`
	ReadRecords                Doubles                            `json:"readRecords"`
	RemoteBlocksFetched        Doubles                            `json:"remoteBlocksFetched"`
	LocalBlocksFetched         Doubles                            `json:"localBlocksFetched"`
	FetchWaitTime              Doubles                            `json:"fetchWaitTime"`
	RemoteBytesRead            Doubles                            `json:"remoteBytesRead"`
	RemoteBytesReadToDisk      Doubles                            `json:"remoteBytesReadToDisk"`
	TotalBlocksFetched         Doubles                            `json:"totalBlocksFetched"`
	RemoteReqsDuration         Doubles                            `json:"remoteReqsDuration"`
	ShufflePushReadMetricsDist ShufflePushReadMetricDistributions `json:"shufflePushReadMetricsDist"`
}

// ShufflePushReadMetricDistributions are quantiles of push-based shuffle-read metrics.
type ShufflePushReadMetricDistributions struct {
	CorruptMergedBlockChunks  Doubles `json:"corruptMergedBlockChunks"`
	MergedFetchFallbackCount  Doubles `json:"mergedFetchFallbackCount"`
	RemoteMergedBlocksFetched Doubles `json:"remoteMergedBlocksFetched"`
	LocalMergedBlocksFetched  Doubles `json:"localMergedBlocksFetched"`
	RemoteMergedChunksFetched Doubles `json:"remoteMergedChunksFetched"`
	LocalMergedChunksFetched  Doubles `json:"localMergedChunksFetched"`
	RemoteMergedBytesRead     Doubles `json:"remoteMergedBytesRead"`
	LocalMergedBytesRead      Doubles `json:"localMergedBytesRead"`
	RemoteMergedReqsDuration  Doubles `json:"remoteMergedReqsDuration"`
}

// ShuffleWriteMetricDistributions are quantiles of shuffle-write metrics.
type ShuffleWriteMetricDistributions struct {
	WriteBytes   Doubles `json:"writeBytes"`
	WriteRecords Doubles `json:"writeRecords"`
	WriteTime    Doubles `json:"writeTime"`
}

// itoa formats an int64.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }
