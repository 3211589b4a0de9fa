package mapreduce

import (
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
)

// counterSpec is one counter the writer logs: its group, name and
// display name as Hadoop 2.x/3.x prints them, and the model metric it carries.
type counterSpec struct {
	name, display string
	metric        model.Metric
	kinds         uint8 // bit set of stage kinds that always log it (1<<kind)
}

const (
	mapBit    = 1 << model.StageMap
	reduceBit = 1 << model.StageReduce
	bothBits  = mapBit | reduceBit
)

// materializedBytes stands for MAP_OUTPUT_MATERIALIZED_BYTES, which carries
// ShuffleWriteBytes of maps in jobs with reduces.
const materializedBytes = model.NumMetrics

var fileSystemCounters = []counterSpec{
	{"FILE_BYTES_READ", "FILE: Number of bytes read", model.FileBytesRead, bothBits},
	{"FILE_BYTES_WRITTEN", "FILE: Number of bytes written", model.FileBytesWritten, bothBits},
	{"HDFS_BYTES_READ", "HDFS: Number of bytes read", model.HDFSBytesRead, bothBits},
	{"HDFS_BYTES_WRITTEN", "HDFS: Number of bytes written", model.HDFSBytesWritten, bothBits},
}

var taskCounters = []counterSpec{
	{"MAP_INPUT_RECORDS", "Map input records", model.MapInputRecords, mapBit},
	{"MAP_OUTPUT_RECORDS", "Map output records", model.MapOutputRecords, mapBit},
	{"MAP_OUTPUT_BYTES", "Map output bytes", model.MapOutputBytes, mapBit},
	{"MAP_OUTPUT_MATERIALIZED_BYTES", "Map output materialized bytes", materializedBytes, mapBit},
	{"REDUCE_SHUFFLE_BYTES", "Reduce shuffle bytes", model.ReduceShuffleBytes, reduceBit},
	{"REDUCE_INPUT_RECORDS", "Reduce input records", model.ReduceInputRecords, reduceBit},
	{"REDUCE_OUTPUT_RECORDS", "Reduce output records", model.ReduceOutputRecords, reduceBit},
	{"SPILLED_RECORDS", "Spilled Records", model.SpilledRecords, bothBits},
	{"GC_TIME_MILLIS", "GC time elapsed (ms)", model.JVMGCTime, bothBits},
	{"CPU_MILLISECONDS", "CPU time spent (ms)", model.CPUMillis, bothBits},
	{"PHYSICAL_MEMORY_BYTES", "Physical memory (bytes) snapshot", model.PhysicalMemoryBytes, bothBits},
	{"VIRTUAL_MEMORY_BYTES", "Virtual memory (bytes) snapshot", model.VirtualMemoryBytes, bothBits},
	{"COMMITTED_HEAP_BYTES", "Total committed heap usage (bytes)", model.CommittedHeapBytes, bothBits},
}

// fileSystemCounterFields and taskCounterFields are each counter's
// ready-made opening, up to its value: {"name":"...","displayName":"...","value":
var (
	fileSystemCounterFields = counterFields(fileSystemCounters)
	taskCounterFields       = counterFields(taskCounters)
)

// counterFields writes the opening of each counter of specs.
func counterFields(specs []counterSpec) []string {
	out := make([]string, len(specs))
	for i, c := range specs {
		j := jw{b: []byte("{")}
		j.str("name", c.name, true)
		j.str("displayName", c.display, false)
		j.key("value", false)
		out[i] = string(j.b)
	}
	return out
}

// counterValue is the value a counter carries for an attempt of kind k.
func (h *histWriter) counterValue(c *counterSpec, k model.StageKind, m *model.TaskMetrics) int64 {
	if c.metric == materializedBytes {
		if k == model.StageMap && h.reduces {
			return m[model.ShuffleWriteBytes]
		}
		return 0
	}
	return m[c.metric]
}

// hasCounters reports whether any metric a counter carries is set.
func hasCounters(m *model.TaskMetrics) bool {
	for _, g := range [][]counterSpec{fileSystemCounters, taskCounters} {
		for _, c := range g {
			if c.metric < model.NumMetrics && m[c.metric] != 0 {
				return true
			}
		}
	}
	return m[model.ShuffleWriteBytes] != 0
}

// counters writes a JhCounters record: the counters Hadoop always logs for
// the kind, and any other counter whose metric is set.
func (h *histWriter) counters(k model.StageKind, m *model.TaskMetrics) {
	j := &h.j
	j.raw(`{"name":"COUNTERS","groups":[`)
	for gi, g := range [...]struct {
		name, display string
		specs         []counterSpec
		fields        []string
	}{
		{"org.apache.hadoop.mapreduce.FileSystemCounter", "File System Counters", fileSystemCounters, fileSystemCounterFields},
		{"org.apache.hadoop.mapreduce.TaskCounter", "Map-Reduce Framework", taskCounters, taskCounterFields},
	} {
		if gi > 0 {
			j.raw(",")
		}
		j.raw(`{"name":"`)
		j.raw(g.name)
		j.raw(`","displayName":"`)
		j.raw(g.display)
		j.raw(`","counts":[`)
		first := true
		for ci := range g.specs {
			c := &g.specs[ci]
			v := h.counterValue(c, k, m)
			if v == 0 && c.kinds&(1<<k) == 0 {
				continue
			}
			if c.metric == materializedBytes && (k != model.StageMap || !h.reduces) {
				continue
			}
			if !first {
				j.raw(",")
			}
			first = false
			j.raw(g.fields[ci]) // {"name":...,"displayName":...,"value":
			j.b = strconv.AppendInt(j.b, v, 10)
			j.raw("}")
		}
		j.raw("]}")
	}
	j.raw("]}")
}
