// Package mapreduce decodes Hadoop MapReduce job histories into the model,
// streaming, one record in memory at a time:
//
//   - ReadJhist: .jhist files of Hadoop 0.23 to 3.x
//     (org.apache.hadoop.mapreduce.jobhistory.EventWriter / EventReader,
//     schema Events.avpr), in the Avro-JSON form, Hadoop 3's Avro-Binary
//     form, or an Avro object container file;
//   - ReadLegacy: JobTracker histories of Hadoop 0.18 to 1.x
//     (org.apache.hadoop.mapred.JobHistory), plain or concatenated with
//     Rumen's "!!FILE=" separators;
//   - ReadRumen: Rumen job traces (org.apache.hadoop.tools.rumen.LoggedJob);
//   - ReadConf and ApplyConf: the job configuration XML beside a history.
//
// # Model
//
// One model.App per job: ID is the job id, Engine MapReduce, Start the
// submit time (the launch time, then the first task start, when the history
// lacks it), End the finish time once the job finished, failed or was
// killed (Complete). Version is the history format: "Avro-Json",
// "Avro-Binary", "Avro-Container", the legacy Meta VERSION ("1"; "" for
// 0.18), "" for Rumen. The App has one Job (ID 0) whose Properties hold
// "queue", "priority" and "launchTime" when known. Stages have fixed ids by
// kind: map 0, reduce 1, setup 2, cleanup 3, listed in execution order
// (setup, map, reduce, cleanup). The map stage always exists, reduce when
// declared or run, setup and cleanup when attempts ran. NumTasks is the
// declared count (totalMaps, totalReduces) or the number of distinct tasks.
//
// Every task attempt is one model.Task: ID is its order of first
// appearance in the job, Index and Partition the task number, Attempt the
// attempt number, Launch and Finish its times, Status from the event type
// or TASK_STATUS (SUCCESS/SUCCEEDED, FAILED, KILLED; RUNNING while no end
// was logged). Host is the attempt's host (hostname, HOSTNAME without its
// rack, or Rumen's hostName; for an attempt that never ended, the host of
// the tracker that started it), Rack its rack ("/default-rack"), both
// interned in App.Hosts. Executors are one per host, ID and Host the host
// name; attempts with no known host share a last executor with an empty
// name. Failed and killed attempts carry a model.Reason with Kind "FAILED"
// or "KILLED" and the logged error. Locality is the history's own
// (TaskAttemptStarted.locality: NODE_LOCAL, RACK_LOCAL, OFF_SWITCH → ANY),
// else for maps it is derived from the task's split locations: NODE_LOCAL
// when the attempt's host holds a split, RACK_LOCAL when its rack does, ANY
// when every split's rack is known and none matches; unknown otherwise.
// Speculative is set for TaskAttemptStarted.avataar SPECULATIVE.
//
// # Metrics
//
// Counters of groups org.apache.hadoop.mapreduce.FileSystemCounter and
// TaskCounter (and their 0.20 names FileSystemCounters and
// org.apache.hadoop.mapred.Task$Counter, and the 0.18 display names) map
// to model metrics:
//
//	HDFS_BYTES_READ        HDFSBytesRead, InputBytes
//	HDFS_BYTES_WRITTEN     HDFSBytesWritten, OutputBytes
//	FILE_BYTES_READ        FileBytesRead
//	FILE_BYTES_WRITTEN     FileBytesWritten
//	MAP_INPUT_RECORDS      MapInputRecords, InputRecords (maps)
//	MAP_OUTPUT_RECORDS     MapOutputRecords; ShuffleWriteRecords (maps of jobs with reduces), else OutputRecords
//	MAP_OUTPUT_BYTES       MapOutputBytes; ShuffleWriteBytes (maps of jobs with reduces) unless
//	MAP_OUTPUT_MATERIALIZED_BYTES, the bytes really written for the shuffle, is logged
//	REDUCE_INPUT_RECORDS   ReduceInputRecords, ShuffleRecordsRead (reduces)
//	REDUCE_OUTPUT_RECORDS  ReduceOutputRecords, OutputRecords (reduces)
//	REDUCE_SHUFFLE_BYTES   ReduceShuffleBytes, ShuffleRemoteBytesRead (reduces)
//	SPILLED_RECORDS        SpilledRecords
//	CPU_MILLISECONDS       CPUMillis, ExecutorCPUNanos (×10⁶)
//	GC_TIME_MILLIS         JVMGCTime
//	PHYSICAL_MEMORY_BYTES  PhysicalMemoryBytes
//	VIRTUAL_MEMORY_BYTES   VirtualMemoryBytes
//	COMMITTED_HEAP_BYTES   CommittedHeapBytes
//
// ExecutorRunTime is Finish − Launch. MapPhaseFinish is mapFinishTime
// (maps), ShufflePhaseFinish and SortPhaseFinish are shuffleFinishTime and
// sortFinishTime (SHUFFLE_FINISHED, SORT_FINISHED; Rumen shuffleFinished,
// sortFinished). MemoryBytesSpilled, DiskBytesSpilled and the other Spark
// metrics stay 0. Rumen's attempt fields (hdfsBytesRead, mapInputRecords,
// resourceUsageMetrics.cumulativeCpuUsage, ...) map the same way; its -1
// means unknown and becomes 0.
//
// # Input quality
//
// A line or record that cannot be read is skipped and counted in
// App.Quality (BadLines, with file and line in Issues); unknown event
// types are counted in UnknownEvents; an input that ends inside a record
// sets Truncated and still gives what came before. Errors are returned
// only for input that is not the expected format at all (they match
// ErrFormat and name the file, the position and what was expected) and
// for read failures. Compressed files are the caller's to decompress.
package mapreduce
