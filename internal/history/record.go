// Package history is the run history: every analyzed application
// remembered compactly, so that models needing more than one run (PARC's
// per-node models, completion-time prediction, recurring-job trends, a node
// compared with its own past) can be fitted from it.
//
// A Run is one application attempt: its identity, cluster facts, totals and
// findings (one row); its stages with task-duration quantiles and a
// signature (one row each); and, per stage and host, the count and moments
// of its successful task durations (HostStage, one row each: what PARC's
// per-node Gaussian models need, Gupta et al. eq. 1–2). Recurring
// applications share a JobKey (recurring.go). Store is the one interface,
// implemented by history/sqlite and history/clickhouse and checked by the
// conformance suite in history/historytest; docs/HISTORY.md describes the
// schema.
package history

import "github.com/clusterlens/clusterlens/internal/finding"

// SchemaVersion is the version of the run-history schema this build
// writes. A store written by a newer version is refused (ErrNewerSchema);
// an older one is migrated forward on open.
const SchemaVersion = 3

// Status is how an application ended, as the run history records it.
type Status string

// Statuses.
const (
	// StatusSucceeded: the application (or job) ended and no job failed.
	StatusSucceeded Status = "succeeded"
	// StatusFailed: it ended with a failed job (Spark) or a failed or
	// killed job (MapReduce).
	StatusFailed Status = "failed"
	// StatusRunning: the log is in progress.
	StatusRunning Status = "running"
	// StatusIncomplete: no end record, and the log does not say it is in
	// progress (crashed, truncated or abandoned).
	StatusIncomplete Status = "incomplete"
)

// Run is one application attempt.
type Run struct {
	// Key identifies the run across logs and passes:
	// engine/application id/attempt.
	Key string `json:"key"`
	// Log is the path (or URL) of the log the run was read from.
	Log string `json:"log"`

	ID       string `json:"id"`
	Attempt  string `json:"attempt,omitempty"`
	Name     string `json:"name"`
	User     string `json:"user"`
	Engine   string `json:"engine"`
	Version  string `json:"version,omitempty"`
	Platform string `json:"platform,omitempty"`
	Status   Status `json:"status"`
	// Start and End are epoch milliseconds (End 0 while running);
	// LastUpdated is the log's modification time.
	Start       int64 `json:"start"`
	End         int64 `json:"end,omitempty"`
	DurationMs  int64 `json:"durationMs"`
	LastUpdated int64 `json:"lastUpdated"`

	Cluster Cluster `json:"cluster"`
	Totals  Totals  `json:"totals"`

	// NameKey is the name with dates, times, ids and long numbers
	// normalized away (NormalizeName); JobKey groups the runs of one
	// recurring job (JobKey).
	NameKey string `json:"nameKey"`
	JobKey  string `json:"jobKey"`
	// DAG is the sorted set of the run's distinct stage signatures.
	DAG []string `json:"dag,omitempty"`

	// Worst is the highest severity among the findings.
	Worst    finding.Severity `json:"worstSeverity"`
	Findings []Finding        `json:"findings"`

	Stages []Stage     `json:"stages,omitempty"`
	Hosts  []HostStage `json:"hostStages,omitempty"`
	// HostFacts are what the log says of each host that ran tasks, by
	// host name (read with Detail; schema version 2).
	HostFacts []HostFact `json:"hostFacts,omitempty"`

	// What explaining a run against its usual runs needs beyond the
	// stages (read with Detail; schema version 3; zero for runs indexed
	// before it until their logs are read again).
	//
	// DriverMs is the wall-clock time no stage was running (the driver's
	// own work, and waiting before the first stage); ExecutorWaitMs is the
	// part of it with no executor alive (waiting for executors; 0 when
	// the log names none).
	DriverMs       int64 `json:"driverMs,omitempty"`
	ExecutorWaitMs int64 `json:"executorWaitMs,omitempty"`
	// Config is the run's configuration: its spark.* and mapreduce.*
	// settings (key, value), sorted by key, without those that name the
	// run itself (ConfigOf).
	Config [][2]string `json:"config,omitempty"`
	// Queries are the run's Spark SQL executions with their plans' shapes.
	Queries []Query `json:"queries,omitempty"`
}

// Query is one SQL execution of a run as the history keeps it: enough to
// tell whether a recurring job's plan changed (query.ComparePlans) and
// which stages the change touched.
type Query struct {
	ID          int64  `json:"id"`
	Description string `json:"description"`
	WallMs      int64  `json:"wallMs"`
	// Stages are the ids of the stages its jobs ran.
	Stages []int32 `json:"stages"`
	// Plan is its operators' names in plan order (query.Operator.Name).
	Plan []string `json:"plan"`
}

// HostFact is what a run's log says of one of its hosts: what node models
// group hardware classes by and what a person checks a class against.
type HostFact struct {
	Host string `json:"host"`
	// Rack is the host's rack (MapReduce histories, Rumen traces), "" when
	// the log does not say.
	Rack string `json:"rack,omitempty"`
	// Executors is how many Spark executors ran on the host, Cores the
	// most executor cores alive there at once (0 for MapReduce).
	Executors int `json:"executors,omitempty"`
	Cores     int `json:"cores,omitempty"`
	// MemoryMB is the memory of one executor or container (the run's
	// setting, Cluster.ExecutorMemoryMB), 0 when the log does not say.
	MemoryMB int64 `json:"memoryMB,omitempty"`
	// InstanceType is the node type the platform's properties name for the
	// host: the driver's type for the driver's host, else the workers'.
	InstanceType string `json:"instanceType,omitempty"`
}

// Cluster is what the log says of the cluster the run had.
type Cluster struct {
	// Hosts ran at least one task attempt.
	Hosts int `json:"hosts"`
	// Executors (Spark) or task containers' hosts (MapReduce) seen.
	Executors int `json:"executors"`
	// Cores is the largest number of executor cores alive at once.
	Cores int `json:"cores"`
	// ExecutorMemoryMB is spark.executor.memory (or MapReduce's map
	// container memory), 0 when the log does not say.
	ExecutorMemoryMB int64 `json:"executorMemoryMB,omitempty"`
	// InstanceTypes are the node types the platform's properties name,
	// comma-joined, the workers' first (model.Platform.Cluster).
	InstanceTypes string `json:"instanceTypes,omitempty"`
}

// Totals sum the run's work over its finished task attempts.
type Totals struct {
	Jobs              int   `json:"jobs"`
	FailedJobs        int   `json:"failedJobs"`
	Stages            int   `json:"stages"`
	FailedStages      int   `json:"failedStages"`
	Tasks             int   `json:"tasks"`
	FailedTasks       int   `json:"failedTasks"`
	InputBytes        int64 `json:"inputBytes"`
	OutputBytes       int64 `json:"outputBytes"`
	ShuffleReadBytes  int64 `json:"shuffleReadBytes"`
	ShuffleWriteBytes int64 `json:"shuffleWriteBytes"`
	SpillBytes        int64 `json:"spillBytes"`
	TaskTimeMs        int64 `json:"taskTimeMs"`
	CPUTimeMs         int64 `json:"cpuTimeMs"`
	GCTimeMs          int64 `json:"gcTimeMs"`
}

// Finding is a diagnosis as the history keeps it: which detector, how bad,
// about what, and its one-sentence summary.
type Finding struct {
	Detector string           `json:"detector"`
	Severity finding.Severity `json:"severity"`
	Scope    string           `json:"scope"`
	Title    string           `json:"title"`
	Summary  string           `json:"summary"`
}

// Stage is one stage attempt of a run.
type Stage struct {
	ID      int32  `json:"id"`
	Attempt int32  `json:"attempt"`
	Name    string `json:"name"`
	// Signature identifies the stage across runs of a recurring job
	// (StageSignature).
	Signature string `json:"signature"`
	// Class is the resource the stage's tasks mostly used (Classify).
	Class      Class  `json:"class"`
	Status     string `json:"status"`
	Tasks      int    `json:"tasks"`
	Failed     int    `json:"failedTasks"`
	DurationMs int64  `json:"durationMs"`
	// Quantiles are min, 25th percentile, median, 75th percentile and max
	// of the successful task durations in ms, as the History Server
	// computes them; zero without a successful task.
	Quantiles         [5]float64 `json:"taskDurationQuantilesMs"`
	InputBytes        int64      `json:"inputBytes"`
	OutputBytes       int64      `json:"outputBytes"`
	ShuffleReadBytes  int64      `json:"shuffleReadBytes"`
	ShuffleWriteBytes int64      `json:"shuffleWriteBytes"`
	InputRecords      int64      `json:"inputRecords"`
	OutputRecords     int64      `json:"outputRecords"`
	SpillBytes        int64      `json:"spillBytes"`
	RunTimeMs         int64      `json:"runTimeMs"`
	CPUTimeMs         int64      `json:"cpuTimeMs"`
	GCTimeMs          int64      `json:"gcTimeMs"`

	// Times is how the stage used its slots (read with Detail; schema
	// version 3).
	Times StageTimes `json:"times"`
}

// StageTimes is how a stage attempt spent its wall-clock time and its
// executors' cores, the terms a run's time is explained in: its wall time
// W = (task time + failed time + WaitMs + tail) / slots, with slots the
// executor cores alive on average (SlotMs / W).
type StageTimes struct {
	// SubmitMs and CompleteMs are the stage's submission and completion
	// (epoch ms; 0 when the log does not say).
	SubmitMs   int64 `json:"submitMs"`
	CompleteMs int64 `json:"completeMs"`
	// SlotMs is the executor-core time alive during the stage (Σ cores ×
	// time; for MapReduce and logs without executor cores, the most
	// attempts of the application seen running at once × time).
	SlotMs int64 `json:"slotMs"`
	// WaitMs is the slot time left idle (no attempt of any stage on the
	// core) while some of the stage's tasks had not been launched yet (the
	// scheduler, a lack of executors, or tasks launched as their inputs
	// arrive; not the stage's tail).
	WaitMs int64 `json:"waitMs"`
	// FailedMs sums the durations of the stage's failed and killed
	// attempts.
	FailedMs int64 `json:"failedMs"`
	// TaskBytesMedian is the median over its successful tasks of the bytes
	// each read and wrote (HostStage.Bytes' measure).
	TaskBytesMedian int64 `json:"taskBytesMedian"`
	// Last is the successful attempt that finished last: the one the
	// stage's end waited for.
	Last LastTask `json:"last"`
}

// LastTask is the attempt a stage finished with: where it ran, how long,
// on how many bytes, its garbage collection, and how long the failed
// attempts of the same task ran before it.
type LastTask struct {
	Host    string `json:"host,omitempty"`
	Ms      int64  `json:"ms"`
	Bytes   int64  `json:"bytes"`
	GCMs    int64  `json:"gcMs"`
	RetryMs int64  `json:"retryMs"`
}

// HostStage is the successful task attempts of one stage attempt on one
// host: their count and the first two moments of their durations and of the
// durations' logarithms, from which a per-node Gaussian (PARC, Gupta et al.
// eq. 1–2) or log-normal model is fitted without the tasks themselves.
type HostStage struct {
	Stage   int32  `json:"stage"`
	Attempt int32  `json:"attempt"`
	Host    string `json:"host"`
	Tasks   int    `json:"tasks"`
	// SumMs and SumSqMs are Σd and Σd² of the durations d in ms; SumLog
	// and SumSqLog are Σ ln d and Σ (ln d)² (durations under 1 ms count
	// as 1 ms).
	SumMs    float64 `json:"sumMs"`
	SumSqMs  float64 `json:"sumSqMs"`
	SumLog   float64 `json:"sumLog"`
	SumSqLog float64 `json:"sumSqLog"`
	MinMs    int64   `json:"minMs"`
	MaxMs    int64   `json:"maxMs"`
	// Bytes is the data the attempts read and wrote (input, shuffle read,
	// output, shuffle write).
	Bytes int64 `json:"bytes"`
}

// Mean is the host's mean task duration in ms.
func (h *HostStage) Mean() float64 {
	if h.Tasks == 0 {
		return 0
	}
	return h.SumMs / float64(h.Tasks)
}
