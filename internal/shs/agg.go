package shs

import (
	"sort"

	"github.com/clusterlens/clusterlens/internal/model"
)

// appView holds what AppStatusListener accumulates while replaying one
// attempt's log, recomputed from the model's stages and task attempts.
type appView struct {
	app    *model.App
	stages []*stageAgg // parallel to app.Stages
	jobs   []*jobAgg   // parallel to app.Jobs
	execs  []execAgg   // parallel to app.Executors
	now    func() int64
}

// stageAgg is a LiveStage's counters.
type stageAgg struct {
	st                               *model.Stage
	active, complete, failed, killed int64
	completedIndices                 int64
	killedSummary                    Counts
	sum                              model.TaskMetrics
	firstLaunch                      int64 // 0 when no task started
	// peak is the stage's peak executor metrics. Every task end carries
	// executor metrics (zeros when the log has none), so a stage with an
	// ended task has its peak set.
	peak  model.ExecutorMetrics
	execs []*execStageAgg
	spec  *SpeculationStageSummary
}

// execStageAgg is a LiveExecutorStageSummary's counters.
type execStageAgg struct {
	exec                      uint32
	id                        string
	taskTime                  int64
	succeeded, failed, killed int64
	sum                       model.TaskMetrics
	excluded                  bool
	peak                      model.ExecutorMetrics
}

// jobAgg is a LiveJob's counters.
type jobAgg struct {
	active, completed, failed, killed int64
	completedIndices                  int64
	indices                           map[int32]*indexSet // by stage id: its succeeded task indices
	killedSummary                     Counts
	skippedTasks                      int64
	activeStages, failedStages        int64
	completedStages, skippedStages    map[int32]struct{}
}

// execAgg is a LiveExecutor's task counters.
type execAgg struct {
	active, failed, completed, total int64
	duration, gc, input              int64
	shuffleRead, shuffleWrite        int64
	// peak are the executor's peak metrics: its StageExecutorMetrics peaks
	// and the executor metrics of the tasks that ended on it while alive.
	peak model.ExecutorMetrics
}

// newAppView replays the counters of a.
func newAppView(a *model.App, now func() int64) *appView {
	v := &appView{app: a, now: now, stages: make([]*stageAgg, len(a.Stages)), jobs: make([]*jobAgg, len(a.Jobs)),
		execs: make([]execAgg, len(a.Executors))}
	for i, e := range a.Executors {
		v.execs[i].peak = e.Peak
	}
	jobIndex := make(map[int32]int, len(a.Jobs))
	for i, j := range a.Jobs {
		jobIndex[j.ID] = i
		v.jobs[i] = &jobAgg{indices: map[int32]*indexSet{}, completedStages: map[int32]struct{}{},
			skippedStages: map[int32]struct{}{}}
	}
	var m model.TaskMetrics
	for si, st := range a.Stages {
		sa := &stageAgg{st: st, peak: st.PeakExecutor}
		v.stages[si] = sa
		var jobs []*jobAgg
		for _, id := range st.JobIDs {
			if ji, ok := jobIndex[id]; ok {
				jobs = append(jobs, v.jobs[ji])
			}
		}
		v.stageJobs(sa, jobs)
		byExec := map[uint32]*execStageAgg{}
		execSum := func(e uint32) *execStageAgg {
			es := byExec[e]
			if es == nil {
				es = &execStageAgg{exec: e, id: execID(a, e)}
				byExec[e] = es
				sa.execs = append(sa.execs, es)
			}
			return es
		}
		indices := newIndexSet(st)
		jobIndices := make([]*indexSet, len(jobs))
		for k, j := range jobs {
			if jobIndices[k] = j.indices[st.ID]; jobIndices[k] == nil {
				jobIndices[k] = newIndexSet(st)
				j.indices[st.ID] = jobIndices[k]
			}
		}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if sa.firstLaunch == 0 || t.Launch < sa.firstLaunch {
				sa.firstLaunch = t.Launch
			}
			out, killKey := taskOutcome(a, t)
			var has bool
			if out != outRunning && hasMetrics(t) {
				st.TaskMetrics(i, &m)
				has = true
				addMetrics(&sa.sum, &m)
			}
			v.countExecutor(t, out, has, &m)
			if t.Speculative {
				if sa.spec == nil {
					sa.spec = &SpeculationStageSummary{}
				}
				sa.spec.NumTasks++
				countSpec(sa.spec, out)
			}
			if out == outRunning {
				sa.active++
				for _, j := range jobs {
					j.active++
				}
				continue
			}
			es := execSum(t.Executor)
			es.peak.Set = true
			sa.peak.Set = true
			es.taskTime += taskDuration(t, 0)
			if has {
				addMetrics(&es.sum, &m)
			}
			switch out {
			case outSucceeded:
				sa.complete++
				es.succeeded++
				indices.add(t.Index)
			case outFailed:
				sa.failed++
				es.failed++
			case outKilled:
				sa.killed++
				es.killed++
				sa.killedSummary = sa.killedSummary.add(killKey)
			}
			for k, j := range jobs {
				switch out {
				case outSucceeded:
					j.completed++
					if jobIndices[k].add(t.Index) {
						j.completedIndices++
					}
				case outFailed:
					j.failed++
				case outKilled:
					j.killed++
					j.killedSummary = j.killedSummary.add(killKey)
				}
			}
		}
		sa.completedIndices = indices.n
		for e, p := range st.ExecutorPeaks {
			if p != nil && p.Set {
				execSum(e).peak.Peak(p)
				if int(e) < len(v.execs) {
					v.execs[e].peak.Peak(p)
				}
			}
		}
		for _, e := range st.ExcludedExecutors {
			execSum(e).excluded = true
		}
		sort.SliceStable(sa.execs, func(i, j int) bool { return sa.execs[i].id < sa.execs[j].id })
	}
	return v
}

// stageJobs adds a stage attempt's state to the counters of its jobs.
func (v *appView) stageJobs(sa *stageAgg, jobs []*jobAgg) {
	st := sa.st
	for _, j := range jobs {
		switch st.Status {
		case model.StageActive:
			j.activeStages++
			delete(j.completedStages, st.ID)
		case model.StageComplete:
			j.completedStages[st.ID] = struct{}{}
		case model.StageFailed:
			j.failedStages++
			delete(j.completedStages, st.ID)
		case model.StageSkipped:
			if _, dup := j.skippedStages[st.ID]; !dup {
				j.skippedTasks += int64(st.NumTasks)
			}
			j.skippedStages[st.ID] = struct{}{}
		}
	}
}

// countExecutor adds an attempt to its executor's totals as Spark does
// while the executor is alive: attempts that start or end after the
// executor was removed are not counted.
func (v *appView) countExecutor(t *model.Task, out outcome, has bool, m *model.TaskMetrics) {
	if int(t.Executor) >= len(v.execs) {
		return
	}
	ex := v.app.Executors[t.Executor]
	if ex.Removed > 0 && t.Launch > ex.Removed {
		return
	}
	e := &v.execs[t.Executor]
	e.total++
	if out == outRunning {
		e.active++
		return
	}
	if ex.Removed > 0 && t.Finish > ex.Removed {
		e.active++ // Spark never saw it end
		return
	}
	switch out {
	case outSucceeded:
		e.completed++
	case outFailed:
		e.failed++
	}
	e.peak.Set = true
	e.duration += taskDuration(t, 0)
	// Spark does not add a Resubmitted end's metrics to the executor totals.
	if has && !v.app.Resubmitted(t) {
		e.gc += m[model.JVMGCTime]
		e.input += m[model.InputBytes]
		e.shuffleRead += m.ShuffleReadBytes()
		e.shuffleWrite += m[model.ShuffleWriteBytes]
	}
}

// countSpec counts a speculative attempt's outcome.
func countSpec(s *SpeculationStageSummary, out outcome) {
	switch out {
	case outRunning:
		s.NumActiveTasks++
	case outSucceeded:
		s.NumCompletedTasks++
	case outFailed:
		s.NumFailedTasks++
	case outKilled:
		s.NumKilledTasks++
	}
}

// addMetrics adds m to sum.
func addMetrics(sum, m *model.TaskMetrics) {
	for i := range sum {
		sum[i] += m[i]
	}
}

// execID returns the id of executor index e.
func execID(a *model.App, e uint32) string {
	if int(e) < len(a.Executors) {
		return a.Executors[e].ID
	}
	return ""
}
