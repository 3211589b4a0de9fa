package mapreduce

import (
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Hadoop identifiers (org.apache.hadoop.mapreduce.JobID, TaskID, TaskAttemptID):
//
//	job_<cluster timestamp>_<job number>
//	task_<cluster timestamp>_<job number>_<type>_<task number>
//	attempt_<cluster timestamp>_<job number>_<type>_<task number>_<attempt number>
//
// where type is m or r (0.20 and 1.x also use m for setup and cleanup tasks)
// and, in 2.x, s, c or t for job setup, job cleanup and task cleanup.

// attemptID is a parsed TaskAttemptID.
type attemptID struct {
	job     string // job_<cluster>_<n>
	typ     byte   // m, r, s, c, t
	task    int32
	attempt int32
}

// parseAttemptID parses "attempt_..."; ok is false when s is not one.
func parseAttemptID(s string) (a attemptID, ok bool) {
	rest, found := strings.CutPrefix(s, "attempt_")
	if !found {
		return a, false
	}
	i := strings.LastIndexByte(rest, '_')
	if i < 0 {
		return a, false
	}
	n, err := strconv.ParseInt(rest[i+1:], 10, 32)
	if err != nil || n < 0 {
		return a, false
	}
	a.attempt = int32(n)
	t, ok := parseTaskTail(rest[:i], &a.typ, &a.task)
	if !ok {
		return a, false
	}
	a.job = "job_" + t
	return a, true
}

// parseTaskID parses "task_..." into its job id, type letter and number.
func parseTaskID(s string) (job string, typ byte, task int32, ok bool) {
	rest, found := strings.CutPrefix(s, "task_")
	if !found {
		return "", 0, 0, false
	}
	t, ok := parseTaskTail(rest, &typ, &task)
	if !ok {
		return "", 0, 0, false
	}
	return "job_" + t, typ, task, true
}

// parseTaskTail splits "<cluster>_<job>_<type>_<task>" and returns "<cluster>_<job>".
func parseTaskTail(s string, typ *byte, task *int32) (string, bool) {
	i := strings.LastIndexByte(s, '_')
	if i < 2 || s[i-2] != '_' {
		return "", false
	}
	n, err := strconv.ParseInt(s[i+1:], 10, 32)
	if err != nil || n < 0 {
		return "", false
	}
	*task = int32(n)
	*typ = s[i-1]
	job := s[:i-2]
	if job == "" {
		return "", false
	}
	return job, true
}

// kindOfType maps a TaskType name (MAP, REDUCE, SETUP, CLEANUP, JOB_SETUP,
// JOB_CLEANUP, TASK_CLEANUP) to a stage kind; ok is false for anything else.
func kindOfType(s string) (model.StageKind, bool) {
	switch s {
	case "MAP", "m":
		return model.StageMap, true
	case "REDUCE", "r":
		return model.StageReduce, true
	case "SETUP", "JOB_SETUP", "s":
		return model.StageSetup, true
	case "CLEANUP", "JOB_CLEANUP", "TASK_CLEANUP", "c", "t":
		return model.StageCleanup, true
	}
	return 0, false
}

// kindOfLetter maps an id's type letter to a stage kind.
func kindOfLetter(c byte) (model.StageKind, bool) {
	return kindOfType(string(c))
}

// stageID is the fixed stage id of each kind: map 0, reduce 1, setup 2, cleanup 3.
func stageID(k model.StageKind) int32 {
	switch k {
	case model.StageReduce:
		return 1
	case model.StageSetup:
		return 2
	case model.StageCleanup:
		return 3
	}
	return 0
}

// splitHost splits a Hadoop network location "/rack/host" (or "host") into
// rack ("/rack", "" when absent) and host.
func splitHost(s string) (rack, host string) {
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return "", s
	}
	return s[:i], s[i+1:]
}

// trackerHost extracts the host from a TaskTracker name such as
// "tracker_host.example.com:localhost/127.0.0.1:57217"; YARN's trackerName
// is already a host name.
func trackerHost(s string) string {
	s = strings.TrimPrefix(s, "tracker_")
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	return s
}

// parseStatus maps a Hadoop attempt or task status to a task status.
func parseStatus(s string) (model.TaskStatus, bool) {
	switch s {
	case "SUCCESS", "SUCCEEDED":
		return model.TaskSuccess, true
	case "FAILED", "FAILED_UNCLEAN", "TIPFAILED":
		return model.TaskFailed, true
	case "KILLED", "KILLED_UNCLEAN":
		return model.TaskKilled, true
	case "RUNNING", "UNASSIGNED", "COMMIT_PENDING":
		return model.TaskRunning, true
	}
	return model.TaskUnknown, false
}
