package perfmodel

import (
	"cmp"
	"errors"
	"slices"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/radix"
)

// ErrNoTasks is returned when an application has no finished task to model.
var ErrNoTasks = errors.New("no finished tasks")

// Workload is what the performance models need from an application: its
// window, its stages as a DAG with the recorded duration of every finished
// task attempt, its jobs and the cores its executors offered. Times are epoch
// milliseconds, durations milliseconds.
type Workload struct {
	AppID    string
	Start    int64 // application start
	End      int64 // application end, or the last recorded time when the log is incomplete
	Complete bool  // the log recorded the application's end

	// Stages are merged over attempts (one entry per stage id), in stage id
	// order; only stages with at least one finished task attempt are kept,
	// as Sparklens drops stages without tasks (CompletionEstimator.scheduleStage).
	Stages []Stage
	// Jobs in submission order; a stage belongs to exactly one job.
	Jobs []Job
	// Executors are the executors that offered cores, with their lifetimes.
	Executors []ExecutorSpan
	// TaskCPUs is spark.task.cpus (cores one task occupies), at least 1.
	TaskCPUs int
	// ObservedConcurrency is the most task attempts recorded running at once.
	ObservedConcurrency int
	// MapReduce is set for a MapReduce job, whose reduces start before its
	// maps end (slow-start) and wait for them.
	MapReduce bool
}

// Stage is one stage id of the workload with its task attempts.
type Stage struct {
	ID   int32
	Name string
	Job  int // index into Workload.Jobs
	// Parents are indexes into Workload.Stages of the parent stages in the
	// same or an earlier job (Spark's "Parent IDs"; parents without tasks,
	// such as skipped stages, are left out as in Sparklens).
	Parents []int
	// Recorded times: submission, first task launch, last task finish and
	// completion (never before LastFinish).
	Submitted, FirstLaunch, LastFinish, Completed int64
	// Durations are finish-launch of every finished task attempt (including
	// failed, killed and speculative attempts: they all held a core), in
	// launch order. A Resubmitted TaskEnd is not an attempt: Spark logs it,
	// without metrics, for a finished map task whose output was lost, and
	// Sparklens skips it for the missing metrics; the rerun is a new attempt.
	Durations []int64
	// TaskIDs and Launches are each attempt's task id (Spark's task id;
	// MapReduce: the attempt's sequence number) and launch time (epoch
	// ms), parallel to Durations as FromApp builds them; a workload made
	// otherwise may leave them empty.
	TaskIDs, Launches []int64
	// Failed is set, parallel to Durations, for the attempts that did not
	// succeed (failed, or killed).
	Failed []bool
	// Kind is the stage's kind (MapReduce: map, reduce, setup, cleanup).
	Kind model.StageKind
	// Attempts is the number of stage attempts merged.
	Attempts int
	// Retries are the later attempts of a stage Spark resubmitted (after a
	// FetchFailed or a lost executor), in attempt order; Durations holds the
	// tasks attempt by attempt, each attempt's in launch order, and
	// Retries[k].From is where the k-th retry's tasks begin. Nil for a stage
	// run once.
	Retries []Retry
	// FirstCompleted is when the stage's first attempt completed (Completed
	// for a stage run once); its children's recorded start delays count
	// from it, since they started before any retry.
	FirstCompleted int64
	// BusyAtSubmit counts other stages' task attempts running when the stage
	// was submitted: when they filled every slot, the wait for its first
	// launch was contention, not scheduler delay.
	BusyAtSubmit int
}

// Retry is a later attempt of a stage: its first task's index in
// Stage.Durations, and its recorded delay from its submission to its first
// task launch.
type Retry struct {
	From  int
	Delay int64
}

// CriticalTask is the stage's contribution to the critical path: the
// longest task of each attempt, summed, since an attempt runs only after
// the one before it failed (Sparklens takes the longest task over all
// attempts, MaxTask).
func (s *Stage) CriticalTask() int64 {
	var sum, m int64
	next := 0
	for i, d := range s.Durations {
		if next < len(s.Retries) && i == s.Retries[next].From {
			sum, m = sum+m, 0
			next++
		}
		m = max(m, d)
	}
	return sum + m
}

// Job is one job (a Spark action) of the workload.
type Job struct {
	ID        int32
	Submitted int64
	Completed int64
	Stages    []int // indexes into Workload.Stages
	// Synthetic is set for a job made up for stages the log attributes to no job.
	Synthetic bool
	// SQLID is the job's spark.sql.execution.id, -1 when none.
	SQLID int64
}

// ExecutorSpan is an executor's cores and lifetime clipped to the application.
type ExecutorSpan struct {
	ID           string
	Cores        int
	Added, Ended int64
}

// Used is the sum of the stage's task durations (core-milliseconds when one
// task occupies one core).
func (s *Stage) Used() int64 {
	var n int64
	for _, d := range s.Durations {
		n += d
	}
	return n
}

// MaxTask is the stage's longest task attempt.
func (s *Stage) MaxTask() int64 {
	var m int64
	for _, d := range s.Durations {
		m = max(m, d)
	}
	return m
}

// NumTasks counts the workload's task attempts.
func (w *Workload) NumTasks() int {
	n := 0
	for i := range w.Stages {
		n += len(w.Stages[i].Durations)
	}
	return n
}

// Duration is End-Start.
func (w *Workload) Duration() int64 { return max(0, w.End-w.Start) }

// Options tune FromAppWith.
type Options struct {
	// ExecutorRunTime takes a task's time from its executorRunTime metric,
	// as Sparklens does (StageTimeSpan.updateTasks), instead of its
	// launch-to-finish duration; attempts without metrics keep the duration.
	// For parity checks with Sparklens; the replay needs durations.
	ExecutorRunTime bool
}

// FromApp extracts the workload of a Spark application (or a MapReduce job,
// whose map and reduce phases are its stages). It fails with ErrNoTasks when
// no task attempt finished.
func FromApp(app *model.App) (*Workload, error) { return FromAppWith(app, Options{}) }

// FromAppWith is FromApp with options.
func FromAppWith(app *model.App, opts Options) (*Workload, error) {
	w := &Workload{AppID: app.ID, Start: app.Start, End: app.End, Complete: app.Complete && app.End > 0, TaskCPUs: 1,
		MapReduce: app.Engine == model.MapReduce}
	if v, ok := app.Env.SparkProp("spark.task.cpus"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			w.TaskCPUs = n
		}
	}
	byID := map[int32]int{}
	// attemptTimes are a stage attempt's recorded submission and completion.
	type attemptTimes struct {
		attempt             int32
		submitted, complete int64
	}
	var attemptsOf [][]attemptTimes
	var tasks [][]taskRef
	var parents [][]int32
	var jobIDs [][]int32
	var m model.TaskMetrics
	for _, st := range app.Stages {
		i, ok := byID[st.ID]
		if !ok {
			i = len(w.Stages)
			byID[st.ID] = i
			w.Stages = append(w.Stages, Stage{ID: st.ID, Name: st.Name, Kind: st.Kind})
			tasks = append(tasks, nil)
			parents = append(parents, nil)
			jobIDs = append(jobIDs, nil)
			attemptsOf = append(attemptsOf, nil)
		}
		attemptsOf[i] = append(attemptsOf[i], attemptTimes{st.Attempt, st.Submitted, st.Completed})
		s := &w.Stages[i]
		s.Attempts++
		if st.Submitted > 0 && (s.Submitted == 0 || st.Submitted < s.Submitted) {
			s.Submitted = st.Submitted
		}
		s.Completed = max(s.Completed, st.Completed)
		parents[i] = append(parents[i], st.ParentIDs...)
		jobIDs[i] = append(jobIDs[i], st.JobIDs...)
		tasks[i] = slices.Grow(tasks[i], len(st.Tasks))
		for k := range st.Tasks {
			t := &st.Tasks[k]
			if !t.Done() || t.Launch <= 0 || t.Finish < t.Launch || app.Resubmitted(t) || app.Misdated(st, t) {
				continue
			}
			d := t.Finish - t.Launch
			if opts.ExecutorRunTime && t.HasMetrics {
				st.TaskMetrics(k, &m)
				d = max(0, m[model.ExecutorRunTime])
			}
			tasks[i] = append(tasks[i], taskRef{st.Attempt, t.Launch, t.ID, d, t.Finish, t.Status != model.TaskSuccess})
		}
	}
	// Keep stages with tasks, in id order.
	keep := make([]int, 0, len(w.Stages))
	for i := range w.Stages {
		if len(tasks[i]) > 0 {
			keep = append(keep, i)
		}
	}
	if len(keep) == 0 {
		return nil, ErrNoTasks
	}
	slices.SortFunc(keep, func(a, b int) int { return cmp.Compare(w.Stages[a].ID, w.Stages[b].ID) })
	stages := make([]Stage, len(keep))
	newIndex := map[int32]int{}
	var lastSeen int64
	for j, i := range keep {
		s := w.Stages[i]
		ts := sortByLaunch(tasks[i])
		tasks[i] = ts
		s.Durations = make([]int64, len(ts))
		s.TaskIDs, s.Launches, s.Failed = make([]int64, len(ts)), make([]int64, len(ts)), make([]bool, len(ts))
		s.FirstLaunch = ts[0].launch
		timesOf := func(attempt int32) attemptTimes {
			for _, a := range attemptsOf[i] {
				if a.attempt == attempt {
					return a
				}
			}
			return attemptTimes{}
		}
		first := timesOf(ts[0].attempt)
		var firstLast int64 // last finish of the first attempt's tasks
		for k, t := range ts {
			s.Durations[k], s.TaskIDs[k], s.Launches[k], s.Failed[k] = t.dur, t.id, t.launch, t.failed
			s.LastFinish = max(s.LastFinish, t.finish)
			if t.attempt == ts[0].attempt {
				firstLast = max(firstLast, t.finish)
			}
			if k > 0 && t.attempt != ts[k-1].attempt {
				r := Retry{From: k}
				if sub := timesOf(t.attempt).submitted; sub > 0 {
					r.Delay = max(0, t.launch-sub)
				}
				s.Retries = append(s.Retries, r)
			}
		}
		s.FirstCompleted = max(first.complete, firstLast)
		if s.Submitted == 0 || s.Submitted > s.FirstLaunch {
			s.Submitted = s.FirstLaunch
		}
		s.Completed = max(s.Completed, s.LastFinish)
		if len(s.Retries) == 0 {
			s.FirstCompleted = s.Completed
		}
		lastSeen = max(lastSeen, s.Completed)
		stages[j] = s
		newIndex[s.ID] = j
	}
	for j, i := range keep {
		for _, p := range parents[i] {
			// Spark creates parents before children, so a parent's id is
			// smaller; the check also keeps the graph acyclic on bad input.
			if pi, ok := newIndex[p]; ok && p < stages[j].ID && !slices.Contains(stages[j].Parents, pi) {
				stages[j].Parents = append(stages[j].Parents, pi)
			}
		}
	}
	w.Stages = stages
	w.buildJobs(app, keep, jobIDs)
	for _, j := range w.Jobs {
		lastSeen = max(lastSeen, j.Completed)
	}
	if first := minSubmitted(w); w.Start <= 0 || w.Start > first {
		w.Start = first
	}
	if w.End < lastSeen {
		w.End = lastSeen
		w.Complete = false
	}
	w.Executors = executorSpans(app, w)
	starts, ends := sortedSpans(tasks, func(t taskRef) (int64, int64) { return t.launch, t.finish })
	busyAt := runningAt(starts, ends)
	for j, i := range keep {
		s := &w.Stages[j]
		own := 0
		for _, t := range tasks[i] {
			if t.launch <= s.Submitted && s.Submitted < t.finish {
				own++
			}
		}
		s.BusyAtSubmit = busyAt(s.Submitted) - own
	}
	w.ObservedConcurrency = maxOpen(starts, ends)
	return w, nil
}

// taskRef is a finished task attempt as FromAppWith collects it.
type taskRef struct {
	attempt                 int32
	launch, id, dur, finish int64
	failed                  bool
}

// byLaunch orders task references by stage attempt, launch and task id.
func byLaunch(a, b taskRef) int {
	if a.attempt != b.attempt {
		return cmp.Compare(a.attempt, b.attempt)
	}
	if a.launch != b.launch {
		return cmp.Compare(a.launch, b.launch)
	}
	return cmp.Compare(a.id, b.id)
}

// sortByLaunch returns ts in byLaunch order: ts itself when the log listed
// its tasks so (most do), short lists sorted in place, long ones by three
// stable radix sorts, by id, then launch, then attempt, instead of a
// comparison sort.
func sortByLaunch(ts []taskRef) []taskRef {
	if slices.IsSortedFunc(ts, byLaunch) {
		return ts
	}
	if len(ts) < radix.SmallSort {
		slices.SortFunc(ts, byLaunch)
		return ts
	}
	keys := make([]radix.Keyed, 0, len(ts))
	buf := make([]radix.Keyed, len(ts))
	keys = radix.TimeKeys(keys, func(i int) int64 { return ts[i].id }, len(ts))
	keys, buf = radix.Sort(keys, buf)
	for _, field := range []func(*taskRef) int64{
		func(t *taskRef) int64 { return t.launch },
		func(t *taskRef) int64 { return int64(t.attempt) },
	} {
		lo := field(&ts[0])
		for i := range ts {
			lo = min(lo, field(&ts[i]))
		}
		for i := range keys {
			keys[i].Key = uint64(field(&ts[keys[i].Idx]) - lo)
		}
		keys, buf = radix.Sort(keys, buf)
	}
	out := make([]taskRef, len(ts))
	for i, k := range keys {
		out[i] = ts[k.Idx]
	}
	return out
}

func minSubmitted(w *Workload) int64 {
	m := w.Stages[0].Submitted
	for i := range w.Stages {
		m = min(m, w.Stages[i].Submitted)
	}
	for _, j := range w.Jobs {
		if j.Submitted > 0 {
			m = min(m, j.Submitted)
		}
	}
	return m
}

// concurrency is the most intervals open at once; an interval ending at the
// instant another starts does not overlap it.
func concurrency[T any](groups [][]T, span func(T) (int64, int64)) int {
	return maxOpen(sortedSpans(groups, span))
}

// sortedSpans lists the starts and the ends of the intervals, each sorted.
func sortedSpans[T any](groups [][]T, span func(T) (int64, int64)) (starts, ends []int64) {
	n := 0
	for _, g := range groups {
		n += len(g)
	}
	starts, ends = make([]int64, 0, n), make([]int64, 0, n)
	for _, g := range groups {
		for _, x := range g {
			a, b := span(x)
			starts = append(starts, a)
			ends = append(ends, b)
		}
	}
	buf := make([]int64, n)
	starts, buf = radix.Int64s(starts, buf)
	ends, _ = radix.Int64s(ends, buf)
	return starts, ends
}

// maxOpen is the most intervals open at once, given their sorted starts
// and ends: it merges the two lists, an end before a start at the same
// instant.
func maxOpen(starts, ends []int64) int {
	cur, m, j := 0, 0, 0
	for _, a := range starts {
		for j < len(ends) && ends[j] <= a {
			cur--
			j++
		}
		cur++
		m = max(m, cur)
	}
	return m
}

// runningAt returns a function counting the intervals with start <= t < end,
// given their sorted starts and ends.
func runningAt(starts, ends []int64) func(t int64) int {
	return func(t int64) int {
		started, _ := slices.BinarySearch(starts, t+1) // starts <= t
		ended, _ := slices.BinarySearch(ends, t+1)     // ends <= t
		return started - ended
	}
}
