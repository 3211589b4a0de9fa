package eventlog

import (
	"slices"

	"github.com/clusterlens/clusterlens/internal/jsonscan"

	"github.com/clusterlens/clusterlens/internal/model"
)

// stageInfo writes StageInfo as JsonProtocol.stageInfoToJson does.
// submitted, completed and failure are written when set; the accumulables
// (the stage's own, then its task-metric totals) only when accums is true.
func (e *encoder) stageInfo(st *model.Stage, name string, numTasks int32, submitted, completed int64, failure *string, accums bool) {
	j := &e.j
	j.open('{')
	j.kint("Stage ID", int64(st.ID))
	j.kint("Stage Attempt ID", int64(st.Attempt))
	j.kstr("Stage Name", name)
	j.kint("Number of Tasks", int64(numTasks))
	j.key("RDD Info")
	j.open('[')
	for _, id := range st.RDDIDs {
		j.open('{')
		j.kint("RDD ID", int64(id))
		j.kstr("Name", "MapPartitionsRDD")
		j.kstr("Callsite", name)
		j.key("Parent IDs")
		j.open('[')
		j.close(']')
		j.key("Storage Level")
		j.open('{')
		j.kbool("Use Disk", false)
		j.kbool("Use Memory", false)
		j.kbool("Use Off Heap", false)
		j.kbool("Deserialized", false)
		j.kint("Replication", 1)
		j.close('}')
		j.kbool("Barrier", false)
		j.kstr("DeterministicLevel", "DETERMINATE")
		j.kint("Number of Partitions", int64(numTasks))
		j.kint("Number of Cached Partitions", 0)
		j.kint("Memory Size", 0)
		j.kint("Disk Size", 0)
		j.close('}')
	}
	j.close(']')
	j.key("Parent IDs")
	j.open('[')
	for _, id := range st.ParentIDs {
		j.int(int64(id))
	}
	j.close(']')
	j.kstr("Details", st.Details)
	if submitted != 0 {
		j.kint("Submission Time", submitted)
	}
	if completed != 0 {
		j.kint("Completion Time", completed)
	}
	if failure != nil {
		j.kstr("Failure Reason", *failure)
	}
	j.key("Accumulables")
	j.open('[')
	if accums {
		e.stageAccumulables(st)
	}
	j.close(']')
	j.kint("Resource Profile Id", int64(st.Profile))
	j.kbool("Shuffle Push Enabled", st.ShufflePushEnabled)
	j.kint("Shuffle Push Mergers Count", int64(st.ShuffleMergers))
	j.close('}')
}

// stageAccumulables writes the internal.metrics totals of the stage's
// successful tasks, then its named (user) accumulators.
func (e *encoder) stageAccumulables(st *model.Stage) {
	e.sum = model.TaskMetrics{}
	for i := range st.Tasks {
		if st.Tasks[i].Status == model.TaskSuccess && st.Tasks[i].HasMetrics {
			st.TaskMetrics(i, &e.m)
			for k, v := range e.m {
				e.sum[k] += v
			}
		}
	}
	e.internalAccumulables(st, &e.sum, false)
	for _, a := range st.Accumulables {
		e.userAccumulable(a)
	}
}

func (e *encoder) stageSubmitted(st *model.Stage) error {
	e.begin("SparkListenerStageSubmitted")
	e.j.key("Stage Info")
	e.stageInfo(st, st.Name, st.NumTasks, st.Submitted, 0, nil, false)
	if st.Properties != nil {
		e.j.kmap("Properties", st.Properties)
	}
	if err := e.end(); err != nil {
		return err
	}
	// Executors excluded for the stage (SparkListenerExecutorExcludedForStage,
	// Spark 3.1+), logged when the exclusion happened; the model keeps no time.
	for _, x := range st.ExcludedExecutors {
		if int(x) >= len(e.app.Executors) {
			continue
		}
		e.begin("SparkListenerExecutorExcludedForStage")
		e.j.kint("time", st.Submitted)
		e.j.kstr("executorId", e.app.Executors[x].ID)
		e.j.kint("taskFailures", 1)
		e.j.kint("stageId", int64(st.ID))
		e.j.kint("stageAttemptId", int64(st.Attempt))
		if err := e.end(); err != nil {
			return err
		}
	}
	return nil
}

func (e *encoder) stageCompleted(st *model.Stage) error {
	if err := e.stageExecutorMetrics(st); err != nil {
		return err
	}
	var failure *string
	if st.Status == model.StageFailed {
		failure = &st.Failure
	}
	e.begin("SparkListenerStageCompleted")
	e.j.key("Stage Info")
	e.stageInfo(st, st.Name, st.NumTasks, st.Submitted, st.Completed, failure, true)
	return e.end()
}

// stageExecutorMetrics writes SparkListenerStageExecutorMetrics, the peaks
// each executor reached during the stage, as EventLoggingListener logs them
// before the stage completes. The model keeps the stage's per-executor peaks
// (these events and the task-end executor metrics merged) and each executor's
// peaks over its life (these events only), so the value written is the
// element-wise minimum of the two: the task-end metrics carry the stage peaks
// in full, and the executor's own peaks are still reached.
func (e *encoder) stageExecutorMetrics(st *model.Stage) error {
	if len(st.ExecutorPeaks) == 0 {
		return nil
	}
	keys := make([]uint32, 0, len(st.ExecutorPeaks))
	for k := range st.ExecutorPeaks {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if int(k) >= len(e.app.Executors) {
			continue
		}
		x := e.app.Executors[k]
		p := st.ExecutorPeaks[k]
		if !x.Peak.Set || p == nil || !p.Set {
			continue
		}
		var m model.ExecutorMetrics
		for i := range m.Values {
			m.Values[i] = min(p.Values[i], x.Peak.Values[i])
		}
		m.Set = true
		e.begin("SparkListenerStageExecutorMetrics")
		e.j.kstr("Executor ID", x.ID)
		e.j.kint("Stage ID", int64(st.ID))
		e.j.kint("Stage Attempt ID", int64(st.Attempt))
		e.j.key("Executor Metrics")
		e.executorMetrics(&m)
		if err := e.end(); err != nil {
			return err
		}
	}
	return nil
}

// executorMetrics writes ExecutorMetrics as JsonProtocol.executorMetricsToJson:
// every metric type by name, or an empty object when none was recorded.
func (e *encoder) executorMetrics(m *model.ExecutorMetrics) {
	e.j.open('{')
	if m != nil && m.Set {
		for i, f := range executorMetricFields {
			e.j.nint(f, m.Values[i])
		}
	}
	e.j.close('}')
}

// executorMetricFields are the ready-made fields of
// model.ExecutorMetricNames: `"Name":` for the first, `,"Name":` after.
var executorMetricFields = func() []string {
	f := make([]string, len(model.ExecutorMetricNames))
	for i, name := range model.ExecutorMetricNames {
		b := jsonscan.AppendString(nil, name)
		if i > 0 {
			b = append([]byte{','}, b...)
		}
		f[i] = string(append(b, ':'))
	}
	return f
}()

// finale writes what the model keeps without a time: executor peaks of
// stages that never completed, and exclusions of executors and nodes
// (SparkListenerExecutorExcluded, SparkListenerNodeExcluded; an exclusion
// of a node also excludes its live executors, so those the model shows as
// not excluded are unexcluded after it).
func (e *encoder) finale() error {
	app := e.app
	for _, st := range app.Stages {
		if st.Status != model.StageComplete && st.Status != model.StageFailed {
			if err := e.stageExecutorMetrics(st); err != nil {
				return err
			}
		}
	}
	for _, host := range app.ExcludedNodes {
		e.begin("SparkListenerNodeExcluded")
		e.j.kint("time", e.last)
		e.j.kstr("hostId", host)
		e.j.kint("executorFailures", 1)
		if err := e.end(); err != nil {
			return err
		}
	}
	for _, x := range app.Executors {
		onNode := false
		for _, h := range app.ExcludedNodes {
			onNode = onNode || nodeExecutor(x, h)
		}
		switch {
		case x.Excluded:
			e.begin("SparkListenerExecutorExcluded")
		case onNode:
			e.begin("SparkListenerExecutorUnexcluded")
		default:
			continue
		}
		e.j.kint("time", e.last)
		e.j.kstr("executorId", x.ID)
		if x.Excluded {
			e.j.kint("taskFailures", 1)
		}
		if err := e.end(); err != nil {
			return err
		}
	}
	return nil
}
