package model

// TaskStatus is a task attempt's outcome.
type TaskStatus uint8

// Task statuses, as the History Server names them.
const (
	TaskRunning TaskStatus = iota
	TaskSuccess
	TaskFailed
	TaskKilled
	TaskUnknown
)

func (s TaskStatus) String() string {
	return [...]string{"RUNNING", "SUCCESS", "FAILED", "KILLED", "UNKNOWN"}[s]
}

// Locality is where a task ran relative to its data.
type Locality uint8

// Localities, Spark's names (MapReduce maps are NODE_LOCAL, RACK_LOCAL or ANY).
const (
	LocalityUnknown Locality = iota
	ProcessLocal
	NodeLocal
	NoPref
	RackLocal
	AnyLocality
)

var localityNames = [...]string{"", "PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY"}

func (l Locality) String() string {
	if int(l) < len(localityNames) {
		return localityNames[l]
	}
	return ""
}

// ParseLocality maps Spark's locality name to a Locality.
func ParseLocality(s string) Locality {
	for i, n := range localityNames {
		if i > 0 && n == s {
			return Locality(i)
		}
	}
	return LocalityUnknown
}

// Task is one task attempt. It is a flat struct of numbers (88 bytes); its
// metrics are packed in the stage's Arena and its failure reason, if any, in
// the application's reason table.
type Task struct {
	ID            int64 // Spark task id; MapReduce: attempt sequence number in the job
	Launch        int64 // epoch ms
	Finish        int64 // epoch ms, 0 while running
	GettingResult int64 // epoch ms the driver started fetching the result, 0 if never
	Index         int32 // task index within the stage (MapReduce: task number)
	Partition     int32 // partition id, -1 when the log does not say
	Attempt       int32
	Executor      uint32 // index into App.Executors
	Host          uint32 // index into App.Hosts
	Reason        uint32 // index into Reasons, 0 for none
	metrics       uint32 // offset into Stage.Metrics
	Status        TaskStatus
	Locality      Locality
	Speculative   bool
	// HasMetrics is set when the log carried the attempt's metrics (a
	// TaskEnd with "Task Metrics"); failed attempts of old logs have none.
	HasMetrics bool
	// Rack is the index into App.Hosts of the task's rack name (MapReduce), 0 when unknown.
	Rack uint32
}

// Duration is Finish-Launch for finished attempts, 0 otherwise.
func (t *Task) Duration() int64 {
	if t.Finish > 0 && t.Finish >= t.Launch {
		return t.Finish - t.Launch
	}
	return 0
}

// Done reports whether the attempt finished (in any state).
func (t *Task) Done() bool { return t.Status != TaskRunning }
