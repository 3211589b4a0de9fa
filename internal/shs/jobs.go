package shs

import (
	"sort"
	"strings"
)

// jobStatuses are Spark's JobExecutionStatus names.
var jobStatuses = []string{"RUNNING", "SUCCEEDED", "FAILED", "UNKNOWN"}

// Spark's job properties.
const (
	propJobDescription = "spark.job.description"
	propJobGroup       = "spark.jobGroup.id"
	propJobTags        = "spark.job.tags"
	propSchedulerPool  = "spark.scheduler.pool"
)

// jobList answers /jobs?status=...: jobs in descending id order.
func (v *appView) jobList(statuses []string) []JobData {
	order := make([]int, len(v.app.Jobs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return v.app.Jobs[order[i]].ID > v.app.Jobs[order[j]].ID })
	out := []JobData{}
	for _, i := range order {
		jd := v.jobData(i)
		if len(statuses) == 0 || contains(statuses, jd.Status) {
			out = append(out, jd)
		}
	}
	return out
}

// oneJob answers /jobs/{jobId}.
func (v *appView) oneJob(id int32) (JobData, *Error) {
	for i, j := range v.app.Jobs {
		if j.ID == id {
			return v.jobData(i), nil
		}
	}
	return JobData{}, notFound("unknown job: %d", id)
}

// jobData builds a LiveJob's JobData.
func (v *appView) jobData(i int) JobData {
	j, ag := v.app.Jobs[i], v.jobs[i]
	jd := JobData{
		JobID:               j.ID,
		Name:                j.Name,
		Description:         prop(j.Properties, propJobDescription),
		StageIDs:            nonNilInts(j.StageIDs),
		JobGroup:            prop(j.Properties, propJobGroup),
		JobTags:             jobTags(j.Properties),
		Status:              j.Status.String(),
		NumTasks:            j.NumTasks,
		NumActiveTasks:      ag.active,
		NumCompletedTasks:   ag.completed,
		NumSkippedTasks:     ag.skippedTasks,
		NumFailedTasks:      ag.failed,
		NumKilledTasks:      ag.killed,
		NumCompletedIndices: ag.completedIndices,
		NumActiveStages:     ag.activeStages,
		NumCompletedStages:  int64(len(ag.completedStages)),
		NumSkippedStages:    int64(len(ag.skippedStages)),
		NumFailedStages:     ag.failedStages,
		KilledTasksSummary:  nonNilCounts(ag.killedSummary),
	}
	if jd.Description == nil && j.Description != "" {
		d := j.Description
		jd.Description = &d
	}
	if jd.JobGroup == nil && j.Group != "" {
		g := j.Group
		jd.JobGroup = &g
	}
	if j.Submitted > 0 {
		jd.SubmissionTime = datePtr(j.Submitted)
	}
	if j.Completed > 0 {
		jd.CompletionTime = datePtr(j.Completed)
	}
	return jd
}

// jobTags are the job's spark.job.tags, split on commas, without empties,
// de-duplicated and sorted, as Spark 3.5 reports them.
func jobTags(props [][2]string) []string {
	tags := []string{}
	p := prop(props, propJobTags)
	if p == nil {
		return tags
	}
	seen := map[string]bool{}
	for _, t := range strings.Split(*p, ",") {
		if t != "" && !seen[t] {
			seen[t] = true
			tags = append(tags, t)
		}
	}
	sort.Strings(tags)
	return tags
}

// prop returns a property's value, or nil when it is not set.
func prop(props [][2]string, key string) *string {
	for _, kv := range props {
		if kv[0] == key {
			v := kv[1]
			return &v
		}
	}
	return nil
}

// nonNilInts returns s, or an empty slice for nil (Spark writes []).
func nonNilInts(s []int32) []int32 {
	if s == nil {
		return []int32{}
	}
	return s
}

// nonNilCounts returns c, or an empty Counts for nil (Spark writes {}).
func nonNilCounts(c Counts) Counts {
	if c == nil {
		return Counts{}
	}
	return c
}
