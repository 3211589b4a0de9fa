package shs

import "github.com/clusterlens/clusterlens/internal/model"

// ExecutorSummary is one executor (Spark's v1.ExecutorSummary).
type ExecutorSummary struct {
	ID                  string         `json:"id"`
	HostPort            string         `json:"hostPort"`
	IsActive            bool           `json:"isActive"`
	RDDBlocks           int64          `json:"rddBlocks"`
	MemoryUsed          int64          `json:"memoryUsed"`
	DiskUsed            int64          `json:"diskUsed"`
	TotalCores          int32          `json:"totalCores"`
	MaxTasks            int32          `json:"maxTasks"`
	ActiveTasks         int64          `json:"activeTasks"`
	FailedTasks         int64          `json:"failedTasks"`
	CompletedTasks      int64          `json:"completedTasks"`
	TotalTasks          int64          `json:"totalTasks"`
	TotalDuration       int64          `json:"totalDuration"`
	TotalGCTime         int64          `json:"totalGCTime"`
	TotalInputBytes     int64          `json:"totalInputBytes"`
	TotalShuffleRead    int64          `json:"totalShuffleRead"`
	TotalShuffleWrite   int64          `json:"totalShuffleWrite"`
	IsBlacklisted       bool           `json:"isBlacklisted"`
	MaxMemory           int64          `json:"maxMemory"`
	AddTime             Date           `json:"addTime"`
	RemoveTime          *Date          `json:"removeTime,omitempty"`
	RemoveReason        *string        `json:"removeReason,omitempty"`
	ExecutorLogs        Pairs          `json:"executorLogs"`
	MemoryMetrics       *MemoryMetrics `json:"memoryMetrics,omitempty"`
	BlacklistedInStages []int32        `json:"blacklistedInStages"`
	PeakMemoryMetrics   *PeakMetrics   `json:"peakMemoryMetrics,omitempty"`
	Attributes          Pairs          `json:"attributes"`
	Resources           ResourceInfos  `json:"resources"`
	ResourceProfileID   int32          `json:"resourceProfileId"`
	IsExcluded          bool           `json:"isExcluded"`
	ExcludedInStages    []int32        `json:"excludedInStages"`
}

// MemoryMetrics is an executor's storage memory (Spark's v1.MemoryMetrics).
type MemoryMetrics struct {
	UsedOnHeapStorageMemory   int64 `json:"usedOnHeapStorageMemory"`
	UsedOffHeapStorageMemory  int64 `json:"usedOffHeapStorageMemory"`
	TotalOnHeapStorageMemory  int64 `json:"totalOnHeapStorageMemory"`
	TotalOffHeapStorageMemory int64 `json:"totalOffHeapStorageMemory"`
}

// ResourceInformation is a resource an executor offers.
type ResourceInformation struct {
	Name      string   `json:"name"`
	Addresses []string `json:"addresses"`
}

// ResourceInfos is a Map[String, ResourceInformation] in order.
type ResourceInfos []ResourceInformation

// MarshalJSON writes the resources as an object keyed by name.
func (rs ResourceInfos) MarshalJSON() ([]byte, error) {
	return marshalKeyed(len(rs), func(i int) (string, any) { return rs[i].Name, rs[i] })
}

// PeakMetrics are peak executor metrics, written as Spark's
// ExecutorMetricsJsonSerializer writes them: an object of every metric type
// in ExecutorMetricType order.
type PeakMetrics model.ExecutorMetrics

// MarshalJSON writes every metric by name.
func (p *PeakMetrics) MarshalJSON() ([]byte, error) {
	return marshalKeyed(model.NumExecutorMetrics, func(i int) (string, any) {
		return model.ExecutorMetricNames[i], p.Values[i]
	})
}

// peakOf returns m as PeakMetrics when it was set, else nil (None).
func peakOf(m *model.ExecutorMetrics) *PeakMetrics {
	if m == nil || !m.Set {
		return nil
	}
	p := PeakMetrics(*m)
	return &p
}

// ExecutorMetricsDistributions are quantiles over a stage attempt's executors.
type ExecutorMetricsDistributions struct {
	Quantiles           Doubles          `json:"quantiles"`
	TaskTime            Doubles          `json:"taskTime"`
	FailedTasks         Doubles          `json:"failedTasks"`
	SucceededTasks      Doubles          `json:"succeededTasks"`
	KilledTasks         Doubles          `json:"killedTasks"`
	InputBytes          Doubles          `json:"inputBytes"`
	InputRecords        Doubles          `json:"inputRecords"`
	OutputBytes         Doubles          `json:"outputBytes"`
	OutputRecords       Doubles          `json:"outputRecords"`
	ShuffleRead         Doubles          `json:"shuffleRead"`
	ShuffleReadRecords  Doubles          `json:"shuffleReadRecords"`
	ShuffleWrite        Doubles          `json:"shuffleWrite"`
	ShuffleWriteRecords Doubles          `json:"shuffleWriteRecords"`
	MemoryBytesSpilled  Doubles          `json:"memoryBytesSpilled"`
	DiskBytesSpilled    Doubles          `json:"diskBytesSpilled"`
	PeakMemoryMetrics   PeakDistribution `json:"peakMemoryMetrics"`
}

// PeakDistribution holds, per executor metric type in Spark's order, the
// quantiles of the executors' peak values.
type PeakDistribution [model.NumExecutorMetrics]Doubles

// MarshalJSON writes the distribution as an object keyed by metric name.
func (p PeakDistribution) MarshalJSON() ([]byte, error) {
	return marshalKeyed(model.NumExecutorMetrics, func(i int) (string, any) {
		return model.ExecutorMetricNames[i], p[i]
	})
}
