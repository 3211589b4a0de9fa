package diagnose

import (
	"fmt"

	"github.com/clusterlens/clusterlens/internal/model"
)

// DrElephantGCParams tune Dr. Elephant's Mapper GC and Reducer GC heuristics
// (mapreduce/heuristics/GenericGCHeuristic.java); the defaults are the
// class's, which app-conf/HeuristicConf.xml repeats.
type DrElephantGCParams struct {
	// GCRatio grades the average task GC time over the average task CPU
	// time (gc_ratio_severity).
	GCRatio Limits
	// RuntimeMinutes grades the average task run time in minutes
	// (runtime_severity_in_min); the GC severity is lowered to it.
	RuntimeMinutes Limits
}

// drDefaultGCParams are GenericGCHeuristic's defaults.
var drDefaultGCParams = DrElephantGCParams{
	GCRatio:        Limits{0.01, 0.02, 0.03, 0.04},
	RuntimeMinutes: Limits{5, 10, 12, 15},
}

// drGC is GenericGCHeuristic.apply (app/com/linkedin/drelephant/mapreduce/heuristics/GenericGCHeuristic.java): over the tasks with times and counters,
// the ratio of the average GC_MILLISECONDS to the average CPU_MILLISECONDS,
// lowered to the grade of the average run time.
func drGC(in *Input, p DrElephantGCParams, kind model.StageKind) []Finding {
	app := in.App
	if !mrSucceeded(app) {
		return nil
	}
	tasks := mrTasks(app, kind)
	if len(tasks) == 0 {
		return nil
	}
	var gc, cpu, run []int64
	for i := range tasks {
		if t := &tasks[i]; t.hasTime && t.hasCounters {
			run = append(run, t.totalMs)
			gc = append(gc, t.gcMs)
			cpu = append(cpu, t.cpuMs)
		}
	}
	avgRun, avgCPU, avgGC := drAverage(run), drAverage(cpu), drAverage(gc)
	ratio := float64(avgGC) / float64(avgCPU) // Java: NaN or Infinity when avgCPU is 0
	runtime := drScaled(p.RuntimeMinutes, drMinuteMs)
	sev := drMin(p.GCRatio.Ascending(ratio), runtime.Ascending(float64(avgRun)))
	if sev == None {
		return nil
	}
	word := mrWord(kind)
	return []Finding{{
		Severity: sev,
		Scope:    mrStageScope(kind),
		Summary: fmt.Sprintf("The %s tasks spent %.3f of their CPU time in garbage collection (average GC %s, CPU %s) over an average run of %s.",
			word, drFinite(ratio), dur(avgGC), dur(avgCPU), dur(avgRun)),
		Evidence: []Evidence{
			graded("gcCpuRatio", drFinite(ratio), "ratio", p.GCRatio),
			graded("avgRuntimeMs", float64(avgRun), "ms", runtime),
			fact("avgGcMs", float64(avgGC), "ms"),
			fact("avgCpuMs", float64(avgCPU), "ms"),
			fact("tasks", float64(len(tasks)), "count"),
		},
		Recommendation: fmt.Sprintf("Give the %s JVMs more heap (mapreduce.%s.java.opts -Xmx, with mapreduce.%s.memory.mb to match) or make the %s function allocate less (reuse objects, avoid large in-memory collections).",
			word, word, word, word),
	}}
}
