package dataflow

import "github.com/clusterlens/clusterlens/internal/model"

// Pool is a task pool: the set of task attempts of one kind that vertex
// instances live in (HiTune §4, "Task Pool").
type Pool uint8

// Task pools.
const (
	PoolNone    Pool = iota
	PoolSpark        // Spark task attempts
	PoolMap          // MapReduce map attempts
	PoolReduce       // MapReduce reduce attempts
	PoolSetup        // MapReduce job-setup attempts
	PoolCleanup      // MapReduce job-cleanup attempts
	numPools
)

var poolNames = [numPools]string{"", "spark", "map", "reduce", "setup", "cleanup"}

// String returns the pool's name as written in specifications.
func (p Pool) String() string {
	if p < numPools {
		return poolNames[p]
	}
	return ""
}

// MarshalText writes the pool's name.
func (p Pool) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// ParsePool maps a specification's task pool name to a Pool (PoolNone when unknown).
func ParsePool(s string) Pool {
	for i := PoolSpark; i < numPools; i++ {
		if poolNames[i] == s {
			return i
		}
	}
	return PoolNone
}

// PoolOf is the task pool of a stage's attempts.
func PoolOf(k model.StageKind) Pool {
	switch k {
	case model.StageMap:
		return PoolMap
	case model.StageReduce:
		return PoolReduce
	case model.StageSetup:
		return PoolSetup
	case model.StageCleanup:
		return PoolCleanup
	}
	return PoolSpark
}

// Phase is a recorded phase of a task attempt: the part of an attempt that
// logs let us time. A specification's Vertex Mapping names one per vertex
// (HiTune §4, "Phase").
type Phase uint8

// Recorded phases. Spark's follow the History Server's task timeline;
// MapReduce's follow the job history's phase ends.
const (
	PhaseNone       Phase = iota
	SchedulerDelay        // Spark: launch overhead not accounted for by the executor
	Deserialize           // Spark: executor deserialization of the task
	FetchWait             // Spark: blocked on shuffle fetches
	Compute               // Spark: the rest of the run time
	ShuffleWrite          // Spark: writing shuffle output
	ResultSerialize       // Spark: serializing the task result
	GettingResult         // Spark: the driver fetching the result
	Map                   // MapReduce map attempt: start to the map phase's end
	Spill                 // MapReduce map attempt: sorting and spilling the output
	MapMerge              // MapReduce map attempt: merging spill files
	Shuffle               // MapReduce reduce attempt: copying map outputs
	Sort                  // MapReduce reduce attempt: the final merge (merge/sort)
	Reduce                // MapReduce reduce attempt: the reduce function and output
	Setup                 // MapReduce job-setup attempt
	Cleanup               // MapReduce job-cleanup attempt
	numPhases
)

var phaseNames = [numPhases]string{"", "scheduler-delay", "deserialize", "shuffle-fetch-wait", "compute",
	"shuffle-write", "result-serialize", "getting-result", "map", "spill", "merge", "shuffle", "sort",
	"reduce", "setup", "cleanup"}

// String returns the phase's name as written in specifications.
func (p Phase) String() string {
	if p < numPhases {
		return phaseNames[p]
	}
	return ""
}

// MarshalText writes the phase's name.
func (p Phase) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// ParsePhase maps a specification's phase name to a Phase (PhaseNone when unknown).
func ParsePhase(s string) Phase {
	for i := SchedulerDelay; i < numPhases; i++ {
		if phaseNames[i] == s {
			return i
		}
	}
	return PhaseNone
}

// maxPhases bounds the phases of one attempt (Spark has seven).
const maxPhases = 7

// layouts lists, per pool, the phases of an attempt in the order they are
// laid end to end inside [launch, finish].
var layouts = [numPools][]Phase{
	PoolSpark:   {SchedulerDelay, Deserialize, FetchWait, Compute, ShuffleWrite, ResultSerialize, GettingResult},
	PoolMap:     {Map, Spill, MapMerge},
	PoolReduce:  {Shuffle, Sort, Reduce},
	PoolSetup:   {Setup},
	PoolCleanup: {Cleanup},
}

// Layout returns the phases of a pool's attempts in time order.
func Layout(p Pool) []Phase {
	if p < numPools {
		return layouts[p]
	}
	return nil
}

// phaseIndex is the position of ph in its pool's layout, or -1.
func phaseIndex(p Pool, ph Phase) int {
	for i, x := range Layout(p) {
		if x == ph {
			return i
		}
	}
	return -1
}
