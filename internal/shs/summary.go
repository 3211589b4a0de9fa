package shs

import (
	"math"
	"slices"
	"sort"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// Default quantiles of the API.
const (
	defaultSummaryQuantiles = "0.05,0.25,0.5,0.75,0.95"
	defaultStageQuantiles   = "0.0,0.25,0.5,0.75,1.0"
)

// quantileIndexes are AppStatusStore's positions for sorted quantiles over
// count values (stats.QuantileIndex).
func quantileIndexes(qs []float64, count int64) []int64 {
	idx := make([]int64, len(qs))
	for i, q := range qs {
		idx[i] = stats.QuantileIndex(q, count)
	}
	return idx
}

// scanIndex reproduces AppStatusStore.taskSummary's scan of one task index:
// values holds the index's entries from 0 up, sorted; an iterator skips to
// each requested position, so a position past the end (possible when the
// index holds fewer entries than the count of successful tasks) is NaN.
func scanIndex(values []int64, indices []int64) Doubles {
	out := make(Doubles, len(indices))
	last, cur, pos := math.NaN(), int64(-1), int64(0)
	n := int64(len(values))
	for i, idx := range indices {
		if idx == cur {
			out[i] = last
			continue
		}
		diff := idx - cur
		cur = idx
		if skip := diff - 1; skip > 0 {
			pos = min(pos+skip, n)
		}
		if pos < n {
			last = float64(values[pos])
			pos++
			out[i] = last
		} else {
			out[i] = math.NaN()
		}
	}
	return out
}

// taskSummary computes a stage attempt's TaskMetricDistributions the way
// AppStatusStore.taskSummary does, or nil when no task reported metrics.
// quantiles must be sorted.
func (v *appView) taskSummary(st *model.Stage, quantiles []float64) *TaskMetricDistributions {
	n := len(st.Tasks)
	succ := make([]model.TaskMetrics, 0, n) // successful attempts with metrics
	all := make([]model.TaskMetrics, 0, n)  // every attempt with metrics
	type timing struct{ launch, fetch, duration int64 }
	var allT []timing
	durations := make([]int64, 0, n)
	var m model.TaskMetrics
	for i := range st.Tasks {
		t := &st.Tasks[i]
		d := taskDuration(t, v.app.LastUpdated)
		if d >= 0 {
			durations = append(durations, d)
		}
		if !hasMetrics(t) {
			continue
		}
		st.TaskMetrics(i, &m)
		all = append(all, m)
		fetch := int64(-1)
		if t.GettingResult > 0 {
			fetch = t.GettingResult
		}
		allT = append(allT, timing{t.Launch, fetch, d})
		if t.Status == model.TaskSuccess {
			succ = append(succ, m)
		}
	}
	count := int64(len(succ))
	if count <= 0 {
		return nil
	}
	idx := quantileIndexes(quantiles, count)
	metric := func(k model.Metric) Doubles {
		vals := make([]int64, len(succ))
		for i := range succ {
			vals[i] = succ[i][k]
		}
		return sortedScan(vals, idx)
	}
	over := func(f func(int) int64) Doubles {
		vals := make([]int64, 0, len(all))
		for i := range all {
			if x := f(i); x >= 0 {
				vals = append(vals, x)
			}
		}
		return sortedScan(vals, idx)
	}
	now := v.now
	return &TaskMetricDistributions{
		Quantiles:                  Doubles(slices.Clone(quantiles)),
		Duration:                   sortedScan(durations, idx),
		ExecutorDeserializeTime:    metric(model.ExecutorDeserializeTime),
		ExecutorDeserializeCPUTime: metric(model.ExecutorDeserializeCPUNanos),
		ExecutorRunTime:            metric(model.ExecutorRunTime),
		ExecutorCPUTime:            metric(model.ExecutorCPUNanos),
		ResultSize:                 metric(model.ResultSize),
		JVMGCTime:                  metric(model.JVMGCTime),
		ResultSerializationTime:    metric(model.ResultSerializationTime),
		GettingResultTime: over(func(i int) int64 {
			return gettingResultTime(allT[i].launch, allT[i].fetch, allT[i].duration, now)
		}),
		SchedulerDelay: over(func(i int) int64 {
			m := &all[i]
			return schedulerDelay(allT[i].launch, allT[i].fetch, allT[i].duration, m[model.ExecutorDeserializeTime],
				m[model.ResultSerializationTime], m[model.ExecutorRunTime], now)
		}),
		PeakExecutionMemory: metric(model.PeakExecutionMemory),
		MemoryBytesSpilled:  metric(model.MemoryBytesSpilled),
		DiskBytesSpilled:    metric(model.DiskBytesSpilled),
		InputMetrics:        InputMetricDistributions{metric(model.InputBytes), metric(model.InputRecords)},
		OutputMetrics:       OutputMetricDistributions{metric(model.OutputBytes), metric(model.OutputRecords)},
		ShuffleReadMetrics: ShuffleReadMetricDistributions{
			ReadBytes:             over(func(i int) int64 { return all[i].ShuffleReadBytes() }),
			ReadRecords:           metric(model.ShuffleRecordsRead),
			RemoteBlocksFetched:   metric(model.ShuffleRemoteBlocksFetched),
			LocalBlocksFetched:    metric(model.ShuffleLocalBlocksFetched),
			FetchWaitTime:         metric(model.ShuffleFetchWaitTime),
			RemoteBytesRead:       metric(model.ShuffleRemoteBytesRead),
			RemoteBytesReadToDisk: metric(model.ShuffleRemoteBytesReadToDisk),
			TotalBlocksFetched: over(func(i int) int64 {
				return all[i][model.ShuffleLocalBlocksFetched] + all[i][model.ShuffleRemoteBlocksFetched]
			}),
			RemoteReqsDuration: metric(model.ShuffleRemoteReqsDuration),
			ShufflePushReadMetricsDist: ShufflePushReadMetricDistributions{
				CorruptMergedBlockChunks:  metric(model.ShuffleCorruptMergedBlockChunks),
				MergedFetchFallbackCount:  metric(model.ShuffleMergedFetchFallbackCount),
				RemoteMergedBlocksFetched: metric(model.ShuffleMergedRemoteBlocksFetched),
				LocalMergedBlocksFetched:  metric(model.ShuffleMergedLocalBlocksFetched),
				RemoteMergedChunksFetched: metric(model.ShuffleMergedRemoteChunksFetched),
				LocalMergedChunksFetched:  metric(model.ShuffleMergedLocalChunksFetched),
				RemoteMergedBytesRead:     metric(model.ShuffleMergedRemoteBytesRead),
				LocalMergedBytesRead:      metric(model.ShuffleMergedLocalBytesRead),
				RemoteMergedReqsDuration:  metric(model.ShuffleMergedRemoteReqsDuration),
			},
		},
		ShuffleWriteMetrics: ShuffleWriteMetricDistributions{
			WriteBytes:   metric(model.ShuffleWriteBytes),
			WriteRecords: metric(model.ShuffleWriteRecords),
			WriteTime:    metric(model.ShuffleWriteNanos),
		},
	}
}

// sortedScan keeps the entries from 0 up, sorts them and scans them.
func sortedScan(vals []int64, idx []int64) Doubles {
	kept := vals[:0:0]
	for _, x := range vals {
		if x >= 0 {
			kept = append(kept, x)
		}
	}
	slices.Sort(kept)
	return scanIndex(kept, idx)
}

// quantilesOf is AppStatusUtils.getQuantilesValue over unsorted values:
// zeros when there are none.
func quantilesOf(vals []float64, quantiles []float64) Doubles {
	out := make(Doubles, len(quantiles))
	if len(vals) == 0 {
		return out
	}
	sorted := slices.Clone(vals)
	sortFloats(sorted)
	for i, idx := range quantileIndexes(quantiles, int64(len(sorted))) {
		out[i] = sorted[max(idx, 0)]
	}
	return out
}

// sortFloats sorts in place as Java sorts doubles: ascending, NaN last.
func sortFloats(f []float64) {
	sort.SliceStable(f, func(i, j int) bool {
		if math.IsNaN(f[j]) {
			return !math.IsNaN(f[i])
		}
		return f[i] < f[j]
	})
}
