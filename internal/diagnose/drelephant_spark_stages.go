package diagnose

import (
	"fmt"
	"strconv"
)

// DrElephantSparkStagesParams tune Dr. Elephant's Spark Stage Metrics
// heuristic (spark/heuristics/StagesHeuristic.scala); the defaults are the
// object's (the severe and critical failure-rate limits are equal there).
type DrElephantSparkStagesParams struct {
	// StageFailureRate grades failed / (complete + failed) stages
	// (stage_failure_rate_severity_thresholds).
	StageFailureRate Limits
	// TaskFailureRate grades each stage's failed / (complete + failed)
	// tasks (stage_task_failure_rate_severity_thresholds).
	TaskFailureRate Limits
	// RuntimeMinutes grades each stage's executor run time divided by the
	// executor count, in minutes (stage_runtime_minutes_severity_thresholds).
	RuntimeMinutes Limits
}

// DefaultDrElephantSparkStagesParams are StagesHeuristic's defaults.
var DefaultDrElephantSparkStagesParams = DrElephantSparkStagesParams{
	StageFailureRate: Limits{0.1, 0.3, 0.5, 0.5},
	TaskFailureRate:  Limits{0.1, 0.3, 0.5, 0.5},
	RuntimeMinutes:   Limits{15, 30, 45, 60},
}

func init() {
	mustRegister(Func[DrElephantSparkStagesParams]{
		ID:       "drelephant-spark-stages",
		Heading:  "Failed and long stages (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/spark/heuristics/StagesHeuristic.scala",
		Defaults: DefaultDrElephantSparkStagesParams,
		Fn:       drSparkStages,
	})
}

// drSparkStages is StagesHeuristic's Evaluator (app/com/linkedin/drelephant/spark/heuristics/StagesHeuristic.scala): the stage failure rate, every
// stage attempt's task failure rate, and every stage's executorRunTime /
// executor instances (spark.executor.instances, else the number of
// executors listed) graded; the severity is the worst. With no executors
// the run time is not graded (Dr. Elephant divides by zero).
func drSparkStages(in *Input, p DrElephantSparkStagesParams) []Finding {
	r, err := fetchSparkREST(in)
	if err != nil {
		return nil
	}
	return stagesFindings(r, in.App.Env.SparkProp, p, in.appScope())
}

// stagesFindings grades the stages of r with the application's Spark
// properties prop.
func stagesFindings(r *sparkREST, prop func(string) (string, bool), p DrElephantSparkStagesParams, scope Scope) []Finding {
	instances := int64(len(r.executors))
	if v, ok := prop("spark.executor.instances"); ok {
		if n, err := strconv.Atoi(v); err == nil {
			instances = int64(n)
		}
	}
	runtime := drScaled(p.RuntimeMinutes, drMinuteMs)
	var done, failed int
	var highFail, longRun []string
	var listed []Evidence // the stages Dr. Elephant lists: above moderate
	worstRate, worstRun := 0.0, int64(0)
	sev := None
	for _, s := range r.stages {
		switch s.Status {
		case "COMPLETE":
			done++
		case "FAILED":
			failed++
		}
		name := fmt.Sprintf("%d.%d", s.StageID, s.AttemptID)
		rate := drFailureRate(s.NumCompleteTasks, s.NumFailedTasks)
		rs := p.TaskFailureRate.Ascending(rate)
		if rs > Moderate {
			highFail = append(highFail, name)
			listed = append(listed, graded("stage"+name+"TaskFailureRate", rate, "share", p.TaskFailureRate))
		}
		worstRate = max(worstRate, rate)
		sev = max(sev, rs)
		if instances != 0 {
			avg := s.ExecutorRunTime / instances
			ts := runtime.Ascending(float64(avg))
			if ts > Moderate {
				longRun = append(longRun, name)
				listed = append(listed, graded("stage"+name+"RuntimePerExecutorMs", float64(avg), "ms", runtime))
			}
			worstRun = max(worstRun, avg)
			sev = max(sev, ts)
		}
	}
	stageRate := drFailureRate(int64(done), int64(failed))
	sev = max(sev, p.StageFailureRate.Ascending(stageRate))
	if sev == None {
		return nil
	}
	return []Finding{{
		Severity: sev,
		Scope:    scope,
		Summary: fmt.Sprintf("%d of %d stages failed (%s); the highest task failure rate of a stage is %s (severe or worse: %s); the longest executor run time per executor of a stage is %s (severe or worse: %s).",
			failed, done+failed, pct(stageRate), pct(worstRate), listOrNone(highFail), dur(worstRun), listOrNone(longRun)),
		Evidence: append([]Evidence{
			graded("stageFailureRate", stageRate, "share", p.StageFailureRate),
			graded("maxStageTaskFailureRate", worstRate, "share", p.TaskFailureRate),
			graded("maxStageRuntimePerExecutorMs", float64(worstRun), "ms", runtime),
			fact("completeStages", float64(done), "count"),
			fact("failedStages", float64(failed), "count"),
			fact("executorInstances", float64(instances), "executors"),
			fact("stagesWithHighTaskFailureRate", float64(len(highFail)), "count"),
			fact("stagesWithLongRuntime", float64(len(longRun)), "count"),
		}, listed...),
		Recommendation: "For failing tasks, read their errors (memory, fetch failures, bad records); for long stages, add executors (spark.executor.instances) or split the stage's work into more partitions.",
	}}
}
