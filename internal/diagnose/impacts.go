package diagnose

import (
	"fmt"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/perfmodel"
)

// The impacts of the findings whose detectors leave them to settle (the
// table impactOf), one function each.

func init() {
	for id, f := range map[string]func(*Input, *Finding) *Impact{
		"drelephant-spark-executor-gc": gcImpact(model.StageSpark),
		"drelephant-mapper-gc":         gcImpact(model.StageMap),
		"drelephant-reducer-gc":        gcImpact(model.StageReduce),
		"drelephant-mapper-skew":       drSkewImpact(model.StageMap),
		"drelephant-reducer-skew":      drSkewImpact(model.StageReduce),
		"drelephant-spark-jobs":        failureImpact,
		"drelephant-spark-stages":      failureImpact,
		"scheduling-gap":               schedulingImpact,
		"shuffle-gap":                  shuffleGapImpact,
		"sql-skewed-join":              skewImpact,
		"sql-idle-cores":               sqlIdleImpact,
	} {
		impactOf[id] = f
	}
}

// attemptMetric maps task attempt ids to one of their metrics, computed
// once per metric.
func (in *Input) attemptMetric(m model.Metric) map[int64]int64 {
	if v, ok := in.metricByTask[m]; ok {
		return v
	}
	out := map[int64]int64{}
	var tm model.TaskMetrics
	for _, st := range in.App.Stages {
		for i := range st.Tasks {
			if !st.Tasks[i].HasMetrics {
				continue
			}
			st.TaskMetrics(i, &tm)
			if tm[m] > 0 {
				out[st.Tasks[i].ID] = tm[m]
			}
		}
	}
	if in.metricByTask == nil {
		in.metricByTask = map[model.Metric]map[int64]int64{}
	}
	in.metricByTask[m] = out
	return out
}

// healthyGC is the share of a task's time in garbage collection that is
// taken as normal (clusterlens's; Dr. Elephant's Spark heuristic starts at
// 8%).
const healthyGC = 0.05

// gcImpact: the replay with every attempt's garbage collection beyond
// healthyGC of its time taken away, over the application (Spark) or the
// phase (MapReduce).
func gcImpact(kind model.StageKind) func(*Input, *Finding) *Impact {
	return func(in *Input, f *Finding) *Impact {
		w, err := in.Workload()
		if err != nil {
			return nil
		}
		gc := in.attemptMetric(model.JVMGCTime)
		return in.replayed(perfmodel.Edit{Duration: func(si, k int, d int64) int64 {
			s := &w.Stages[si]
			if kind != model.StageSpark && s.Kind != kind || k >= len(s.TaskIDs) {
				return d
			}
			return d - max(0, gc[s.TaskIDs[k]]-int64(healthyGC*float64(d)))
		}}, fmt.Sprintf("each task's garbage collection beyond %.0f%% of its time taken away", 100*healthyGC))
	}
}

// drSkewImpact: the phase's tasks in Dr. Elephant's larger group brought
// to the smaller group's average time.
func drSkewImpact(kind model.StageKind) func(*Input, *Finding) *Impact {
	return func(in *Input, f *Finding) *Impact {
		avgA, ok := evidenceOf(f, "timeGroupAAvgMs")
		w, err := in.Workload()
		if !ok || err != nil {
			return nil
		}
		si := slices.IndexFunc(w.Stages, func(s perfmodel.Stage) bool { return s.Kind == kind })
		return in.replayedStage(si, perfmodel.Edit{Duration: func(stage, k int, d int64) int64 {
			if s := &w.Stages[stage]; stage != si || k < len(s.Failed) && s.Failed[k] {
				return d
			}
			return min(d, int64(avgA))
		}}, "the phase's slow group brought to the fast group's average "+dur(int64(avgA)), in.limits())
	}
}

// failureImpact: the replay without the attempts that failed (the retries
// that followed them kept).
func failureImpact(in *Input, f *Finding) *Impact {
	w, err := in.Workload()
	if err != nil {
		return nil
	}
	failed := in.failedAttempts()
	if len(failed) == 0 {
		return nil
	}
	return in.replayed(perfmodel.Edit{Duration: func(si, k int, d int64) int64 {
		if s := &w.Stages[si]; k < len(s.TaskIDs) && failed[s.TaskIDs[k]] {
			return 0
		}
		return d
	}}, fmt.Sprintf("the %d failed attempts never made", len(failed)))
}

// failedAttempts are the ids of the attempts that failed (not killed: a
// speculative copy that lost its race, a task cancelled with its stage).
func (in *Input) failedAttempts() map[int64]bool {
	out := map[int64]bool{}
	app := in.App
	for _, st := range app.Stages {
		if st.Status == model.StageFailed && cancelled(st.Failure) {
			continue
		}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if t.Status != model.TaskFailed {
				continue
			}
			if int(t.Reason) < len(app.Reasons) {
				if r := app.Reasons[t.Reason]; r.Kind == "TaskKilled" || cancelled(r.Message) {
					continue
				}
			}
			out[t.ID] = true
		}
	}
	return out
}

// schedulingImpact: the run with every task launched as soon as a slot was
// free: the replay without the stages' launch delays, and the time the
// recorded run took beyond the replay (the replay launches a stage's tasks
// at once; the run waited for them). For a MapReduce job whose reduces
// started after its maps, the time the two could have overlapped.
func schedulingImpact(in *Input, f *Finding) *Impact {
	if lost, ok := evidenceOf(f, "overlappableMs"); ok {
		return in.measured(int64(lost), 0, "the map stage the reduces' shuffle could have overlapped")
	}
	p, c, ok := in.plan()
	if !ok {
		return nil
	}
	s, err := p.Without(perfmodel.Edit{StartDelay: func(int, int64) int64 { return 0 }})
	if err != nil {
		return nil
	}
	im := in.newImpact(max(0, c.RecordedMs-c.ModelMs)+s.WallMs, 0, MethodReplay, "every task launched as soon as a slot was free")
	im.ModelError = c.ModelError
	return im
}

// shuffleGapImpact: the shuffle's time after the last map (MapReduce) or a
// Spark stage's fetch wait per slot, as measured.
func shuffleGapImpact(in *Input, f *Finding) *Impact {
	gap, ok := evidenceOf(f, "gapMs")
	if !ok {
		return nil
	}
	what := "the shuffle's time after the last map"
	if f.Scope.Kind == ScopeStage {
		what = "the stage's shuffle fetch wait per slot"
	}
	return in.measured(int64(gap), 0, what)
}

// sqlIdleImpact: the query's idle slot time while its tasks waited, as wall
// time over its slots.
func sqlIdleImpact(in *Input, f *Finding) *Impact {
	share, ok := evidenceOf(f, "waitingIdleShare")
	wall, ok2 := evidenceOf(f, "wallMs")
	if !ok || !ok2 {
		return nil
	}
	return in.newImpact(int64(share*wall), 0, MethodEstimate, "the query's slots idle while its tasks waited")
}
