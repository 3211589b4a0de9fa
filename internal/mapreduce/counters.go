package mapreduce

import "github.com/clusterlens/clusterlens/internal/model"

// counters accumulates the counters of one task attempt that map to model
// metrics. Counter groups are org.apache.hadoop.mapreduce.FileSystemCounter
// and org.apache.hadoop.mapreduce.TaskCounter (Hadoop 0.21+), their 0.20/1.x
// names FileSystemCounters and org.apache.hadoop.mapred.Task$Counter, and the
// 0.18 display names "File Systems" and "Map-Reduce Framework". Other groups
// (job counters, user counters) are ignored.
type counters struct {
	m            model.TaskMetrics
	materialized int64 // MAP_OUTPUT_MATERIALIZED_BYTES, preferred for shuffle write bytes
	seen         bool
}

// addCounter records one counter by its group and name (or, for 0.18,
// display names). It takes strings or byte slices without allocating.
func addCounter[G, N ~string | ~[]byte](c *counters, group G, name N, v int64) {
	switch string(group) {
	case "org.apache.hadoop.mapreduce.FileSystemCounter", "FileSystemCounters", "File Systems":
		switch string(name) {
		case "HDFS_BYTES_READ", "HDFS bytes read":
			c.set(model.HDFSBytesRead, v)
		case "HDFS_BYTES_WRITTEN", "HDFS bytes written":
			c.set(model.HDFSBytesWritten, v)
		case "FILE_BYTES_READ", "Local bytes read":
			c.set(model.FileBytesRead, v)
		case "FILE_BYTES_WRITTEN", "Local bytes written":
			c.set(model.FileBytesWritten, v)
		}
	case "org.apache.hadoop.mapreduce.TaskCounter", "org.apache.hadoop.mapred.Task$Counter", "Map-Reduce Framework":
		switch string(name) {
		case "MAP_INPUT_RECORDS", "Map input records":
			c.set(model.MapInputRecords, v)
		case "MAP_OUTPUT_RECORDS", "Map output records":
			c.set(model.MapOutputRecords, v)
		case "MAP_OUTPUT_BYTES", "Map output bytes":
			c.set(model.MapOutputBytes, v)
		case "MAP_OUTPUT_MATERIALIZED_BYTES", "Map output materialized bytes":
			c.materialized, c.seen = v, true
		case "REDUCE_INPUT_RECORDS", "Reduce input records":
			c.set(model.ReduceInputRecords, v)
		case "REDUCE_OUTPUT_RECORDS", "Reduce output records":
			c.set(model.ReduceOutputRecords, v)
		case "REDUCE_SHUFFLE_BYTES", "Reduce shuffle bytes":
			c.set(model.ReduceShuffleBytes, v)
		case "SPILLED_RECORDS", "Spilled Records":
			c.set(model.SpilledRecords, v)
		case "CPU_MILLISECONDS", "CPU time spent (ms)":
			c.set(model.CPUMillis, v)
		case "GC_TIME_MILLIS", "GC time elapsed (ms)":
			c.set(model.JVMGCTime, v)
		case "PHYSICAL_MEMORY_BYTES", "Physical memory (bytes) snapshot":
			c.set(model.PhysicalMemoryBytes, v)
		case "VIRTUAL_MEMORY_BYTES", "Virtual memory (bytes) snapshot":
			c.set(model.VirtualMemoryBytes, v)
		case "COMMITTED_HEAP_BYTES", "Total committed heap usage (bytes)":
			c.set(model.CommittedHeapBytes, v)
		}
	}
}

func (c *counters) set(m model.Metric, v int64) {
	c.m[m] = v
	c.seen = true
}

// derive fills the engine-neutral metrics from the MapReduce counters of an
// attempt of the given kind (see the package documentation for the table).
// hasReduces tells whether map output is shuffled (the job has reduces).
func derive(m *model.TaskMetrics, kind model.StageKind, hasReduces bool, materialized int64) {
	m[model.InputBytes] = m[model.HDFSBytesRead]
	m[model.OutputBytes] = m[model.HDFSBytesWritten]
	m[model.ExecutorCPUNanos] = m[model.CPUMillis] * 1_000_000
	switch kind {
	case model.StageMap:
		m[model.InputRecords] = m[model.MapInputRecords]
		if hasReduces {
			m[model.ShuffleWriteRecords] = m[model.MapOutputRecords]
			if materialized > 0 {
				m[model.ShuffleWriteBytes] = materialized
			} else {
				m[model.ShuffleWriteBytes] = m[model.MapOutputBytes]
			}
		} else {
			m[model.OutputRecords] = m[model.MapOutputRecords]
		}
	case model.StageReduce:
		m[model.ShuffleRemoteBytesRead] = m[model.ReduceShuffleBytes]
		m[model.ShuffleRecordsRead] = m[model.ReduceInputRecords]
		m[model.OutputRecords] = m[model.ReduceOutputRecords]
	}
}
