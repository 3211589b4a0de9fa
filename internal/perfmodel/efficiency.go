package perfmodel

import "slices"

// Efficiency is Sparklens's efficiency statistics of an application
// (EfficiencyStatisticsAnalyzer.scala): how the wall clock splits between
// driver and executors, the lower bounds on the application's time, and the
// core-milliseconds available, used and wasted. One core-hour is 3.6e6
// core-milliseconds.
type Efficiency struct {
	WallClock
	Cores Cores `json:"cores"`

	// CriticalPath bounds the executor time from below (infinite executors).
	CriticalPath CriticalPath `json:"criticalPath"`
	// CriticalPathAppMs is DriverMs + CriticalPath.Ms: "minimum possible time
	// for the app based on the critical path (with infinite resources)".
	CriticalPathAppMs int64 `json:"criticalPathAppMs"`
	// IdealAppMs is DriverMs + CoreMsUsed/Slots: "minimum possible time for the
	// app with same executors, perfect parallelism and zero skew".
	IdealAppMs float64 `json:"idealAppMs"`
	// OneCoreAppMs is DriverMs + CoreMsUsed: the time on a single core.
	OneCoreAppMs int64 `json:"oneCoreAppMs"`

	// CoreMsAvailable is cores times executor lifetime from add and remove
	// events ("OneCoreComputeHours available (AutoScale Aware)").
	CoreMsAvailable int64 `json:"coreMsAvailable"`
	// CoreMsUsed is the sum of task attempt durations times spark.task.cpus.
	CoreMsUsed int64 `json:"coreMsUsed"`
	// CoreMsWasted is CoreMsAvailable - CoreMsUsed (never negative).
	CoreMsWasted int64 `json:"coreMsWasted"`
	// DriverCoreMsWasted is the part of CoreMsAvailable that fell while only
	// the driver worked ("OneCoreComputeHours wasted by driver").
	DriverCoreMsWasted int64 `json:"driverCoreMsWasted"`

	// Stages are per-stage figures in stage id order.
	Stages []StageEfficiency `json:"stages"`
}

// StageEfficiency is one stage's share of the work (Sparklens
// StageSkewAnalyzer.computePerStageEfficiencyStatistics and
// checkForGCOrShuffleService).
type StageEfficiency struct {
	ID    int32 `json:"id"`
	JobID int32 `json:"jobId"`
	Tasks int   `json:"tasks"`
	// WallMs is the stage's window, submission to completion.
	WallMs int64 `json:"wallMs"`
	// IdealMs is CoreMsUsed / (Slots x TaskCPUs): the wall time with perfect parallelism.
	IdealMs float64 `json:"idealMs"`
	// CoreMsAvailable are the executors' core-milliseconds within the window;
	// concurrent stages each count the whole cluster, as in Sparklens.
	CoreMsAvailable int64 `json:"coreMsAvailable"`
	CoreMsUsed      int64 `json:"coreMsUsed"`
	CoreMsWasted    int64 `json:"coreMsWasted"`
	// MaxTaskMs and MedianTaskMs give Sparklens's TaskSkew (max/median) and
	// TaskStageSkew (max/wall).
	MaxTaskMs    int64 `json:"maxTaskMs"`
	MedianTaskMs int64 `json:"medianTaskMs"`
	// ParallelismRatio is tasks per slot (Sparklens's PRatio).
	ParallelismRatio float64 `json:"parallelismRatio"`
	// OnCriticalPath is set for stages on the critical path.
	OnCriticalPath bool `json:"onCriticalPath"`
}

// TaskSkew is MaxTaskMs/MedianTaskMs (0 without a median).
func (s StageEfficiency) TaskSkew() float64 {
	if s.MedianTaskMs <= 0 {
		return 0
	}
	return float64(s.MaxTaskMs) / float64(s.MedianTaskMs)
}

// TaskStageSkew is MaxTaskMs/WallMs (0 for an empty window).
func (s StageEfficiency) TaskStageSkew() float64 {
	if s.WallMs <= 0 {
		return 0
	}
	return float64(s.MaxTaskMs) / float64(s.WallMs)
}

// Analyze computes the efficiency statistics of a workload.
//
// Departures from Sparklens, each for a measured reason: task time is a
// task attempt's launch-to-finish duration rather than its executorRunTime,
// so deserialization and result handling count as used (they hold the core);
// available cores follow executor lifetimes, not the maximum executor count
// over the whole run, so dynamic allocation does not inflate waste; the
// driver's share is measured from stage windows (see SplitWallClock).
func Analyze(w *Workload) *Efficiency {
	e := &Efficiency{WallClock: SplitWallClock(w), Cores: CoresOf(w), CriticalPath: FindCriticalPath(w)}
	cpus := int64(max(1, w.TaskCPUs))
	slots := int64(max(1, e.Cores.Slots))
	onPath := map[int32]bool{}
	for _, id := range e.CriticalPath.Stages {
		onPath[id] = true
	}
	for i := range w.Stages {
		s := &w.Stages[i]
		used := s.Used() * cpus
		e.CoreMsUsed += used
		st := StageEfficiency{
			ID: s.ID, JobID: w.Jobs[s.Job].ID, Tasks: len(s.Durations),
			WallMs:           s.Completed - s.Submitted,
			IdealMs:          float64(used) / float64(slots*cpus),
			CoreMsAvailable:  CoreMsIn(w, s.Submitted, s.Completed),
			CoreMsUsed:       used,
			MaxTaskMs:        s.MaxTask(),
			MedianTaskMs:     median(s.Durations),
			ParallelismRatio: float64(len(s.Durations)) / float64(slots),
			OnCriticalPath:   onPath[s.ID],
		}
		st.CoreMsWasted = max(0, st.CoreMsAvailable-st.CoreMsUsed)
		e.Stages = append(e.Stages, st)
	}
	e.CoreMsAvailable = CoreMsIn(w, w.Start, w.End)
	if e.Cores.FromTasks {
		// No executor announced cores: assume the observed slots for the whole run.
		e.CoreMsAvailable = int64(e.Cores.MaxConcurrent) * w.Duration()
		for i := range e.Stages {
			e.Stages[i].CoreMsAvailable = int64(e.Cores.MaxConcurrent) * e.Stages[i].WallMs
			e.Stages[i].CoreMsWasted = max(0, e.Stages[i].CoreMsAvailable-e.Stages[i].CoreMsUsed)
		}
	}
	e.CoreMsWasted = max(0, e.CoreMsAvailable-e.CoreMsUsed)
	e.DriverCoreMsWasted = e.driverCoreMs(w)
	e.CriticalPathAppMs = e.DriverMs + e.CriticalPath.Ms
	e.IdealAppMs = float64(e.DriverMs) + float64(e.CoreMsUsed)/float64(slots*cpus)
	e.OneCoreAppMs = e.DriverMs + e.CoreMsUsed/cpus
	return e
}

// driverCoreMs sums the executors' core-milliseconds over the driver-only gaps.
func (e *Efficiency) driverCoreMs(w *Workload) int64 {
	if e.Cores.FromTasks {
		return int64(e.Cores.MaxConcurrent) * e.DriverMs
	}
	executorTime := CoreMsIn(w, w.Start, w.End)
	var inStages int64
	for _, iv := range stageUnion(w) {
		inStages += CoreMsIn(w, iv[0], iv[1])
	}
	return max(0, executorTime-inStages)
}

// median is the upper median, as Sparklens takes sorted(n/2).
func median(d []int64) int64 {
	if len(d) == 0 {
		return 0
	}
	c := append([]int64(nil), d...)
	slices.Sort(c)
	return c[len(c)/2]
}
