package diagnose

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/model"
)

// DrElephantShuffleSortParams tune Dr. Elephant's Shuffle & Sort heuristic
// (mapreduce/heuristics/ShuffleSortHeuristic.java); the defaults are the
// class's, which app-conf/HeuristicConf.xml repeats.
type DrElephantShuffleSortParams struct {
	// RuntimeRatio grades 2 × the average shuffle (or sort) time over the
	// average code time, in whole numbers (runtime_ratio_severity).
	RuntimeRatio Limits
	// RuntimeMinutes grades the average shuffle (or sort) time in minutes
	// (runtime_severity_in_min); the ratio severity is lowered to it.
	RuntimeMinutes Limits
}

// DefaultDrElephantShuffleSortParams are ShuffleSortHeuristic's defaults.
var DefaultDrElephantShuffleSortParams = DrElephantShuffleSortParams{
	RuntimeRatio:   Limits{1, 2, 4, 8},
	RuntimeMinutes: Limits{1, 5, 10, 30},
}

func init() {
	mustRegister(Func[DrElephantShuffleSortParams]{
		ID:       "drelephant-shuffle-sort",
		Heading:  "Shuffle and sort (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/mapreduce/heuristics/ShuffleSortHeuristic.java",
		Defaults: DefaultDrElephantShuffleSortParams,
		Fn:       drShuffleSort,
	})
}

// drShuffleSort is ShuffleSortHeuristic.apply (app/com/linkedin/drelephant/mapreduce/heuristics/ShuffleSortHeuristic.java): over the reduce tasks with
// time data, the average shuffle time (shuffle end − start) and sort time
// (sort end − shuffle end), each graded by its length and by 2 × itself over
// the average code time (the rest of the task, integer division), taking
// the milder; the severity is the worse of shuffle and sort. Reduces whose
// history lacks a phase end are left out (Hadoop reports −1 there, which
// Dr. Elephant would subtract).
func drShuffleSort(in *Input, p DrElephantShuffleSortParams) []Finding {
	app := in.App
	if !mrSucceeded(app) {
		return nil
	}
	tasks := mrTasks(app, model.StageReduce)
	var exec, shuffle, sort []int64
	for i := range tasks {
		if t := &tasks[i]; t.hasTime && t.phases {
			exec = append(exec, t.codeMs())
			shuffle = append(shuffle, t.shuffleMs)
			sort = append(sort, t.sortMs)
		}
	}
	avgExec, avgShuffle, avgSort := drAverage(exec), drAverage(shuffle), drAverage(sort)
	runtime := drScaled(p.RuntimeMinutes, drMinuteMs)
	shuffleSev, shuffleRatio := drPhaseSeverity(avgShuffle, avgExec, runtime, p.RuntimeRatio)
	sortSev, sortRatio := drPhaseSeverity(avgSort, avgExec, runtime, p.RuntimeRatio)
	sev := max(shuffleSev, sortSev)
	if sev == None {
		return nil
	}
	return []Finding{{
		Severity: sev,
		Scope:    mrStageScope(model.StageReduce),
		Summary: fmt.Sprintf("The reduce tasks spent %s shuffling (%s) and %s sorting (%s) on average against %s running reduce code.",
			dur(avgShuffle), shuffleSev, dur(avgSort), sortSev, dur(avgExec)),
		Evidence: []Evidence{
			graded("avgShuffleMs", float64(avgShuffle), "ms", runtime),
			graded("shuffleRatio", float64(shuffleRatio), "ratio", p.RuntimeRatio),
			graded("avgSortMs", float64(avgSort), "ms", runtime),
			graded("sortRatio", float64(sortRatio), "ratio", p.RuntimeRatio),
			fact("avgCodeMs", float64(avgExec), "ms"),
			fact("tasks", float64(len(tasks)), "count"),
		},
		Recommendation: "Start reducers later (raise mapreduce.job.reduce.slowstart.completedmaps toward 1) so they do not wait idle for maps, shrink the shuffle (a combiner, mapreduce.map.output.compress), or give the reduce-side merge more memory (mapreduce.reduce.shuffle.input.buffer.percent).",
	}}
}

// drPhaseSeverity is ShuffleSortHeuristic.getShuffleSortSeverity: the phase's
// run time graded, lowered to the grade of 2 × phase / code time unless the
// code time is not positive. ratio is that whole-number ratio (0 when unused).
func drPhaseSeverity(phaseMs, codeMs int64, runtime, ratioLimits Limits) (Severity, int64) {
	sev := runtime.Ascending(float64(phaseMs))
	if codeMs <= 0 {
		return sev, 0
	}
	ratio := phaseMs * 2 / codeMs
	return drMin(sev, ratioLimits.Ascending(float64(ratio))), ratio
}
