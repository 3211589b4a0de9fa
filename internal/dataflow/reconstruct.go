package dataflow

import (
	"fmt"
	"iter"
	"math"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Default parameters.
const (
	// DefaultTailFraction: a stage is in its straggler tail after its median
	// task finished while fewer than this fraction of the allocated slots run
	// tasks.
	DefaultTailFraction = 0.5
	// maxSpan bounds an attempt's length (about 24.8 days) so that phase
	// durations fit 32 bits; longer attempts are cut at it.
	maxSpan = math.MaxInt32
)

// Options tune the reconstruction. The zero value uses the defaults.
type Options struct {
	// Spec is the dataflow specification; nil means BuiltinFor(app.Engine).
	Spec *Spec
	// TailFraction is the share of allocated slots below which running tasks
	// count as "few" for the straggler tail (0: DefaultTailFraction).
	TailFraction float64
	// TaskCPUs is the cores one Spark task takes (0: spark.task.cpus from
	// the application's environment, else 1).
	TaskCPUs int
}

// Attempt is one reconstructed task attempt: where and when it ran, and how
// long each of its phases took (HiTune §4–5). Its phases lie end to end in
// [Start, End] in the order Layout(Pool) gives; Dur[i] is the i-th one's
// length in milliseconds. It is a flat struct so that a million attempts
// cost a few tens of megabytes and no allocation each.
type Attempt struct {
	Start, End int64
	Stage      int32  // index into App.Stages
	Task       int32  // index into the stage's Tasks
	Executor   uint32 // index into App.Executors
	Host       uint32 // index into App.Hosts
	Slot       int32  // slot of the executor the attempt ran in
	Dur        [maxPhases]int32
	GC         int32 // milliseconds of garbage collection inside busy phases
	Wait       int32 // milliseconds of busy phases spent waiting for another pool (HiTune §7.2)
	Pool       Pool
	Status     model.TaskStatus
	// Wasted is set when Spark threw the attempt's work away: it failed or
	// was killed, its output was lost, or a later stage attempt ran its
	// partition again. Its time still counts as busy (the slot was held);
	// the breakdowns report it again as wasted.
	Wasted bool
}

// Reconstruction is an application's execution rebuilt from its log: every
// task attempt with its phases, the executors' allocation windows and slots,
// and the activities the specification defines.
type Reconstruction struct {
	App  *model.App
	Spec *Spec
	// Activities are indexed by Segment.Activity and the breakdowns.
	Activities []Activity
	Attempts   []Attempt
	Executors  []ExecutorSpan
	// Start and End bound the application: its start and end events, or
	// the first and last times its log shows.
	Start, End int64
	// FirstLaunch is when the first task started (the bootstrap ends).
	FirstLaunch int64
	// Skipped counts attempts that could not be placed: no launch time, an
	// executor the log never described, or (Spark) a launch more than a
	// minute before its stage's submission or after the application's end.
	Skipped int
	// Resubmitted counts the repeated TaskEnd records (reason Resubmitted)
	// left out: each restates an attempt already counted, whose output was
	// lost, and that attempt is marked Wasted instead.
	Resubmitted int

	table        activityTable
	tailFraction float64
	order        []int32 // attempt indices by executor, then start
	starts       []int64 // attempt starts, sorted
}

// Reconstruct rebuilds every task attempt's phases (vertex instances) from
// log timestamps and task metrics, assigns attempts to executor slots, and
// derives executor allocation windows (HiTune §4–5).
func Reconstruct(app *model.App, opts Options) (*Reconstruction, error) {
	spec := opts.Spec
	if spec == nil {
		var err error
		if spec, err = BuiltinFor(app.Engine); err != nil {
			return nil, err
		}
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	r := &Reconstruction{App: app, Spec: spec, tailFraction: opts.TailFraction}
	if r.tailFraction <= 0 || r.tailFraction > 1 {
		r.tailFraction = DefaultTailFraction
	}
	var present [numPools]bool
	n := 0
	last := app.Start
	first := int64(0)
	for _, st := range app.Stages {
		if st == nil {
			continue
		}
		if len(st.Tasks) > 0 {
			present[PoolOf(st.Kind)] = true
		}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if t.Launch > 0 && !app.Misdated(st, t) {
				n++
				last = max(last, t.Launch, t.Finish)
				if first == 0 || t.Launch < first {
					first = t.Launch
				}
			}
		}
		last = max(last, st.Completed)
	}
	for _, e := range app.Executors {
		if e != nil {
			last = max(last, e.Added, e.Removed)
		}
	}
	var err error
	if r.Activities, r.table, err = buildActivities(spec, present); err != nil {
		return nil, err
	}
	r.Start, r.End = app.Start, app.End
	if r.Start <= 0 || (first > 0 && first < r.Start) {
		r.Start = first
	}
	if r.End <= 0 {
		r.End = last
	}
	r.FirstLaunch = first
	running := r.End // where attempts still running at the log's end stop
	r.Attempts = make([]Attempt, 0, n)
	waste := newWasteIndex(app)
	var m model.TaskMetrics
	for si, st := range app.Stages {
		if st == nil {
			continue
		}
		pool := PoolOf(st.Kind)
		for ti := range st.Tasks {
			t := &st.Tasks[ti]
			if app.Resubmitted(t) {
				r.Resubmitted++
				continue
			}
			if t.Launch <= 0 || t.Launch > math.MaxInt64-maxSpan || int(t.Executor) >= len(app.Executors) ||
				app.Executors[t.Executor] == nil || app.Misdated(st, t) {
				r.Skipped++
				continue
			}
			a := Attempt{Start: t.Launch, End: t.Finish, Stage: int32(si), Task: int32(ti), Executor: t.Executor,
				Host: t.Host, Pool: pool, Status: t.Status, Wasted: waste.wasted(st, t)}
			switch {
			case t.Finish <= 0: // still running when the log ends
				a.End = max(running, a.Start)
			case a.End < a.Start: // clocks disagree: an empty attempt
				a.End = a.Start
			}
			a.End = min(a.End, a.Start+maxSpan)
			r.End = max(r.End, a.End)
			if t.HasMetrics || pool != PoolSpark {
				st.TaskMetrics(ti, &m)
			} else {
				m = model.TaskMetrics{}
			}
			split(&a, t, &m)
			r.Attempts = append(r.Attempts, a)
		}
	}
	r.End = max(r.End, r.Start)
	r.shuffleWaits()
	r.assignSlots(taskCPUs(app, opts.TaskCPUs))
	return r, nil
}

// split lays an attempt's phases end to end inside [Start, End].
func split(a *Attempt, t *model.Task, m *model.TaskMetrics) {
	switch a.Pool {
	case PoolSpark:
		splitSpark(a, t, m)
	case PoolMap:
		splitMap(a, m)
	case PoolReduce:
		splitReduce(a, m)
	default:
		a.Dur[0] = int32(a.End - a.Start)
	}
}

// shuffleWaits carves, out of each activity fed over a remote edge by
// another pool, the time before that pool's last attempt finished (HiTune
// §7.2: reduces copy while maps still run, and wait for the last of them).
func (r *Reconstruction) shuffleWaits() {
	var lastOK, lastAny [numPools]int64
	for i := range r.Attempts {
		a := &r.Attempts[i]
		lastAny[a.Pool] = max(lastAny[a.Pool], a.End)
		if a.Status == model.TaskSuccess {
			lastOK[a.Pool] = max(lastOK[a.Pool], a.End)
		}
	}
	for i := range r.Attempts {
		a := &r.Attempts[i]
		t := a.Start
		for k := range Layout(a.Pool) {
			d := int64(a.Dur[k])
			act := &r.Activities[r.table[a.Pool][k]]
			if src := act.WaitsFor; src != PoolNone && act.Cause == CauseBusy {
				done := lastOK[src]
				if done == 0 {
					done = lastAny[src]
				}
				w := min(max(done-t, 0), d)
				a.Wait += int32(w)
			}
			t += d
		}
		a.GC = min(a.GC, a.busy(r)-a.Wait)
	}
}

// busy is the attempt's time in phases whose cause is CauseBusy.
func (a *Attempt) busy(r *Reconstruction) int32 {
	var b int32
	for k := range Layout(a.Pool) {
		if r.Activities[r.table[a.Pool][k]].Cause == CauseBusy {
			b += a.Dur[k]
		}
	}
	return b
}

// taskCPUs is the cores one task takes.
func taskCPUs(app *model.App, set int) int {
	if set > 0 {
		return set
	}
	if v, ok := app.Env.SparkProp("spark.task.cpus"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return n
		}
	}
	return 1
}

// Segment is one vertex instance: an activity of one attempt, with its
// start and end (HiTune §4–5).
type Segment struct {
	Activity int16
	Start    int64
	End      int64
}

// Segments appends attempt i's non-empty phases to dst, in time order.
func (r *Reconstruction) Segments(i int, dst []Segment) []Segment {
	if i < 0 || i >= len(r.Attempts) {
		return dst
	}
	a := &r.Attempts[i]
	t := a.Start
	for k := range Layout(a.Pool) {
		d := int64(a.Dur[k])
		if d > 0 {
			dst = append(dst, Segment{Activity: r.table[a.Pool][k], Start: t, End: t + d})
		}
		t += d
	}
	return dst
}

// All iterates over every vertex instance of the application: each
// attempt's non-empty phases, with the attempt's index, in attempt order.
func (r *Reconstruction) All() iter.Seq2[int, Segment] {
	return func(yield func(int, Segment) bool) {
		var buf [maxPhases]Segment
		for i := range r.Attempts {
			for _, s := range r.Segments(i, buf[:0]) {
				if !yield(i, s) {
					return
				}
			}
		}
	}
}

// Instance is a vertex instance described for people: the activity, the
// task attempt, and the node it ran on.
type Instance struct {
	Activity string
	Vertices []string
	Stage    int32 // stage id
	Attempt  int32 // stage attempt
	Task     int64 // task id
	Executor string
	Node     string
	Start    int64
	End      int64
}

// Instances lists attempt i's vertex instances.
func (r *Reconstruction) Instances(i int) []Instance {
	var out []Instance
	for _, s := range r.Segments(i, nil) {
		a := &r.Attempts[i]
		st := r.App.Stages[a.Stage]
		act := &r.Activities[s.Activity]
		out = append(out, Instance{Activity: act.Name, Vertices: act.Vertices, Stage: st.ID, Attempt: st.Attempt,
			Task: st.Tasks[a.Task].ID, Executor: r.App.Executors[a.Executor].ID, Node: r.App.Host(a.Host),
			Start: s.Start, End: s.End})
	}
	return out
}

// String describes the reconstruction for messages.
func (r *Reconstruction) String() string {
	return fmt.Sprintf("reconstruction of %s: %d attempts on %d executors", r.App.ID, len(r.Attempts), len(r.Executors))
}
