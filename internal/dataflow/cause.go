package dataflow

// Cause is what a slot's time went to: busy work, or one of the idle causes
// HiTune's breakdowns separate (§5, §7.1 scheduling, §7.2 shuffle) together
// with the waste that Sparklens-style analyses name.
type Cause uint8

// Causes of slot time. Only CauseBusy is useful work.
const (
	// CauseBusy is task time spent computing, reading, writing or spilling.
	CauseBusy Cause = iota
	// CauseSchedulerDelay is task time the scheduler and launch overhead
	// took (Spark's scheduler delay, as the History Server computes it).
	CauseSchedulerDelay
	// CauseShuffleWait is task time blocked on shuffle data: Spark's fetch
	// wait; for MapReduce, reduce shuffle time before the last map finished
	// (the shuffle gap of HiTune §7.2).
	CauseShuffleWait
	// CauseGC is task time in JVM garbage collection.
	CauseGC
	// CauseSerialization is task time deserializing the task, serializing
	// its result and the driver getting the result.
	CauseSerialization
	// CauseStragglerTail is idle slot time while a stage runs its last tasks:
	// after the stage's median task finished, while few tasks run.
	CauseStragglerTail
	// CauseDriver is idle slot time while no task runs anywhere: the driver
	// (or job client) works alone, including the bootstrap.
	CauseDriver
	// CauseAllocatedIdle is any other idle slot time of allocated executors.
	CauseAllocatedIdle
	// NumCauses counts the causes.
	NumCauses
)

var causeNames = [NumCauses]string{"busy", "scheduler-delay", "shuffle-wait", "gc", "serialization",
	"straggler-tail", "driver", "allocated-idle"}

// String returns the cause's name, as used in JSON.
func (c Cause) String() string {
	if c < NumCauses {
		return causeNames[c]
	}
	return ""
}

// MarshalText writes the cause's name.
func (c Cause) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// phaseCause is the cause a recorded phase's time counts toward (before GC
// and shuffle waiting are carved out of busy phases).
func phaseCause(ph Phase) Cause {
	switch ph {
	case SchedulerDelay:
		return CauseSchedulerDelay
	case FetchWait:
		return CauseShuffleWait
	case Deserialize, ResultSerialize, GettingResult:
		return CauseSerialization
	}
	return CauseBusy
}
