package eventlog

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// DefaultSparkVersion is the version Write logs when App.Version is empty.
const DefaultSparkVersion = "3.5.1"

// Event kinds of the time-ordered part of a log, in the order they are
// written when they share a timestamp (a job starts before its stages are
// submitted, a task starts before it ends, a stage's executor peaks come
// before its completion, and so on).
const (
	evSQLStart uint32 = iota
	evExecutorAdded
	evBlockManagerAdded
	evProcessAdded
	evJobStart
	evStageSubmitted
	evTaskStart
	evTaskGettingResult
	evTaskEnd
	evStageCompleted // preceded by the stage's SparkListenerStageExecutorMetrics
	evJobEnd
	evSQLEnd
	evExecutorRemoved
	// evTaskEndInPlace is the end of a task the reader made from a repeated
	// SparkListenerTaskEnd (Spark logs one with reason Resubmitted when a
	// finished map task's output is lost): it sorts with task starts, right
	// after the start of the task before it in the stage.
	evTaskEndInPlace
	// evSQLAdaptive is an execution's final plan, logged as adaptive
	// execution's update just before its last job starts; evSQLDriver its
	// driver metric updates, just before its end.
	evSQLAdaptive
	evSQLDriver
)

// rank orders kinds that share a timestamp.
var rank = [...]uint8{
	evSQLStart: 0, evExecutorAdded: 1, evBlockManagerAdded: 2, evProcessAdded: 3, evSQLAdaptive: 4, evJobStart: 5,
	evStageSubmitted: 6, evTaskStart: 7, evTaskEndInPlace: 7, evTaskGettingResult: 8, evTaskEnd: 9,
	evStageCompleted: 10, evJobEnd: 11, evSQLDriver: 12, evSQLEnd: 13, evExecutorRemoved: 14,
}

const (
	kindShift = 27
	refMask   = 1<<kindShift - 1
)

// event is one entry of the write schedule: 16 bytes per event.
type event struct {
	time int64
	kr   uint32 // kind<<kindShift | index of the stage, job, executor, process or SQL execution
	task uint32 // task index within the stage
}

func (e event) kind() uint32 { return e.kr >> kindShift }
func (e event) ref() uint32  { return e.kr & refMask }

// Write writes app as a Spark 3.5 event log: one JSON object per line,
// as org.apache.spark.util.JsonProtocol serializes each SparkListenerEvent
// and EventLoggingListener writes it. The log opens with
// SparkListenerLogStart, SparkListenerResourceProfileAdded,
// SparkListenerEnvironmentUpdate and SparkListenerApplicationStart; then come
// executor, job, stage and task events in time order (a task starts at its
// launch and ends at its finish); exclusions last, then
// SparkListenerApplicationEnd when app.Complete. Reading the output with Read
// gives back app for everything the format carries (see the round-trip tests).
//
// What the model keeps only in a derived form is written back from it:
// a failure reason's fields are recovered from its Message as Read words
// it (Spark's TaskEndReason.toErrorString: "ExecutorLostFailure (executor 3
// exited caused by one of the running tasks) Reason: ...", "FetchFailed(...)",
// "TaskCommitDenied (...)"; an ExceptionFailure's message is its full stack
// trace and a TaskKilled's its kill reason, any text); a stage's per-executor
// peaks go into the task-end "Task Executor Metrics" and
// SparkListenerStageExecutorMetrics so that both the stage's and the
// executor's peaks read back. Stage-level exclusions are logged at the
// stage's submission and application-level ones at the end, as the model
// keeps no time for them.
//
// Extra memory is 16 bytes per event plus one line's buffer, so a
// million-task application encodes in about 32 MB.
func Write(w io.Writer, app *model.App) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	err := writeTo(app, func(b []byte) error {
		_, err := bw.Write(b)
		return err
	}, bw.AvailableBuffer)
	if err != nil {
		return fmt.Errorf("write event log: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write event log: %w", err)
	}
	return nil
}

// schedule lists the time-ordered events of app, sorted stably by time and
// kind (model order breaks ties).
func schedule(app *model.App) []event {
	n := 2*len(app.Jobs) + 2*len(app.Stages) + 2*len(app.Executors) + len(app.Processes) + 4*len(app.SQL)
	for _, st := range app.Stages {
		n += 2 * len(st.Tasks)
		for k := range st.Tasks {
			if st.Tasks[k].GettingResult != 0 {
				n++
			}
		}
	}
	evs := make([]event, 0, n)
	add := func(t int64, kind uint32, ref int, task int) {
		evs = append(evs, event{time: t, kr: kind<<kindShift | uint32(ref), task: uint32(task)})
	}
	for i, x := range app.SQL {
		if x.Plan != nil || x.Start != 0 { // else only its jobs named it
			add(x.Start, evSQLStart, i, 0)
		}
		if x.InitialPlan != nil {
			add(lastJobStart(app, x), evSQLAdaptive, i, 0)
		}
		if x.End != 0 {
			if len(x.DriverUpdates) > 0 {
				add(x.End, evSQLDriver, i, 0)
			}
			add(x.End, evSQLEnd, i, 0)
		}
	}
	for i, ex := range app.Executors {
		if ex.Added != 0 {
			add(ex.Added, evExecutorAdded, i, 0)
		}
		if ex.BlockManagerSeen {
			t := ex.BlockManagerAdded
			if t == 0 {
				t = ex.Added
			}
			add(t, evBlockManagerAdded, i, 0)
		}
		if ex.Removed != 0 {
			add(ex.Removed, evExecutorRemoved, i, 0)
		}
	}
	for i, p := range app.Processes {
		add(p.Time, evProcessAdded, i, 0)
	}
	for i, j := range app.Jobs {
		if j.Submitted != 0 || j.StageIDs != nil { // else only its end was logged
			add(j.Submitted, evJobStart, i, 0)
		}
		if j.Status == model.JobSucceeded || j.Status == model.JobFailed {
			add(max(j.Completed, j.Submitted), evJobEnd, i, 0)
		}
	}
	for i, st := range app.Stages {
		submitted := st.Status == model.StageActive || st.Status == model.StageComplete || st.Status == model.StageFailed
		if submitted {
			t := st.Submitted
			if t == 0 && len(st.Tasks) > 0 { // known from its tasks only: submitted before the first
				t = st.Tasks[0].Launch
				for k := range st.Tasks {
					t = min(t, st.Tasks[k].Launch)
				}
			}
			add(t, evStageSubmitted, i, 0)
		}
		if st.Status == model.StageComplete || st.Status == model.StageFailed {
			add(max(st.Completed, st.Submitted), evStageCompleted, i, 0)
		}
		// A task's events follow its stage's submission even where the
		// model's clocks disagree (edited or skewed logs).
		floor := int64(0)
		if submitted {
			floor = st.Submitted
		}
		dup := duplicateTasks(st)
		prev := floor
		for k := range st.Tasks {
			t := &st.Tasks[k]
			start := max(t.Launch, floor)
			if t.Status != model.TaskRunning && (dup[k] || start < prev) {
				// The reader made this task from its end alone (a repeated
				// end, or a log whose start lies in an earlier part): it is
				// logged between the tasks around it in the stage.
				add(prev, evTaskEndInPlace, i, k)
				continue
			}
			prev = start
			add(start, evTaskStart, i, k)
			if t.GettingResult != 0 {
				add(max(t.GettingResult, start), evTaskGettingResult, i, k)
			}
			if t.Status != model.TaskRunning {
				add(max(t.Finish, start), evTaskEnd, i, k)
			}
		}
	}
	// Within a kind, events were added in (ref, task) order, so this total
	// order is the stable sort by (time, rank) without its cost.
	slices.SortFunc(evs, func(a, b event) int {
		if c := cmp.Compare(a.time, b.time); c != 0 {
			return c
		}
		if c := cmp.Compare(rank[a.kind()], rank[b.kind()]); c != 0 {
			return c
		}
		if c := cmp.Compare(a.ref(), b.ref()); c != 0 {
			return c
		}
		return cmp.Compare(a.task, b.task)
	})
	return evs
}

// duplicateTasks finds the tasks of a stage whose task id an earlier task
// of the stage already has: the reader made them from a repeated
// SparkListenerTaskEnd with no start of its own, so only their end is
// written. Spark numbers tasks in launch order, so the common case is
// checked without a map.
func duplicateTasks(st *model.Stage) map[int]bool {
	increasing := true
	for k := 1; k < len(st.Tasks) && increasing; k++ {
		increasing = st.Tasks[k].ID > st.Tasks[k-1].ID
	}
	if increasing {
		return nil
	}
	seen := make(map[int64]bool, len(st.Tasks))
	var dup map[int]bool
	for k := range st.Tasks {
		id := st.Tasks[k].ID
		if seen[id] {
			if dup == nil {
				dup = map[int]bool{}
			}
			dup[k] = true
		}
		seen[id] = true
	}
	return dup
}

// lastJobStart is when the execution's last job started (its start when it
// ran none).
func lastJobStart(app *model.App, x *model.SQLExecution) int64 {
	t := x.Start
	for _, j := range app.Jobs {
		if j.SQLID == x.ID {
			t = max(t, j.Submitted)
		}
	}
	return t
}
