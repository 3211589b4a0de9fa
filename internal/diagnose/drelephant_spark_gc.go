package diagnose

import "fmt"

// DrElephantExecutorGCParams tune Dr. Elephant's Executor GC heuristic
// (spark/heuristics/ExecutorGcHeuristic.scala); the defaults are the
// object's.
type DrElephantExecutorGCParams struct {
	// GCRatio grades the executors' total GC time over their total task
	// time (gc_severity_A_threshold: 0.08, 0.1, 0.15, 0.2).
	GCRatio Limits
	// LowGCRatio are the descending limits (gc_severity_D_threshold: 0.05,
	// 0.04, 0.03, 0.01) under which Dr. Elephant adds a "GC ratio low" note;
	// they never set the severity, and a ratio under them is below GCRatio's
	// low limit, so no finding carries them.
	LowGCRatio Limits
}

// DefaultDrElephantExecutorGCParams are ExecutorGcHeuristic's defaults.
var DefaultDrElephantExecutorGCParams = DrElephantExecutorGCParams{
	GCRatio:    Limits{0.08, 0.1, 0.15, 0.2},
	LowGCRatio: Limits{0.05, 0.04, 0.03, 0.01},
}

func init() {
	mustRegister(Func[DrElephantExecutorGCParams]{
		ID:       "drelephant-spark-executor-gc",
		Heading:  "Executor garbage collection (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/spark/heuristics/ExecutorGcHeuristic.scala",
		Defaults: DefaultDrElephantExecutorGCParams,
		Fn:       drSparkExecutorGC,
	})
}

// drSparkExecutorGC is ExecutorGcHeuristic's Evaluator (app/com/linkedin/drelephant/spark/heuristics/ExecutorGcHeuristic.scala): over the executors
// other than the driver, total GC time (totalGCTime) over total task time
// (totalDuration), graded ascending.
func drSparkExecutorGC(in *Input, p DrElephantExecutorGCParams) []Finding {
	r, err := fetchSparkREST(in)
	if err != nil {
		return nil
	}
	fs := executorGCFindings(r, p, in.appScope())
	for i := range fs {
		in.photonGC(&fs[i])
	}
	return fs
}

// executorGCFindings grades the executor summaries of r.
func executorGCFindings(r *sparkREST, p DrElephantExecutorGCParams, scope Scope) []Finding {
	var gc, run int64
	n := 0
	for _, e := range r.executors {
		if e.ID == "driver" {
			continue
		}
		gc += e.TotalGCTime
		run += e.TotalDuration
		n++
	}
	ratio := float64(gc) / float64(run) // NaN with no task time grades as none
	sev := p.GCRatio.Ascending(ratio)
	if sev == None {
		return nil
	}
	return []Finding{{
		Severity: sev,
		Scope:    scope,
		Summary: fmt.Sprintf("Executors spent %s of their task time in garbage collection (%s of %s over %d executors).",
			pct(ratio), dur(gc), dur(run), n),
		Evidence: []Evidence{
			graded("gcRatio", drFinite(ratio), "share", p.GCRatio),
			fact("totalGcMs", float64(gc), "ms"),
			fact("totalExecutorRuntimeMs", float64(run), "ms"),
			fact("executors", float64(n), "executors"),
		},
		Recommendation: "The job is spending too much time on GC: increase the executor memory (spark.executor.memory), or use fewer cores per executor (spark.executor.cores) so each task gets more heap.",
	}}
}
