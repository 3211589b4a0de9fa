// Package summary condenses one application into what a person reads first:
// its identity, jobs, stages with task-duration quantiles, per-executor and
// per-host totals, failures, and the quality of the input. It is a pure
// function of the model; docs/JSON.md documents the JSON form.
package summary

import (
	"sort"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// Summary is one application attempt, summarized.
type Summary struct {
	App       Identity  `json:"application"`
	Totals    Totals    `json:"totals"`
	Jobs      []Job     `json:"jobs"`
	Stages    []Stage   `json:"stages"`
	Executors []Usage   `json:"executors"`
	Hosts     []Usage   `json:"hosts"`
	Failures  []Failure `json:"failures"`
	Quality   Quality   `json:"dataQuality"`
}

// Identity says which application this is. Times are epoch milliseconds.
type Identity struct {
	ID         string `json:"id"`
	Attempt    string `json:"attempt,omitempty"`
	Name       string `json:"name"`
	User       string `json:"user"`
	Engine     string `json:"engine"`
	Version    string `json:"version,omitempty"`
	Start      int64  `json:"start"`
	End        int64  `json:"end,omitempty"`
	DurationMs int64  `json:"durationMs"`
	Complete   bool   `json:"complete"`
	Source     string `json:"source"`
	// Platform is where a Spark application ran; nil for MapReduce.
	Platform *Platform `json:"platform,omitempty"`
}

// Platform says where the application ran and what the platform's
// properties tell of its cluster (model.Platform, model.Cluster).
type Platform struct {
	Name     string   `json:"name"`
	Photon   bool     `json:"photon"`
	Runtime  string   `json:"runtime,omitempty"`
	Evidence []string `json:"evidence"`
	Cluster  *Cluster `json:"cluster,omitempty"`
}

// Cluster is model.Cluster; zero fields are unknown and left out.
type Cluster struct {
	ID             string `json:"id,omitempty"`
	Name           string `json:"name,omitempty"`
	Cloud          string `json:"cloud,omitempty"`
	Region         string `json:"region,omitempty"`
	DriverNodeType string `json:"driverNodeType,omitempty"`
	WorkerNodeType string `json:"workerNodeType,omitempty"`
	Workers        int    `json:"workers,omitempty"`
	TargetWorkers  int    `json:"targetWorkers,omitempty"`
	Autoscaling    bool   `json:"autoscaling,omitempty"`
	MinWorkers     int    `json:"minWorkers,omitempty"`
	MaxWorkers     int    `json:"maxWorkers,omitempty"`
	Availability   string `json:"availability,omitempty"`
	Pool           string `json:"pool,omitempty"`
	Workspace      string `json:"workspace,omitempty"`
	Job            string `json:"job,omitempty"`
}

// Totals count the application's work.
type Totals struct {
	Jobs             int `json:"jobs"`
	FailedJobs       int `json:"failedJobs"`
	Stages           int `json:"stages"` // completed or failed stage attempts
	FailedStages     int `json:"failedStages"`
	SkippedStages    int `json:"skippedStages"`
	Tasks            int `json:"tasks"`            // finished task attempts
	FailedTasks      int `json:"failedTasks"`      // Resubmitted records included, as the History Server counts
	ResubmittedTasks int `json:"resubmittedTasks"` // failed tasks that are Resubmitted records (model.App.Resubmitted)
	KilledTasks      int `json:"killedTasks"`
	RunningTasks     int `json:"runningTasks"`
	Speculative      int `json:"speculativeTasks"`
	Executors        int `json:"executors"`
	Hosts            int `json:"hosts"`
}

// Job is one job's outcome.
type Job struct {
	ID         int32   `json:"id"`
	Name       string  `json:"name"`
	Status     string  `json:"status"`
	Submitted  int64   `json:"submitted"`
	DurationMs int64   `json:"durationMs"`
	Stages     []int32 `json:"stageIds"`
	Failure    string  `json:"failure,omitempty"`
}

// Stage is one stage attempt with its task statistics.
type Stage struct {
	ID          int32  `json:"id"`
	Attempt     int32  `json:"attempt"`
	Kind        string `json:"kind"`
	Name        string `json:"name"`
	Status      string `json:"status"`
	Tasks       int    `json:"tasks"`            // finished attempts
	Failed      int    `json:"failedTasks"`      // Resubmitted records included
	Resubmitted int    `json:"resubmittedTasks"` // failed tasks that are Resubmitted records
	Killed      int    `json:"killedTasks"`
	Hosts       int    `json:"hosts"`
	Submitted   int64  `json:"submitted,omitempty"`
	DurationMs  int64  `json:"durationMs"`
	// TaskDurationMs are min, 25th percentile, median, 75th percentile and
	// max of successful task durations (finish - launch), as the History
	// Server's task summary computes quantiles; empty with no successful task.
	// Resubmitted records repeat a successful attempt and are left out.
	TaskDurationMs []float64 `json:"taskDurationQuantilesMs"`
	// SkewRatio is max / median task duration (0 without tasks).
	SkewRatio float64 `json:"maxToMedian"`
	Metrics
	Failure string `json:"failure,omitempty"`
}

// Metrics are summed task metrics.
type Metrics struct {
	TaskTimeMs        int64 `json:"taskTimeMs"`
	GCTimeMs          int64 `json:"gcTimeMs"`
	InputBytes        int64 `json:"inputBytes"`
	OutputBytes       int64 `json:"outputBytes"`
	ShuffleReadBytes  int64 `json:"shuffleReadBytes"`
	ShuffleWriteBytes int64 `json:"shuffleWriteBytes"`
	SpillBytes        int64 `json:"spillBytes"`               // memory + disk bytes spilled (Spark)
	SpilledRecords    int64 `json:"spilledRecords,omitempty"` // MapReduce
}

// Usage totals the task attempts of one executor or host.
type Usage struct {
	ID     string `json:"id"`
	Host   string `json:"host,omitempty"` // executors only
	Cores  int32  `json:"cores,omitempty"`
	Tasks  int    `json:"tasks"`
	Failed int    `json:"failedTasks"`
	Metrics
}

// Failure is a distinct failure reason with how often it occurred.
type Failure struct {
	Scope   string `json:"scope"` // task, stage or job
	Kind    string `json:"kind"`
	Message string `json:"message"` // first line of the reason
	Count   int    `json:"count"`
	Where   string `json:"where"` // the first stage or job it happened in
}

// Quality reports what could not be read, and what was read but could not
// be right.
type Quality struct {
	Lines           int64            `json:"lines"`
	BadLines        int64            `json:"badLines"`
	LongLines       int64            `json:"longLines"`
	UnknownEvents   int64            `json:"unknownEvents"`
	Incomplete      int64            `json:"incompleteEvents"`
	Duplicates      int64            `json:"duplicateEvents"`
	ImpossibleTimes int64            `json:"impossibleTimes"`
	Truncated       bool             `json:"truncated"`
	Events          map[string]int64 `json:"events,omitempty"`
	Issues          []model.Issue    `json:"issues,omitempty"`
	// Partial is set when a note says events are missing or out of order.
	Partial bool   `json:"partial"`
	Notes   []Note `json:"notes,omitempty"`
	// Rollovers are the Databricks part markers read.
	Rollovers []Rollover `json:"rollovers,omitempty"`
}

// Note is something said about the input as a whole (model.Note).
type Note struct {
	Text    string `json:"text"`
	Partial bool   `json:"partial"`
}

// Rollover is one DBCEventLoggingListenerMetadata line (model.Rollover).
type Rollover struct {
	Number    int64  `json:"number"`
	ContextID string `json:"contextId"`
	Timestamp int64  `json:"timestamp"`
	File      string `json:"file"`
	Line      int64  `json:"line"`
}

// Build summarizes app.
func Build(app *model.App) *Summary {
	s := &Summary{
		App: Identity{ID: app.ID, Attempt: app.AttemptID, Name: app.Name, User: app.User,
			Engine: app.Engine.String(), Version: app.Version, Start: app.Start, End: app.End,
			DurationMs: app.Duration(), Complete: app.Complete, Source: app.Source},
		Jobs: []Job{}, Stages: []Stage{}, Failures: []Failure{},
	}
	q := app.Quality
	s.Quality = Quality{Lines: q.Lines, BadLines: q.BadLines, LongLines: q.LongLines, UnknownEvents: q.UnknownEvents,
		Incomplete: q.Incomplete, Duplicates: q.Duplicates, ImpossibleTimes: q.ImpossibleTimes,
		Truncated: q.Truncated, Events: q.Events, Issues: q.Issues, Partial: q.Partial()}
	for _, n := range q.Notes {
		s.Quality.Notes = append(s.Quality.Notes, Note{Text: n.Text, Partial: n.Partial})
	}
	for _, r := range app.Rollovers {
		s.Quality.Rollovers = append(s.Quality.Rollovers, Rollover{Number: r.Number, ContextID: r.ContextID,
			Timestamp: r.Timestamp, File: r.File, Line: r.Line})
	}
	s.App.Platform = platform(&app.Platform)

	for _, j := range app.Jobs {
		s.Totals.Jobs++
		js := Job{ID: j.ID, Name: j.Name, Status: j.Status.String(), Submitted: j.Submitted,
			Stages: j.StageIDs, Failure: firstLine(j.Failure)}
		if j.Completed >= j.Submitted && j.Submitted > 0 && !app.ImpossibleSpan(j.Submitted, j.Completed) {
			js.DurationMs = j.Completed - j.Submitted
		}
		if j.Status == model.JobFailed {
			s.Totals.FailedJobs++
			s.addFailure("job", "JobFailed", j.Failure, "job "+itoa(int64(j.ID)))
		}
		s.Jobs = append(s.Jobs, js)
	}

	execs := make([]Usage, len(app.Executors))
	for i, e := range app.Executors {
		execs[i] = Usage{ID: e.ID, Host: e.Host, Cores: e.Cores}
	}
	hostUse := map[string]*Usage{}
	var m model.TaskMetrics
	var durations []float64
	for _, st := range app.Stages {
		ss := Stage{ID: st.ID, Attempt: st.Attempt, Kind: st.Kind.String(), Name: st.Name,
			Status: st.Status.String(), Submitted: st.Submitted, Failure: firstLine(st.Failure),
			TaskDurationMs: []float64{}}
		if st.Completed >= st.Submitted && st.Submitted > 0 && !app.ImpossibleSpan(st.Submitted, st.Completed) {
			ss.DurationMs = st.Completed - st.Submitted
		}
		switch st.Status {
		case model.StageComplete:
			s.Totals.Stages++
		case model.StageFailed:
			s.Totals.Stages++
			s.Totals.FailedStages++
			s.addFailure("stage", "StageFailed", st.Failure, stageName(st))
		case model.StageSkipped:
			s.Totals.SkippedStages++
		}
		durations = durations[:0]
		stageHosts := map[uint32]bool{}
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if t.Status == model.TaskRunning {
				s.Totals.RunningTasks++
				continue
			}
			st.TaskMetrics(i, &m)
			tm := taskMetrics(t, &m)
			misdated := app.Misdated(st, t)
			if misdated {
				tm.TaskTimeMs = 0 // impossible times count in no duration (model.App.AuditTimes)
			}
			ss.Tasks++
			ss.Metrics.add(&tm)
			stageHosts[t.Host] = true
			// Spark's History Server (AppStatusListener.onTaskEnd) counts
			// every end but Success, TaskKilled and TaskCommitDenied as
			// failed, the Resubmitted record of a lost map output included.
			resubmitted := app.Resubmitted(t)
			failed := t.Status == model.TaskFailed || resubmitted
			switch {
			case resubmitted:
				ss.Failed++
				ss.Resubmitted++
			case t.Status == model.TaskSuccess:
				if !misdated {
					durations = append(durations, float64(t.Duration()))
				}
			case t.Status == model.TaskFailed:
				ss.Failed++
			case t.Status == model.TaskKilled:
				ss.Killed++
			}
			if t.Speculative {
				s.Totals.Speculative++
			}
			if t.Reason != 0 && (t.Status != model.TaskSuccess || resubmitted) {
				r := app.Reasons[t.Reason]
				s.addFailure("task", r.Kind, r.Message, stageName(st))
			}
			if int(t.Executor) < len(execs) {
				execs[t.Executor].count(&tm, failed)
			}
			h := app.Host(t.Host)
			hu := hostUse[h]
			if hu == nil {
				hu = &Usage{ID: h}
				hostUse[h] = hu
			}
			hu.count(&tm, failed)
		}
		s.Totals.Tasks += ss.Tasks
		s.Totals.FailedTasks += ss.Failed
		s.Totals.ResubmittedTasks += ss.Resubmitted
		s.Totals.KilledTasks += ss.Killed
		ss.Hosts = len(stageHosts)
		if len(durations) > 0 {
			ss.TaskDurationMs = stats.Quantiles(durations, stats.FiveNumber)
			if med := ss.TaskDurationMs[2]; med > 0 {
				ss.SkewRatio = ss.TaskDurationMs[4] / med
			}
		}
		s.Stages = append(s.Stages, ss)
	}
	for _, e := range execs {
		if e.Tasks > 0 || e.Cores > 0 {
			s.Executors = append(s.Executors, e)
		}
	}
	s.Totals.Executors = len(s.Executors)
	for _, h := range hostUse {
		s.Hosts = append(s.Hosts, *h)
	}
	sort.Slice(s.Hosts, func(i, j int) bool { return s.Hosts[i].ID < s.Hosts[j].ID })
	s.Totals.Hosts = len(s.Hosts)
	sort.SliceStable(s.Failures, func(i, j int) bool { return s.Failures[i].Count > s.Failures[j].Count })
	return s
}

// platform summarizes p, nil when nothing was identified.
func platform(p *model.Platform) *Platform {
	if p.Name == "" {
		return nil
	}
	out := &Platform{Name: p.Name, Photon: p.Photon, Runtime: p.Runtime, Evidence: p.Evidence}
	if c := p.Cluster; c != (model.Cluster{}) {
		out.Cluster = &Cluster{ID: c.ID, Name: c.Name, Cloud: c.Cloud, Region: c.Region,
			DriverNodeType: c.DriverNodeType, WorkerNodeType: c.WorkerNodeType, Workers: c.Workers,
			TargetWorkers: c.TargetWorkers, Autoscaling: c.Autoscaling, MinWorkers: c.MinWorkers,
			MaxWorkers: c.MaxWorkers, Availability: c.Availability, Pool: c.Pool, Workspace: c.Workspace, Job: c.Job}
	}
	return out
}

// taskMetrics maps one attempt's metrics to the summary's engine-neutral totals.
func taskMetrics(t *model.Task, m *model.TaskMetrics) Metrics {
	return Metrics{
		TaskTimeMs:        t.Duration(),
		GCTimeMs:          m[model.JVMGCTime],
		InputBytes:        m[model.InputBytes],
		OutputBytes:       m[model.OutputBytes],
		ShuffleReadBytes:  m.ShuffleReadBytes(),
		ShuffleWriteBytes: m[model.ShuffleWriteBytes],
		SpillBytes:        m[model.MemoryBytesSpilled] + m[model.DiskBytesSpilled],
		SpilledRecords:    m[model.SpilledRecords],
	}
}

func (a *Metrics) add(b *Metrics) {
	a.TaskTimeMs += b.TaskTimeMs
	a.GCTimeMs += b.GCTimeMs
	a.InputBytes += b.InputBytes
	a.OutputBytes += b.OutputBytes
	a.ShuffleReadBytes += b.ShuffleReadBytes
	a.ShuffleWriteBytes += b.ShuffleWriteBytes
	a.SpillBytes += b.SpillBytes
	a.SpilledRecords += b.SpilledRecords
}

func (u *Usage) count(m *Metrics, failed bool) {
	u.Tasks++
	if failed {
		u.Failed++
	}
	u.Metrics.add(m)
}

// addFailure counts a failure, grouping by scope, kind and first line.
func (s *Summary) addFailure(scope, kind, msg, where string) {
	line := firstLine(msg)
	for i := range s.Failures {
		f := &s.Failures[i]
		if f.Scope == scope && f.Kind == kind && f.Message == line {
			f.Count++
			return
		}
	}
	s.Failures = append(s.Failures, Failure{Scope: scope, Kind: kind, Message: line, Count: 1, Where: where})
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

func stageName(st *model.Stage) string {
	return "stage " + itoa(int64(st.ID)) + "." + itoa(int64(st.Attempt))
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
