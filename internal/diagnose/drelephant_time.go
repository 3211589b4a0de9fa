package diagnose

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/model"
)

// DrElephantTimeParams tune Dr. Elephant's Mapper Time and Reducer Time
// heuristics (mapreduce/heuristics/MapperTimeHeuristic.java,
// ReducerTimeHeuristic.java); the defaults are the classes', which
// app-conf/HeuristicConf.xml repeats.
type DrElephantTimeParams struct {
	// ShortRuntimeMinutes grades a short average task run time, in minutes,
	// smaller being worse (short_runtime_severity_in_min).
	ShortRuntimeMinutes Limits
	// LongRuntimeMinutes grades a long average task run time, in minutes
	// (long_runtime_severity_in_min).
	LongRuntimeMinutes Limits
	// NumTasks grades the number of tasks (num_tasks_severity); the
	// short-task severity is lowered to it, the long-task one is not.
	NumTasks Limits
}

// drDefaultTimeParams are MapperTimeHeuristic's and ReducerTimeHeuristic's defaults.
var drDefaultTimeParams = DrElephantTimeParams{
	ShortRuntimeMinutes: Limits{10, 4, 2, 1},
	LongRuntimeMinutes:  Limits{15, 30, 60, 120},
	NumTasks:            Limits{50, 101, 500, 1000},
}

// drTime is MapperTimeHeuristic.apply and ReducerTimeHeuristic.apply (app/com/linkedin/drelephant/mapreduce/heuristics/MapperTimeHeuristic.java, ReducerTimeHeuristic.java): the
// average run time of the tasks with time data (mappers: with time and
// counter data) graded as too short, lowered by the number of tasks, and as
// too long; the severity is the worse of the two.
func drTime(in *Input, p DrElephantTimeParams, kind model.StageKind) []Finding {
	app := in.App
	if !mrSucceeded(app) {
		return nil
	}
	tasks := mrTasks(app, kind)
	var run []int64
	var minMs, maxMs int64 = 0, 0
	for i := range tasks {
		t := &tasks[i]
		if !t.hasTime || kind == model.StageMap && !t.hasCounters {
			continue
		}
		if len(run) == 0 || t.totalMs < minMs {
			minMs = t.totalMs
		}
		maxMs = max(maxMs, t.totalMs)
		run = append(run, t.totalMs)
	}
	avg := drAverage(run)
	short, long := drScaled(p.ShortRuntimeMinutes, drMinuteMs), drScaled(p.LongRuntimeMinutes, drMinuteMs)
	sevShort := drMin(short.Descending(float64(avg)), p.NumTasks.Ascending(float64(len(tasks))))
	sevLong := long.Ascending(float64(avg))
	sev := max(sevShort, sevLong)
	if sev == None {
		return nil
	}
	word := mrWord(kind)
	f := Finding{
		Severity: sev,
		Scope:    mrStageScope(kind),
		Evidence: []Evidence{
			drGradedDown("avgRuntimeMs", float64(avg), "ms", short),
			graded("tasks", float64(len(tasks)), "count", p.NumTasks),
			graded("avgRuntimeMsLong", float64(avg), "ms", long),
			fact("minRuntimeMs", float64(minMs), "ms"),
			fact("maxRuntimeMs", float64(maxMs), "ms"),
		},
	}
	if sevLong >= sevShort {
		f.Summary = fmt.Sprintf("The %d %s tasks ran %s on average (longest %s): too long per task.", len(tasks), word, dur(avg), dur(maxMs))
		f.Recommendation = drTimeAdvice(kind, true)
	} else {
		f.Summary = fmt.Sprintf("The %d %s tasks ran only %s on average (shortest %s): too many short tasks.", len(tasks), word, dur(avg), dur(minMs))
		f.Recommendation = drTimeAdvice(kind, false)
	}
	return []Finding{f}
}

// drTimeAdvice is the gist of Dr. Elephant's helpMapperTime and helpReducerTime.
func drTimeAdvice(kind model.StageKind, long bool) string {
	switch {
	case kind == model.StageMap && long:
		return "Use more, smaller mappers: lower the split size (mapreduce.input.fileinputformat.split.maxsize)."
	case kind == model.StageMap:
		return "Use fewer, larger mappers: raise the split size (mapreduce.input.fileinputformat.split.minsize) or combine small input files."
	case long:
		return "Use more reducers (mapreduce.job.reduces) so each handles less data."
	}
	return "Use fewer reducers (mapreduce.job.reduces): each one starts a JVM for little work."
}
