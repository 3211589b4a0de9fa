package model

// StageStatus is a stage attempt's state as the History Server names it.
type StageStatus uint8

// Stage statuses.
const (
	StagePending StageStatus = iota
	StageActive
	StageComplete
	StageFailed
	StageSkipped
)

func (s StageStatus) String() string {
	return [...]string{"PENDING", "ACTIVE", "COMPLETE", "FAILED", "SKIPPED"}[s]
}

// Kind tells map from reduce tasks for MapReduce; Spark stages are StageSpark.
type StageKind uint8

// Stage kinds.
const (
	StageSpark StageKind = iota
	StageMap
	StageReduce
	StageSetup
	StageCleanup
)

func (k StageKind) String() string {
	return [...]string{"spark", "map", "reduce", "setup", "cleanup"}[k]
}

// Stage is one attempt of a Spark stage, or the map (or reduce) phase of a
// MapReduce job. Its task attempts live in Tasks; their metrics in Metrics.
type Stage struct {
	ID         int32
	Attempt    int32
	Kind       StageKind
	Name       string
	Details    string
	NumTasks   int32 // as declared at submission
	ParentIDs  []int32
	RDDIDs     []int32
	JobIDs     []int32
	Pool       string
	Profile    int32 // resource profile id
	Submitted  int64
	Completed  int64
	Status     StageStatus
	Failure    string
	Properties [][2]string

	// Accumulables are the stage's named accumulators at completion.
	Accumulables []Accumulable
	// PeakExecutor are the peaks of executor metrics seen during the stage.
	PeakExecutor ExecutorMetrics
	// ExecutorPeaks are per-executor peaks during the stage (StageExecutorMetrics events
	// and task-end executor metrics), keyed by executor index.
	ExecutorPeaks map[uint32]*ExecutorMetrics
	// ExcludedExecutors are executors excluded for this stage (by index).
	ExcludedExecutors []uint32
	// ShufflePushEnabled and ShuffleMergers are from push-based shuffle (Spark 3.2+).
	ShufflePushEnabled bool
	ShuffleMergers     int32

	Tasks   []Task
	Metrics Arena
	// TaskAccumulables holds user accumulator updates of tasks, keyed by task id (rare).
	TaskAccumulables map[int64][]Accumulable
	// TaskSQLUpdates are tasks' SQL metric updates by task id, for the
	// encoder to write (the simulator fills them); the decoder folds them
	// into their execution's SQLExecution.Metrics instead of keeping them.
	TaskSQLUpdates map[int64][]SQLUpdate
}

// Accumulable is a named accumulator's value (and last update for tasks).
type Accumulable struct {
	ID     int64
	Name   string
	Update string
	Value  string
}

// TaskMetrics unpacks the metrics of s.Tasks[i].
func (s *Stage) TaskMetrics(i int, m *TaskMetrics) {
	s.Metrics.Get(s.Tasks[i].metrics, m)
}

// AddTask appends t with metrics m and returns its index.
func (s *Stage) AddTask(t Task, m *TaskMetrics) int {
	t.metrics = s.Metrics.Add(m)
	s.Tasks = append(s.Tasks, t)
	return len(s.Tasks) - 1
}

// SetTaskMetrics replaces the metrics of s.Tasks[i] (the old bytes stay in the arena).
func (s *Stage) SetTaskMetrics(i int, m *TaskMetrics) {
	s.Tasks[i].metrics = s.Metrics.Add(m)
}

// Key identifies a stage attempt.
type StageKey struct {
	ID      int32
	Attempt int32
}

// Key returns the stage attempt's key.
func (s *Stage) Key() StageKey { return StageKey{s.ID, s.Attempt} }
