package diagnose

import (
	"fmt"
	"strconv"
	"strings"
)

// DrElephantSparkJobsParams tune Dr. Elephant's Spark Job Metrics heuristic
// (spark/heuristics/JobsHeuristic.scala); the defaults are the object's
// (the severe and critical limits are equal there: 0.5 is critical).
type DrElephantSparkJobsParams struct {
	// JobFailureRate grades failed / (succeeded + failed) jobs
	// (job_failure_rate_severity_thresholds).
	JobFailureRate Limits
	// TaskFailureRate grades each job's failed / (completed + failed) tasks
	// (job_task_failure_rate_severity_thresholds).
	TaskFailureRate Limits
}

// DefaultDrElephantSparkJobsParams are JobsHeuristic's defaults.
var DefaultDrElephantSparkJobsParams = DrElephantSparkJobsParams{
	JobFailureRate:  Limits{0.1, 0.3, 0.5, 0.5},
	TaskFailureRate: Limits{0.1, 0.3, 0.5, 0.5},
}

func init() {
	mustRegister(Func[DrElephantSparkJobsParams]{
		ID:       "drelephant-spark-jobs",
		Heading:  "Failed jobs and tasks (Dr. Elephant)",
		Cite:     drSource + "app/com/linkedin/drelephant/spark/heuristics/JobsHeuristic.scala",
		Defaults: DefaultDrElephantSparkJobsParams,
		Fn:       drSparkJobs,
	})
}

// drSparkJobs is JobsHeuristic's Evaluator (app/com/linkedin/drelephant/spark/heuristics/JobsHeuristic.scala): the job failure rate and every
// job's task failure rate graded; the severity is the worst. Jobs whose task
// failure rate is above moderate are listed, as Dr. Elephant lists them.
func drSparkJobs(in *Input, p DrElephantSparkJobsParams) []Finding {
	r, err := fetchSparkREST(in)
	if err != nil {
		return nil
	}
	return jobsFindings(r, p, in.appScope())
}

// jobsFindings grades the jobs of r.
func jobsFindings(r *sparkREST, p DrElephantSparkJobsParams, scope Scope) []Finding {
	var done, failed int
	var failedIDs, highIDs []string
	var listed []Evidence // the jobs Dr. Elephant lists: task failure rate above moderate
	worstRate, worstJob := 0.0, ""
	sev := None
	for _, j := range r.jobs {
		switch j.Status {
		case "SUCCEEDED":
			done++
		case "FAILED":
			failed++
			failedIDs = append(failedIDs, strconv.Itoa(int(j.JobID)))
		}
		rate := drFailureRate(j.NumCompletedTasks, j.NumFailedTasks)
		s := p.TaskFailureRate.Ascending(rate)
		sev = max(sev, s)
		if s > Moderate {
			highIDs = append(highIDs, strconv.Itoa(int(j.JobID)))
			listed = append(listed, graded(fmt.Sprintf("job%dTaskFailureRate", j.JobID), rate, "share", p.TaskFailureRate))
		}
		if rate > worstRate || worstJob == "" {
			worstRate, worstJob = rate, strconv.Itoa(int(j.JobID))
		}
	}
	jobRate := drFailureRate(int64(done), int64(failed))
	sev = max(sev, p.JobFailureRate.Ascending(jobRate))
	if sev == None {
		return nil
	}
	return []Finding{{
		Severity: sev,
		Scope:    scope,
		Summary: fmt.Sprintf("%d of %d jobs failed (%s, jobs %v); the highest task failure rate of a job is %s (job %s); jobs whose task failure rate is severe or worse: %s.",
			failed, done+failed, pct(jobRate), failedIDs, pct(worstRate), worstJob, listOrNone(highIDs)),
		Evidence: append([]Evidence{
			graded("jobFailureRate", jobRate, "share", p.JobFailureRate),
			graded("maxJobTaskFailureRate", worstRate, "share", p.TaskFailureRate),
			fact("succeededJobs", float64(done), "count"),
			fact("failedJobs", float64(failed), "count"),
			fact("jobsWithHighTaskFailureRate", float64(len(highIDs)), "count"),
		}, listed...),
		Recommendation: "Read the failed tasks' errors (executor lost, out of memory, fetch failures): raise executor memory or memory overhead for OOM kills, and fix the data or code for exceptions that repeat.",
	}}
}

// drFailureRate is failed / (completed + failed), 0 when there are none
// (Dr. Elephant's getOrElse(0.0)).
func drFailureRate(completed, failed int64) float64 {
	if completed+failed == 0 {
		return 0
	}
	return float64(failed) / float64(completed+failed)
}

// listOrNone joins ids with ", ", or says "none".
func listOrNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}
