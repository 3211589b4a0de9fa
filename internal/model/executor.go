package model

// Executor is a Spark executor (or the driver in local mode), or a MapReduce
// task tracker / NodeManager container host. Its task totals are computed
// from tasks, not stored.
type Executor struct {
	ID           string
	Host         string
	HostPort     string
	Cores        int32
	Added        int64
	Removed      int64 // 0 while alive
	RemoveReason string
	LogURLs      [][2]string
	Attributes   [][2]string
	Resources    []ExecutorResource
	Profile      int32

	// Storage memory from SparkListenerBlockManagerAdded.
	MaxMemory        int64
	MaxOnHeapMemory  int64
	MaxOffHeapMemory int64
	BlockManagerSeen bool
	// BlockManagerAdded is when the block manager registered, for executors
	// (like a local-mode driver) that no SparkListenerExecutorAdded announced.
	BlockManagerAdded int64

	// Excluded (blacklisted) for the application, and the stages it was excluded in.
	Excluded       bool
	ExcludedStages []int32

	// Peak are the peaks of executor metrics over the executor's life.
	Peak ExecutorMetrics
}

// ExecutorResource is a resource (for example a GPU) an executor offers.
type ExecutorResource struct {
	Name      string
	Addresses []string
}

// Reason is why a task attempt did not succeed, as Spark's TaskEndReason or
// MapReduce's attempt error.
type Reason struct {
	Kind    string // Spark's Reason name (ExceptionFailure, FetchFailed, TaskKilled, ...) or MapReduce status
	Message string // the History Server's errorMessage text
}

// Interner maps strings to small indexes and back. The zero index is "" so a
// zero-valued reference means "none".
type Interner struct {
	index map[string]uint32
	All   []string
}

// NewInterner returns an interner holding "" at index 0.
func NewInterner() *Interner {
	return &Interner{index: map[string]uint32{"": 0}, All: []string{""}}
}

// ID returns s's index, adding it when new.
func (in *Interner) ID(s string) uint32 {
	if id, ok := in.index[s]; ok {
		return id
	}
	id := uint32(len(in.All))
	in.index[s] = id
	in.All = append(in.All, s)
	return id
}

// IDBytes is ID for a byte slice, allocating only for new strings.
func (in *Interner) IDBytes(b []byte) uint32 {
	if id, ok := in.index[string(b)]; ok {
		return id
	}
	return in.ID(string(b))
}
