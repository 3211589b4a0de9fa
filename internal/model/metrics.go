package model

import (
	"encoding/binary"
	"math/bits"
)

// Metric names one numeric task metric. Spark and MapReduce metrics share one
// space so analyses can ask for "input bytes" without knowing the engine.
type Metric uint8

// Task metrics. Times are milliseconds unless the name says Nanos; sizes are
// bytes. The Spark names follow the History Server's v1 TaskMetrics.
const (
	ExecutorDeserializeTime Metric = iota
	ExecutorDeserializeCPUNanos
	ExecutorRunTime
	ExecutorCPUNanos
	ResultSize
	JVMGCTime
	ResultSerializationTime
	MemoryBytesSpilled
	DiskBytesSpilled
	PeakExecutionMemory
	InputBytes
	InputRecords
	OutputBytes
	OutputRecords
	ShuffleRemoteBlocksFetched
	ShuffleLocalBlocksFetched
	ShuffleFetchWaitTime
	ShuffleRemoteBytesRead
	ShuffleRemoteBytesReadToDisk
	ShuffleLocalBytesRead
	ShuffleRecordsRead
	ShuffleRemoteReqsDuration
	ShuffleCorruptMergedBlockChunks
	ShuffleMergedFetchFallbackCount
	ShuffleMergedRemoteBlocksFetched
	ShuffleMergedLocalBlocksFetched
	ShuffleMergedRemoteChunksFetched
	ShuffleMergedLocalChunksFetched
	ShuffleMergedRemoteBytesRead
	ShuffleMergedLocalBytesRead
	ShuffleMergedRemoteReqsDuration
	ShuffleWriteBytes
	ShuffleWriteNanos
	ShuffleWriteRecords

	// MapReduce counters (FileSystemCounter, TaskCounter) and phase ends.
	HDFSBytesRead
	HDFSBytesWritten
	FileBytesRead
	FileBytesWritten
	MapInputRecords
	MapOutputRecords
	MapOutputBytes
	ReduceInputRecords
	ReduceOutputRecords
	ReduceShuffleBytes
	SpilledRecords
	CPUMillis
	PhysicalMemoryBytes
	VirtualMemoryBytes
	CommittedHeapBytes
	MapPhaseFinish     // epoch ms the map function ended (map attempts)
	ShufflePhaseFinish // epoch ms the shuffle ended (reduce attempts)
	SortPhaseFinish    // epoch ms the merge/sort ended (reduce attempts)

	NumMetrics
)

var metricNames = [NumMetrics]string{
	"executorDeserializeTime", "executorDeserializeCpuTime", "executorRunTime", "executorCpuTime",
	"resultSize", "jvmGcTime", "resultSerializationTime", "memoryBytesSpilled", "diskBytesSpilled",
	"peakExecutionMemory", "inputBytes", "inputRecords", "outputBytes", "outputRecords",
	"shuffleRemoteBlocksFetched", "shuffleLocalBlocksFetched", "shuffleFetchWaitTime",
	"shuffleRemoteBytesRead", "shuffleRemoteBytesReadToDisk", "shuffleLocalBytesRead",
	"shuffleRecordsRead", "shuffleRemoteReqsDuration", "shuffleCorruptMergedBlockChunks",
	"shuffleMergedFetchFallbackCount", "shuffleMergedRemoteBlocksFetched",
	"shuffleMergedLocalBlocksFetched", "shuffleMergedRemoteChunksFetched",
	"shuffleMergedLocalChunksFetched", "shuffleMergedRemoteBytesRead", "shuffleMergedLocalBytesRead",
	"shuffleMergedRemoteReqsDuration", "shuffleWriteBytes", "shuffleWriteTime", "shuffleWriteRecords",
	"hdfsBytesRead", "hdfsBytesWritten", "fileBytesRead", "fileBytesWritten", "mapInputRecords",
	"mapOutputRecords", "mapOutputBytes", "reduceInputRecords", "reduceOutputRecords",
	"reduceShuffleBytes", "spilledRecords", "cpuMillis", "physicalMemoryBytes", "virtualMemoryBytes",
	"committedHeapBytes", "mapPhaseFinish", "shufflePhaseFinish", "sortPhaseFinish",
}

// String returns the metric's camel-case name, as used in JSON output.
func (m Metric) String() string {
	if m < NumMetrics {
		return metricNames[m]
	}
	return "unknown"
}

// TaskMetrics is the unpacked form of one task attempt's metrics.
type TaskMetrics [NumMetrics]int64

// ShuffleReadBytes is remote plus local shuffle bytes read, as Spark reports it.
func (m *TaskMetrics) ShuffleReadBytes() int64 {
	return m[ShuffleRemoteBytesRead] + m[ShuffleLocalBytesRead]
}

// Arena stores packed TaskMetrics back to back: a uvarint bitmap of the
// non-zero metrics followed by their zig-zag varints. Typical Spark tasks
// pack into 40–70 bytes instead of the 416 of an unpacked TaskMetrics.
type Arena struct {
	buf []byte
}

// Add packs m and returns its offset.
func (a *Arena) Add(m *TaskMetrics) uint32 {
	off := uint32(len(a.buf))
	var mask uint64
	for i, v := range m {
		if v != 0 {
			mask |= 1 << uint(i)
		}
	}
	a.buf = binary.AppendUvarint(a.buf, mask)
	for _, v := range m {
		if v != 0 {
			a.buf = binary.AppendVarint(a.buf, v)
		}
	}
	return off
}

// Get unpacks the metrics stored at off into m. It visits only the bits
// set in the bitmap and decodes one- and two-byte varints inline: the
// analyses unpack every attempt's metrics several times (BenchmarkArenaGet;
// docs/PERFORMANCE.md).
func (a *Arena) Get(off uint32, m *TaskMetrics) {
	*m = TaskMetrics{}
	if int(off) >= len(a.buf) {
		return
	}
	b := a.buf[off:]
	mask, n := binary.Uvarint(b)
	if n <= 0 {
		return
	}
	b = b[n:]
	for mask &= 1<<NumMetrics - 1; mask != 0; mask &= mask - 1 {
		var x uint64
		switch {
		case len(b) > 0 && b[0] < 0x80:
			x, b = uint64(b[0]), b[1:]
		case len(b) > 1 && b[1] < 0x80:
			x, b = uint64(b[0]&0x7f)|uint64(b[1])<<7, b[2:]
		default:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return // truncated or overlong
			}
			x, b = v, b[n:]
		}
		m[bits.TrailingZeros64(mask)] = int64(x>>1) ^ -int64(x&1) // zig-zag
	}
}

// Len is the number of bytes the arena holds.
func (a *Arena) Len() int { return len(a.buf) }

// Compact drops spare capacity once reading is done.
func (a *Arena) Compact() {
	if cap(a.buf) > len(a.buf)+len(a.buf)/8 {
		a.buf = append([]byte(nil), a.buf...)
	}
}
