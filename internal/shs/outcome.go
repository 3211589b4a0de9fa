package shs

import "github.com/clusterlens/clusterlens/internal/model"

// outcome is how Spark's AppStatusListener counts a task attempt.
type outcome uint8

// Outcomes: a TaskKilled or TaskCommitDenied end counts as killed, Success as
// completed, every other end reason (Resubmitted included) as failed.
const (
	outRunning outcome = iota
	outSucceeded
	outFailed
	outKilled
)

// taskOutcome classifies t and, for a killed attempt, returns the key Spark
// counts it under in killedTasksSummary (the kill reason, or a commit
// denial's error string).
func taskOutcome(a *model.App, t *model.Task) (outcome, string) {
	if t.Status == model.TaskRunning {
		return outRunning, ""
	}
	r := reasonOf(a, t)
	switch r.Kind {
	case "TaskKilled", "TaskCommitDenied":
		return outKilled, r.Message
	case "", "Success":
		switch t.Status {
		case model.TaskSuccess:
			return outSucceeded, ""
		case model.TaskKilled:
			return outKilled, r.Message
		}
	}
	return outFailed, ""
}

// reasonOf returns t's end reason, or the zero Reason.
func reasonOf(a *model.App, t *model.Task) model.Reason {
	if int(t.Reason) < len(a.Reasons) {
		return a.Reasons[t.Reason]
	}
	return model.Reason{}
}

// taskStatus is TaskInfo.status: "GET RESULT" for a running attempt whose
// result is being fetched.
func taskStatus(t *model.Task) string {
	if t.Status == model.TaskRunning && t.GettingResult > 0 {
		return "GET RESULT"
	}
	return t.Status.String()
}

// taskDuration is the duration Spark stores for an attempt: finish - launch
// once finished, else the time it has been running at lastUpdate (the log's
// modification time when replaying).
func taskDuration(t *model.Task, lastUpdate int64) int64 {
	if t.Finish > 0 {
		return t.Finish - t.Launch
	}
	if lastUpdate > 0 {
		return lastUpdate - t.Launch
	}
	return 0
}

// hasMetrics reports whether the log carried metrics for t.
func hasMetrics(t *model.Task) bool {
	return t.HasMetrics
}
