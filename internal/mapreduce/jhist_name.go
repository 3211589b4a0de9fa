package mapreduce

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// jobNameLimit is mapreduce.jobhistory.jobname.limit's default: longer job
// names are cut in history file names.
const jobNameLimit = 50

// JhistFileName is the name the job history server gives a finished job's
// history in its done folder (org.apache.hadoop.mapreduce.v2.jobhistory.
// FileNameIndexUtils.getDoneFileName):
// <job id>-<submit time>-<user>-<job name>-<finish time>-<maps>-<reduces>-<status>-<queue>-<start time>.jhist,
// with the user, job name and queue URL-encoded and '-' written "%2D".
// maps and reduces are the finished tasks of each kind.
func JhistFileName(app *model.App) string {
	var job model.Job
	if len(app.Jobs) > 0 && app.Jobs[0] != nil {
		job = *app.Jobs[0]
	}
	var queue, launch string
	for _, kv := range job.Properties {
		switch kv[0] {
		case "queue":
			queue = kv[1]
		case "launchTime":
			launch = kv[1]
		}
	}
	if launch == "" {
		launch = strconv.FormatInt(job.Submitted, 10)
	}
	var maps, reduces int
	for _, st := range app.Stages {
		if st == nil {
			continue
		}
		for i := range st.Tasks {
			if st.Tasks[i].Status != model.TaskSuccess {
				continue
			}
			switch st.Kind {
			case model.StageMap:
				maps++
			case model.StageReduce:
				reduces++
			}
		}
	}
	status := "SUCCEEDED"
	switch {
	case !app.Complete:
		status = "RUNNING"
	case job.Status == model.JobFailed:
		status, _, _ = strings.Cut(job.Failure, ": ")
		if status == "" {
			status = "FAILED"
		}
	}
	name := app.Name
	if r := []rune(name); len(r) > jobNameLimit {
		name = string(r[:jobNameLimit])
	}
	fields := []string{app.ID, strconv.FormatInt(job.Submitted, 10), escapeIndex(app.User), escapeIndex(name),
		strconv.FormatInt(app.End, 10), strconv.Itoa(maps), strconv.Itoa(reduces), status, escapeIndex(queue), launch}
	return strings.Join(fields, "-") + ".jhist"
}

// ConfFileName is the name of the job configuration the job history server
// keeps beside a history: <job id>_conf.xml.
func ConfFileName(app *model.App) string { return app.ID + "_conf.xml" }

// escapeIndex is FileNameIndexUtils.escapeDelimiters: URL encoding, then
// '-' as "%2D".
func escapeIndex(s string) string {
	return strings.ReplaceAll(url.QueryEscape(s), "-", "%2D")
}
