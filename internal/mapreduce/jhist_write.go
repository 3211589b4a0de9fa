package mapreduce

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// WriteJhist writes app, a MapReduce job in the model's conventions (see
// the package documentation), as a Hadoop 2.x/3.x job history file in the
// Avro-Json form, as org.apache.hadoop.mapreduce.jobhistory.EventWriter
// writes it: the "Avro-Json" line, the Events schema line, then one
// Avro-JSON encoded Event per line. The job's records come first
// (AM_STARTED, JOB_SUBMITTED, JOB_PRIORITY_CHANGED, JOB_INITED,
// JOB_INFO_CHANGED), then task and attempt records in time order
// (TASK_STARTED, *_ATTEMPT_STARTED, MAP_ATTEMPT_FINISHED with
// mapFinishTime, REDUCE_ATTEMPT_FINISHED with shuffleFinishTime and
// sortFinishTime, *_ATTEMPT_FAILED/KILLED with the error, TASK_FINISHED,
// TASK_FAILED), then JOB_FINISHED, or JOB_FAILED/JOB_KILLED/JOB_ERROR, when
// app.Complete. Metrics become counters as the package documentation maps
// them; reading the output with ReadJhist gives back app.
func WriteJhist(w io.Writer, app *model.App) error {
	if app == nil {
		return errors.New("mapreduce: write jhist: nil application")
	}
	for _, st := range app.Stages {
		if st == nil {
			return errors.New("mapreduce: write jhist: nil stage in model")
		}
	}
	if len(app.Jobs) > 0 && app.Jobs[0] == nil {
		return errors.New("mapreduce: write jhist: nil job in model")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	hw := newHistWriter(app)
	hw.flush = func(b []byte) error {
		_, err := bw.Write(b)
		return err
	}
	if err := hw.run(); err != nil {
		return fmt.Errorf("mapreduce: write jhist: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("mapreduce: write jhist: %w", err)
	}
	return nil
}

// histWriter writes one job's history.
type histWriter struct {
	app   *model.App
	job   *model.Job
	tail  string // "<cluster timestamp>_<job number>"
	j     jw
	flush func([]byte) error
	m     model.TaskMetrics
	ports map[string]int64 // host -> port, from the executors' HostPort
	// reduces is set when the job has a reduce stage (map output is shuffled).
	reduces bool
	id      []byte // scratch for the ids of task records
}

func newHistWriter(app *model.App) *histWriter {
	h := &histWriter{app: app, ports: map[string]int64{}}
	if len(app.Jobs) > 0 {
		h.job = app.Jobs[0]
	} else {
		h.job = &model.Job{Submitted: app.Start, Completed: app.End, Status: model.JobSucceeded}
	}
	h.tail = strings.TrimPrefix(app.ID, "job_")
	if h.tail == "" || h.tail == app.ID {
		h.tail = "0_0000"
	}
	for _, st := range app.Stages {
		h.reduces = h.reduces || st.Kind == model.StageReduce
	}
	for _, e := range app.Executors {
		if e == nil {
			continue
		}
		if i := strings.LastIndexByte(e.HostPort, ':'); i >= 0 {
			if p, err := strconv.ParseInt(e.HostPort[i+1:], 10, 64); err == nil {
				h.ports[e.Host] = p
			}
		}
	}
	return h
}

// line finishes one event line and hands it on.
func (h *histWriter) line() error {
	h.j.b = append(h.j.b, '\n')
	err := h.flush(h.j.b)
	h.j.b = h.j.b[:0]
	return err
}

// open starts an event of type typ whose record is the named class.
func (h *histWriter) open(typ, record string) {
	h.j.raw(`{"type":"`)
	h.j.raw(typ)
	h.j.raw(`","event":{"org.apache.hadoop.mapreduce.jobhistory.`)
	h.j.raw(record)
	h.j.raw(`":{`)
}

// close ends the record, the union and the event, and writes the line.
func (h *histWriter) close() error {
	h.j.raw("}}}")
	return h.line()
}

func (h *histWriter) prop(name string) string {
	for _, kv := range h.job.Properties {
		if kv[0] == name {
			return kv[1]
		}
	}
	return ""
}

func (h *histWriter) run() error {
	h.j.raw("Avro-Json\n")
	h.j.raw(jhistSchema)
	if err := h.line(); err != nil {
		return err
	}
	if err := h.jobStart(); err != nil {
		return err
	}
	if err := h.tasks(); err != nil {
		return err
	}
	return h.jobEnd()
}

func (h *histWriter) jobID() string { return "job_" + h.tail }

func (h *histWriter) jobStart() error {
	app, job, j := h.app, h.job, &h.j
	launch, _ := strconv.ParseInt(h.prop("launchTime"), 10, 64)
	amHost := "localhost"
	if len(app.Executors) > 0 && app.Executors[0] != nil && app.Executors[0].Host != "" {
		amHost = app.Executors[0].Host
	}
	h.open("AM_STARTED", "AMStarted")
	j.str("applicationAttemptId", "appattempt_"+h.tail+"_000001", true)
	j.int("startTime", job.Submitted, false)
	j.str("containerId", "container_"+h.tail+"_01_000001", false)
	j.str("nodeManagerHost", amHost, false)
	j.int("nodeManagerPort", 0, false)
	j.int("nodeManagerHttpPort", 8042, false)
	if err := h.close(); err != nil {
		return err
	}
	h.open("JOB_SUBMITTED", "JobSubmitted")
	j.str("jobid", h.jobID(), true)
	j.str("jobName", app.Name, false)
	j.str("userName", app.User, false)
	j.int("submitTime", job.Submitted, false)
	j.str("jobConfPath", "hdfs:///tmp/hadoop-yarn/staging/"+app.User+"/.staging/"+h.jobID()+"/job.xml", false)
	j.raw(`,"acls":{}`)
	j.str("jobQueueName", h.prop("queue"), false)
	for _, k := range []string{"workflowId", "workflowName", "workflowNodeName", "workflowAdjacencies", "workflowTags"} {
		j.ustr(k, "", false)
	}
	if err := h.close(); err != nil {
		return err
	}
	if p := h.prop("priority"); p != "" {
		h.open("JOB_PRIORITY_CHANGED", "JobPriorityChange")
		j.str("jobid", h.jobID(), true)
		j.str("priority", p, false)
		if err := h.close(); err != nil {
			return err
		}
	}
	var maps, reduces int64
	for _, st := range app.Stages {
		switch st.Kind {
		case model.StageMap:
			maps = int64(st.NumTasks)
		case model.StageReduce:
			reduces = int64(st.NumTasks)
		}
	}
	h.open("JOB_INITED", "JobInited")
	j.str("jobid", h.jobID(), true)
	j.int("launchTime", launch, false)
	j.int("totalMaps", maps, false)
	j.int("totalReduces", reduces, false)
	j.str("jobStatus", "INITED", false)
	j.raw(`,"uberized":false`)
	if err := h.close(); err != nil {
		return err
	}
	h.open("JOB_INFO_CHANGED", "JobInfoChange")
	j.str("jobid", h.jobID(), true)
	j.int("submitTime", job.Submitted, false)
	j.int("launchTime", launch, false)
	return h.close()
}

// jobEnd writes JobFinished or JobUnsuccessfulCompletion once the job ended.
func (h *histWriter) jobEnd() error {
	app, job, j := h.app, h.job, &h.j
	if !app.Complete {
		return nil
	}
	var maps, reduces, failedMaps, failedReduces int64
	for _, st := range app.Stages {
		for i := range st.Tasks {
			t := &st.Tasks[i]
			switch {
			case st.Kind == model.StageMap && t.Status == model.TaskSuccess:
				maps++
			case st.Kind == model.StageReduce && t.Status == model.TaskSuccess:
				reduces++
			case st.Kind == model.StageMap && t.Status == model.TaskFailed:
				failedMaps++
			case st.Kind == model.StageReduce && t.Status == model.TaskFailed:
				failedReduces++
			}
		}
	}
	end := job.Completed
	if end == 0 {
		end = app.End
	}
	if job.Status != model.JobFailed {
		h.open("JOB_FINISHED", "JobFinished")
		j.str("jobid", h.jobID(), true)
		j.int("finishTime", end, false)
		j.int("finishedMaps", maps, false)
		j.int("finishedReduces", reduces, false)
		j.int("failedMaps", failedMaps, false)
		j.int("failedReduces", failedReduces, false)
		j.raw(`,"totalCounters":{"name":"TOTAL_COUNTERS","groups":[]}`)
		j.raw(`,"mapCounters":{"name":"MAP_COUNTERS","groups":[]}`)
		j.raw(`,"reduceCounters":{"name":"REDUCE_COUNTERS","groups":[]}`)
		return h.close()
	}
	status, diag, hasDiag := strings.Cut(job.Failure, ": ")
	if status == "" {
		status = "FAILED"
	}
	typ := "JOB_FAILED"
	switch status {
	case "KILLED":
		typ = "JOB_KILLED"
	case "ERROR":
		typ = "JOB_ERROR"
	}
	h.open(typ, "JobUnsuccessfulCompletion")
	j.str("jobid", h.jobID(), true)
	j.int("finishTime", end, false)
	j.int("finishedMaps", maps, false)
	j.int("finishedReduces", reduces, false)
	j.str("jobStatus", status, false)
	j.ustr("diagnostics", diag, !hasDiag)
	return h.close()
}
