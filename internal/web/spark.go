package web

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/shs"
)

// The History Server's pages of one application: jobs, stages (each with
// its summary metrics, executors and tasks), executors, environment,
// storage and SQL (each execution with its plan graph and the operators'
// metrics). Their numbers are the History Server API's (internal/shs,
// asked in process as a client would ask /api/v1), so a page says what the
// History Server's own page says; the diagnosis on the application page
// links to the part it is about.

// sparkApp is the application attempt a tab is about, with the index
// that answers for it.
type sparkApp struct {
	ix  *shs.Index
	app *model.App
	// base is its path under /api/v1; link its pages' path (and
	// ?attempt=, for an application of several attempts).
	base string
}

// link is the URL of one of the application's pages: sub "" for the
// application page, "jobs", "stage/3/0", ....
func (s *sparkApp) link(sub string, q url.Values) string {
	u := "/app/" + url.PathEscape(s.app.ID)
	if sub != "" {
		u += "/" + sub
	}
	if s.app.AttemptID != "" {
		if q == nil {
			q = url.Values{}
		}
		q.Set("attempt", s.app.AttemptID)
	}
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// get answers an API request about the attempt.
func (s *sparkApp) get(sub string, q url.Values) (any, error) {
	v, err := s.ix.Get(s.base+"/"+sub, q)
	var ae *shs.Error
	if errors.As(err, &ae) && ae.Status == http.StatusNotFound {
		return nil, fmtErr(errNotFound, "%s", ae.Message)
	}
	return v, err
}

// answer converts an API answer to the type a page reads (the API
// answers some resources by pointer).
func answer[T any](v any, err error) (T, error) {
	var zero T
	if err != nil {
		return zero, err
	}
	switch t := v.(type) {
	case T:
		return t, nil
	case *T:
		if t != nil {
			return *t, nil
		}
	}
	return zero, fmt.Errorf("web: the API answered %T, not %T", v, zero)
}

// spark finds the attempt a tab is about (?attempt=, else the newest).
func (u *UI) spark(r *http.Request) (*sparkApp, error) {
	id := r.PathValue("id")
	app, err := u.attempt(r.Context(), id, r.URL.Query().Get("attempt"))
	if err != nil {
		return nil, err
	}
	ix, err := u.index(r.Context(), id)
	if err != nil {
		return nil, err
	}
	base := "applications/" + id
	if app.AttemptID != "" {
		base += "/" + app.AttemptID
	}
	return &sparkApp{ix: ix, app: app, base: base}, nil
}

// tabs are the application's pages, as the History Server's tabs.
var tabs = [][2]string{{"", "Diagnosis"}, {"jobs", "Jobs"}, {"stages", "Stages"}, {"executors", "Executors"},
	{"environment", "Environment"}, {"storage", "Storage"}, {"sql", "SQL"}}

// sparkPage is a page of one of the tabs: its title and header, the tab
// bar, then its content.
func (s *sparkApp) page(tab, title string, content func(w *htmlw.Writer)) *page {
	name := cmp.Or(s.app.Name, s.app.ID)
	return &page{Title: title + " · " + name, View: "spark-" + strings.ReplaceAll(tab, "/", "-"), Sub: s.app.ID, Content: func(w *htmlw.Writer) {
		w.Raw("<h1>").Text(name).Raw(" <small>").Text(s.app.ID)
		if s.app.AttemptID != "" {
			w.Raw(" attempt ").Text(s.app.AttemptID)
		}
		w.Raw("</small></h1>\n")
		writeTabs(w, s, tab)
		content(w)
	}}
}

// jobsData is the jobs page's data.
type jobsData struct {
	s        *sparkApp
	Sections []jobSection
	Chart    bool
}

type jobSection struct {
	Title string
	Jobs  []shs.JobData
}

// jobsPage lists the jobs by status, as the History Server's Jobs tab.
func (u *UI) jobsPage(r *http.Request) (*page, error) {
	s, err := u.spark(r)
	if err != nil {
		return nil, err
	}
	jobs, err := answer[[]shs.JobData](s.get("jobs", nil))
	if err != nil {
		return nil, err
	}
	d := &jobsData{s: s}
	for _, st := range []struct{ status, title string }{{"RUNNING", "Active jobs"}, {"SUCCEEDED", "Completed jobs"}, {"FAILED", "Failed jobs"}, {"UNKNOWN", "Jobs of unknown outcome"}} {
		var sec jobSection
		sec.Title = st.title
		for _, j := range jobs {
			if j.Status == st.status {
				sec.Jobs = append(sec.Jobs, j)
			}
		}
		if len(sec.Jobs) > 0 {
			d.Sections = append(d.Sections, sec)
		}
	}
	p := s.page("jobs", "Jobs", func(w *htmlw.Writer) { writeJobs(w, d) })
	if c := jobsChart(jobs); len(c.Series) > 0 {
		p.Charts, d.Chart = []chart{c}, true
	}
	return p, nil
}

// jobsChart is each job's duration, in id order, by outcome.
func jobsChart(jobs []shs.JobData) chart {
	c := chart{ID: "job-durations", Title: "Duration of each job", Kind: "bar", YUnit: "ms", Height: 220, XName: "job", Stack: true}
	sorted := slices.Clone(jobs)
	slices.SortFunc(sorted, func(a, b shs.JobData) int { return cmp.Compare(a.JobID, b.JobID) })
	ok, bad := series{Name: "succeeded", Color: "#16a34a"}, series{Name: "failed or running", Color: "#b91c1c"}
	for _, j := range sorted {
		end := j.CompletionTime
		if j.SubmissionTime == nil || end == nil {
			continue
		}
		c.XCats = append(c.XCats, strconv.Itoa(int(j.JobID)))
		x, v := float64(len(c.XCats)-1), float64(int64(*end)-int64(*j.SubmissionTime))
		if j.Status == "SUCCEEDED" {
			ok.Data, bad.Data = append(ok.Data, [2]float64{x, v}), append(bad.Data, [2]float64{x, 0})
		} else {
			ok.Data, bad.Data = append(ok.Data, [2]float64{x, 0}), append(bad.Data, [2]float64{x, v})
		}
	}
	if len(c.XCats) > 0 {
		c.Series = []series{ok, bad}
	}
	return c
}

// stagesData is the stages page's data.
type stagesData struct {
	s *sparkApp
	// Job, when not -1, is the job whose stages are listed.
	Job int32
	// Ran are the stage attempts that ran tasks or are running, by
	// section; Waiting those that did not (pending, skipped): counted and
	// named, not drawn as empty rows.
	Ran     []stageSection
	Waiting []stageSection
	// Chart is whether the page draws its chart of stage durations.
	Chart bool
}

type stageSection struct {
	Title  string
	Stages []shs.StageData
}

// stagesPage lists the stage attempts by status, as the History Server's
// Stages tab (?job=N: one job's).
func (u *UI) stagesPage(r *http.Request) (*page, error) {
	s, err := u.spark(r)
	if err != nil {
		return nil, err
	}
	d := &stagesData{s: s, Job: -1}
	var only map[int32]bool
	if j := r.URL.Query().Get("job"); j != "" {
		n, err := strconv.ParseInt(j, 10, 32)
		if err != nil {
			return nil, fmtErr(errBadRequest, "job %q: want a job id", j)
		}
		job, err := answer[shs.JobData](s.get("jobs/"+j, nil))
		if err != nil {
			return nil, err
		}
		d.Job, only = int32(n), map[int32]bool{}
		for _, id := range job.StageIDs {
			only[id] = true
		}
	}
	stages, err := answer[[]shs.StageData](s.get("stages", nil))
	if err != nil {
		return nil, err
	}
	if only != nil {
		stages = slices.DeleteFunc(stages, func(sd shs.StageData) bool { return !only[sd.StageID] })
	}
	for _, st := range []struct {
		status, title string
		ran           bool
	}{{"ACTIVE", "Active stages", true}, {"COMPLETE", "Completed stages", true}, {"FAILED", "Failed stages", true},
		{"PENDING", "Pending stages", false}, {"SKIPPED", "Skipped stages", false}} {
		sec := stageSection{Title: st.title}
		for _, sd := range stages {
			if sd.Status == st.status {
				sec.Stages = append(sec.Stages, sd)
			}
		}
		switch {
		case len(sec.Stages) == 0:
		case st.ran:
			d.Ran = append(d.Ran, sec)
		default:
			d.Waiting = append(d.Waiting, sec)
		}
	}
	p := s.page("stages", "Stages", func(w *htmlw.Writer) { writeStages(w, d) })
	if c := stageChart(d.Ran); len(c.Series) > 0 {
		p.Charts, d.Chart = []chart{c}, true
	}
	return p, nil
}

// stageChart is the stages that ran: each one's duration, in id order.
func stageChart(secs []stageSection) chart {
	c := chart{ID: "stage-durations", Title: "Duration of each stage attempt that ran", Kind: "bar", YUnit: "ms", Height: 240, XName: "stage"}
	var all []shs.StageData
	for _, s := range secs {
		all = append(all, s.Stages...)
	}
	if len(all) == 0 {
		return c
	}
	slices.SortFunc(all, func(a, b shs.StageData) int {
		return cmp.Or(cmp.Compare(a.StageID, b.StageID), cmp.Compare(a.AttemptID, b.AttemptID))
	})
	done, failed := series{Name: "complete", Color: "#16a34a"}, series{Name: "failed or active", Color: "#b91c1c"}
	for i, sd := range all {
		c.XCats = append(c.XCats, stageName(sd.StageID, sd.AttemptID))
		ms := stageMs(sd)
		if sd.Status == "COMPLETE" {
			done.Data = append(done.Data, [2]float64{float64(i), float64(ms)})
			failed.Data = append(failed.Data, [2]float64{float64(i), 0})
		} else {
			done.Data = append(done.Data, [2]float64{float64(i), 0})
			failed.Data = append(failed.Data, [2]float64{float64(i), float64(ms)})
		}
	}
	c.Stack = true
	c.Series = []series{done, failed}
	return c
}

// stageName is "3", or "3 (retry 1)" for a later attempt, as the History
// Server names stage attempts.
func stageName(id, attempt int32) string {
	if attempt == 0 {
		return strconv.Itoa(int(id))
	}
	return fmt.Sprintf("%d (retry %d)", id, attempt)
}

// stageMs is a stage attempt's duration as the History Server shows it:
// from its first task's launch (else its submission) to its completion.
func stageMs(sd shs.StageData) int64 {
	start := sd.FirstTaskLaunchedTime
	if start == nil {
		start = sd.SubmissionTime
	}
	if start == nil || sd.CompletionTime == nil {
		return 0
	}
	return int64(*sd.CompletionTime) - int64(*start)
}

// stageData is one stage attempt's page: its totals, the quantiles of its
// completed tasks' metrics, its executors and a page of its tasks.
type stageData struct {
	s       *sparkApp
	Stage   shs.StageData
	Summary *shs.TaskMetricDistributions
	// NoSummary says why there is none (no task reported metrics yet).
	NoSummary string
	Execs     shs.ExecutorStageSummaries
	Hosts     map[string]string // executor id -> host:port
	Tasks     []shs.TaskData
	// Sort is the task order (ID, runtime, -runtime); Page of Pages.
	Sort        string
	Page, Pages int
	Jobs        []int32
}

// tasksPerPage is how many tasks a stage page lists.
const tasksPerPage = 100

// summaryQuantiles are the History Server stage page's: min, 25th
// percentile, median, 75th percentile, max.
const summaryQuantiles = "0,0.25,0.5,0.75,1.0"

// stagePage shows one stage attempt as the History Server's stage page.
func (u *UI) stagePage(r *http.Request) (*page, error) {
	s, err := u.spark(r)
	if err != nil {
		return nil, err
	}
	sid, said := r.PathValue("stage"), r.PathValue("attempt")
	stage, err1 := strconv.ParseInt(sid, 10, 32)
	attempt, err2 := strconv.ParseInt(said, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, fmtErr(errBadRequest, "stage %q attempt %q: want numbers", sid, said)
	}
	path := "stages/" + sid + "/" + said
	sd, err := answer[shs.StageData](s.get(path, url.Values{"details": {"false"}}))
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	d := &stageData{s: s, Stage: sd, Sort: cmp.Or(q.Get("sort"), "ID"), Page: 1}
	switch d.Sort {
	case "ID", "runtime", "-runtime":
	default:
		return nil, fmtErr(errBadRequest, "sort %q: want ID, runtime or -runtime", d.Sort)
	}
	if p := q.Get("page"); p != "" {
		if d.Page, err = strconv.Atoi(p); err != nil || d.Page < 1 {
			return nil, fmtErr(errBadRequest, "page %q: want a whole number from 1", p)
		}
	}
	if sum, err := answer[shs.TaskMetricDistributions](s.get(path+"/taskSummary", url.Values{"quantiles": {summaryQuantiles}})); err == nil {
		d.Summary = &sum
	} else {
		d.NoSummary = err.Error()
	}
	d.Execs, _ = s.ix.StageExecutors(s.app, int32(stage), int32(attempt))
	slices.SortFunc(d.Execs, func(a, b shs.ExecutorStageEntry) int { return cmpExecID(a.ExecutorID, b.ExecutorID) })
	d.Hosts = map[string]string{}
	for _, e := range s.ix.AllExecutors(s.app) {
		d.Hosts[e.ID] = e.HostPort
	}
	total := int(d.Stage.NumCompleteTasks + d.Stage.NumFailedTasks + d.Stage.NumKilledTasks + d.Stage.NumActiveTasks)
	d.Pages = max(1, (total+tasksPerPage-1)/tasksPerPage)
	d.Page = min(d.Page, d.Pages)
	d.Tasks, err = answer[[]shs.TaskData](s.get(path+"/taskList", url.Values{"offset": {strconv.Itoa((d.Page - 1) * tasksPerPage)},
		"length": {strconv.Itoa(tasksPerPage)}, "sortBy": {d.Sort}}))
	if err != nil {
		return nil, err
	}
	for _, j := range s.ix.Jobs(s.app) {
		if slices.Contains(j.StageIDs, int32(stage)) {
			d.Jobs = append(d.Jobs, j.JobID)
		}
	}
	slices.Sort(d.Jobs)
	p := s.page("stage", "Stage "+stageName(int32(stage), int32(attempt)), func(w *htmlw.Writer) { writeStage(w, d) })
	if d.Summary != nil {
		p.Charts = []chart{quantileChart(d.Summary)}
	}
	return p, nil
}

// quantileChart draws the summary's task times at the five quantiles, side
// by side (each quantile of each time on its own: not one task's parts).
func quantileChart(sum *shs.TaskMetricDistributions) chart {
	c := chart{ID: "stage-quantiles", Title: "Completed tasks' times at each quantile", Kind: "bar", YUnit: "ms", Height: 260,
		XCats: []string{"min", "25th percentile", "median", "75th percentile", "max"}}
	part := func(name, color string, vs shs.Doubles) series {
		s := series{Name: name, Color: color}
		for i := range c.XCats {
			v := 0.0
			if i < len(vs) && !isNaN(vs[i]) {
				v = vs[i]
			}
			s.Data = append(s.Data, [2]float64{float64(i), v})
		}
		return s
	}
	c.Series = []series{
		part("launch to end", "#475569", sum.Duration),
		part("executor run time", "#2563eb", sum.ExecutorRunTime),
		part("GC time", "#16a34a", sum.JVMGCTime),
		part("scheduler delay", "#b7791f", sum.SchedulerDelay),
		part("deserialization", "#9333ea", sum.ExecutorDeserializeTime),
	}
	return c
}

func isNaN(f float64) bool { return f != f }

// cmpExecID orders executor ids as numbers, "driver" first.
func cmpExecID(a, b string) int {
	na, ea := strconv.Atoi(a)
	nb, eb := strconv.Atoi(b)
	switch {
	case ea == nil && eb == nil:
		return cmp.Compare(na, nb)
	case ea != nil && eb != nil:
		return strings.Compare(a, b)
	case ea != nil:
		return -1
	}
	return 1
}

// executorsData is the executors page's data.
type executorsData struct {
	s           *sparkApp
	Execs       []shs.ExecutorSummary
	Active, All shs.ExecutorSummary // the summary rows
	NActive     int
	NAll        int
	Page, Pages int
	Peaks       bool // some executor reported peak memory metrics
}

// executorsPerPage is how many executors the executors page lists.
const executorsPerPage = 500

// executorsPage lists every executor, as the History Server's Executors
// tab, with the summary rows for the active and all executors.
func (u *UI) executorsPage(r *http.Request) (*page, error) {
	s, err := u.spark(r)
	if err != nil {
		return nil, err
	}
	all := s.ix.AllExecutors(s.app)
	slices.SortFunc(all, func(a, b shs.ExecutorSummary) int { return cmpExecID(a.ID, b.ID) })
	d := &executorsData{s: s, Page: 1}
	d.All.ID, d.Active.ID, d.NAll = "Total", "Active", len(all)
	for _, e := range all {
		addExec(&d.All, e)
		if e.IsActive {
			addExec(&d.Active, e)
			d.NActive++
		}
		d.Peaks = d.Peaks || e.PeakMemoryMetrics != nil
	}
	if p := r.URL.Query().Get("page"); p != "" {
		if d.Page, err = strconv.Atoi(p); err != nil || d.Page < 1 {
			return nil, fmtErr(errBadRequest, "page %q: want a whole number from 1", p)
		}
	}
	d.Pages = max(1, (len(all)+executorsPerPage-1)/executorsPerPage)
	d.Page = min(d.Page, d.Pages)
	d.Execs = all[(d.Page-1)*executorsPerPage : min(d.Page*executorsPerPage, len(all))]
	p := s.page("executors", "Executors", func(w *htmlw.Writer) { writeExecutors(w, d) })
	p.Charts = []chart{executorChart(all)}
	return p, nil
}

// addExec adds e's counts to the summary row sum.
func addExec(sum *shs.ExecutorSummary, e shs.ExecutorSummary) {
	sum.RDDBlocks += e.RDDBlocks
	sum.MemoryUsed += e.MemoryUsed
	sum.MaxMemory += e.MaxMemory
	sum.DiskUsed += e.DiskUsed
	sum.TotalCores += e.TotalCores
	sum.ActiveTasks += e.ActiveTasks
	sum.FailedTasks += e.FailedTasks
	sum.CompletedTasks += e.CompletedTasks
	sum.TotalTasks += e.TotalTasks
	sum.TotalDuration += e.TotalDuration
	sum.TotalGCTime += e.TotalGCTime
	sum.TotalInputBytes += e.TotalInputBytes
	sum.TotalShuffleRead += e.TotalShuffleRead
	sum.TotalShuffleWrite += e.TotalShuffleWrite
}

// executorChart is each executor's task time, with its GC time apart:
// executors that worked more, or collected more, than the others.
func executorChart(all []shs.ExecutorSummary) chart {
	c := chart{ID: "executor-time", Title: "Task time of each executor (GC time apart)", Kind: "bar", YUnit: "ms", Height: 240, Stack: true, XName: "executor"}
	run, gc := series{Name: "task time less GC", Color: "#2563eb"}, series{Name: "GC time", Color: "#b91c1c"}
	for _, e := range all {
		if e.ID == "driver" && e.TotalTasks == 0 {
			continue
		}
		i := float64(len(c.XCats))
		c.XCats = append(c.XCats, e.ID)
		run.Data = append(run.Data, [2]float64{i, float64(max(0, e.TotalDuration-e.TotalGCTime))})
		gc.Data = append(gc.Data, [2]float64{i, float64(e.TotalGCTime)})
	}
	c.Series = []series{run, gc}
	return c
}

// environmentPage shows the environment, as the History Server's
// Environment tab.
func (u *UI) environmentPage(r *http.Request) (*page, error) {
	s, err := u.spark(r)
	if err != nil {
		return nil, err
	}
	env, err := answer[shs.ApplicationEnvironmentInfo](s.get("environment", nil))
	if err != nil {
		return nil, err
	}
	return s.page("environment", "Environment", func(w *htmlw.Writer) { writeEnvironment(w, &env) }), nil
}

// storageData is the storage page's data.
type storageData struct {
	s *sparkApp
	// RDDs are the RDDs the log recorded as cached (the API's
	// storage/rdd); LogsBlocks the spark.eventLog.logBlockUpdates.enabled
	// setting ("" when unset).
	RDDs       int
	LogsBlocks string
	Execs      []shs.ExecutorSummary
}

// storagePage shows what the log says of storage: the cached RDDs (the
// History Server's Storage tab, from block updates that logs record only
// when asked to) and each executor's storage memory.
func (u *UI) storagePage(r *http.Request) (*page, error) {
	s, err := u.spark(r)
	if err != nil {
		return nil, err
	}
	rdds, err := answer[[]any](s.get("storage/rdd", nil))
	if err != nil {
		return nil, err
	}
	d := &storageData{s: s, RDDs: len(rdds), Execs: s.ix.AllExecutors(s.app)}
	slices.SortFunc(d.Execs, func(a, b shs.ExecutorSummary) int { return cmpExecID(a.ID, b.ID) })
	d.LogsBlocks, _ = s.app.Env.SparkProp("spark.eventLog.logBlockUpdates.enabled")
	return s.page("storage", "Storage", func(w *htmlw.Writer) { writeStorage(w, d) }), nil
}
