package eventlog

import (
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// encoder writes one application's events (see Write).
type encoder struct {
	app   *model.App
	j     jsonBuf
	flush func([]byte) error
	// avail, when set, returns the sink's free buffer to append the next
	// line into (bufio.Writer.AvailableBuffer), saving a copy.
	avail   func() []byte
	lent    bool // j.b is the sink's buffer
	scratch []byte

	resultStage map[int32]bool  // stage ids that are some job's final stage
	attempts    map[int32][]int // stage id -> indexes in app.Stages
	m, sum      model.TaskMetrics
	last        int64 // time of the latest event written
	// sqlNames and sqlTotals are the SQL metrics' names and running totals
	// by accumulator id, made at the first task with SQL updates.
	sqlNames  map[int64]string
	sqlTotals map[int64]int64
}

func newEncoder(app *model.App) *encoder {
	e := &encoder{app: app, resultStage: map[int32]bool{}, attempts: map[int32][]int{}}
	for _, j := range app.Jobs {
		if j.ResultStage >= 0 {
			e.resultStage[j.ResultStage] = true
		}
	}
	for i, st := range app.Stages {
		e.attempts[st.ID] = append(e.attempts[st.ID], i)
	}
	e.scratch = make([]byte, 0, 8<<10)
	e.j.b = e.scratch
	return e
}

// end finishes the current line and hands it to flush.
func (e *encoder) end() error {
	e.j.close('}')
	e.j.newline()
	err := e.flush(e.j.b)
	e.reset()
	return err
}

// reset starts the next line in the sink's buffer when it has room for a
// typical line, else in the encoder's own.
func (e *encoder) reset() {
	if !e.lent {
		e.scratch = e.j.b[:0] // keep what a long line grew it to
	}
	e.lent = false
	if e.avail != nil {
		if b := e.avail(); cap(b) >= 16<<10 {
			e.j.b, e.lent = b, true
			return
		}
	}
	e.j.b = e.scratch[:0]
}

// begin opens an event object with its "Event" name.
func (e *encoder) begin(name string) {
	e.j.open('{')
	e.j.kstr("Event", name)
}

func (e *encoder) run() error {
	app := e.app
	for _, f := range []func(){e.rollovers, e.logStart, e.resourceProfiles, e.environment, e.appStart} {
		f()
		if len(e.j.b) > 0 {
			if err := e.flush(e.j.b); err != nil {
				return err
			}
			e.reset()
		}
	}
	e.last = app.Start
	for _, ev := range schedule(app) {
		e.last = max(e.last, ev.time)
		if err := e.event(ev); err != nil {
			return err
		}
	}
	if err := e.finale(); err != nil {
		return err
	}
	if app.Complete {
		e.begin("SparkListenerApplicationEnd")
		e.j.kint("Timestamp", app.End)
		return e.end()
	}
	return nil
}

// event writes one scheduled event (several lines for a stage completion).
func (e *encoder) event(ev event) error {
	app, i := e.app, int(ev.ref())
	switch ev.kind() {
	case evSQLStart:
		e.sqlStart(app.SQL[i])
	case evSQLEnd:
		e.sqlEnd(app.SQL[i])
	case evSQLAdaptive:
		e.sqlAdaptive(app.SQL[i])
	case evSQLDriver:
		e.sqlDriverUpdates(app.SQL[i])
	case evExecutorAdded:
		e.executorAdded(app.Executors[i])
	case evBlockManagerAdded:
		e.blockManagerAdded(app.Executors[i])
	case evExecutorRemoved:
		x := app.Executors[i]
		e.begin("SparkListenerExecutorRemoved")
		e.j.kint("Timestamp", x.Removed)
		e.j.kstr("Executor ID", x.ID)
		e.j.kstr("Removed Reason", x.RemoveReason)
	case evProcessAdded:
		e.processAdded(app.Processes[i])
	case evJobStart:
		e.jobStart(app.Jobs[i])
	case evJobEnd:
		e.jobEnd(app.Jobs[i])
	case evStageSubmitted:
		return e.stageSubmitted(app.Stages[i])
	case evStageCompleted:
		return e.stageCompleted(app.Stages[i])
	case evTaskStart:
		e.taskStart(app.Stages[i], int(ev.task))
	case evTaskGettingResult:
		e.taskGettingResult(app.Stages[i], int(ev.task))
	case evTaskEnd, evTaskEndInPlace:
		e.taskEnd(app.Stages[i], int(ev.task))
	}
	return e.end()
}

// rollovers writes the application's Databricks part markers first, as
// Databricks does; the model does not keep where later ones stood.
func (e *encoder) rollovers() {
	for _, r := range e.app.Rollovers {
		e.begin(dbcEvent)
		e.j.kstr("Spark Version", r.SparkVersion)
		e.j.kint("Timestamp", r.Timestamp)
		e.j.kint("Rollover Number", r.Number)
		e.j.key("SparkContext Id")
		if _, err := strconv.ParseInt(r.ContextID, 10, 64); err == nil {
			e.j.raw(r.ContextID)
		} else {
			e.j.str(r.ContextID)
		}
		e.j.close('}')
		e.j.newline()
	}
}

func (e *encoder) logStart() {
	v := e.app.Version
	if v == "" {
		v = DefaultSparkVersion
	}
	e.begin("SparkListenerLogStart")
	e.j.kstr("Spark Version", v)
	e.j.close('}')
	e.j.newline()
}

// defaultProfile is ResourceProfile.getOrCreateDefaultProfile with Spark's
// default settings (1 core, 1g executors, 1 cpu per task).
var defaultProfile = model.ResourceProfile{
	ID: 0,
	Executor: []model.ResourceRequest{
		{Name: "cores", Amount: 1}, {Name: "memory", Amount: 1024}, {Name: "offHeap", Amount: 0},
	},
	Task: []model.ResourceRequest{{Name: "cpus", Amount: 1}},
}

// resourceProfiles writes SparkListenerResourceProfileAdded for each profile,
// or for the default profile when the model has none (Spark 3.1+ always logs it).
func (e *encoder) resourceProfiles() {
	profiles := e.app.ResourceProfiles
	if len(profiles) == 0 {
		profiles = []model.ResourceProfile{defaultProfile}
	}
	for _, rp := range profiles {
		e.begin("SparkListenerResourceProfileAdded")
		e.j.kint("Resource Profile Id", int64(rp.ID))
		e.j.key("Executor Resource Requests")
		e.j.open('{')
		for _, r := range rp.Executor {
			e.j.keyEsc(r.Name)
			e.j.open('{')
			e.j.kstr("Resource Name", r.Name)
			e.j.key("Amount")
			if r.Amount == float64(int64(r.Amount)) {
				e.j.int(int64(r.Amount)) // ExecutorResourceRequest.amount is a Long
			} else {
				e.j.float(r.Amount)
			}
			e.j.kstr("Discovery Script", r.DiscoveryScript)
			e.j.kstr("Vendor", r.Vendor)
			e.j.close('}')
		}
		e.j.close('}')
		e.j.key("Task Resource Requests")
		e.j.open('{')
		for _, r := range rp.Task {
			e.j.keyEsc(r.Name)
			e.j.open('{')
			e.j.kstr("Resource Name", r.Name)
			e.j.key("Amount")
			e.j.float(r.Amount)
			e.j.close('}')
		}
		e.j.close('}')
		e.j.close('}')
		e.j.newline()
	}
}

func (e *encoder) environment() {
	env := &e.app.Env
	if !env.Seen {
		return
	}
	e.begin("SparkListenerEnvironmentUpdate")
	e.j.kmap("JVM Information", env.JVM)
	e.j.kmap("Spark Properties", env.Spark)
	e.j.kmap("Hadoop Properties", env.Hadoop)
	e.j.kmap("System Properties", env.System)
	e.j.kmap("Metrics Properties", env.Metrics)
	e.j.kmap("Classpath Entries", env.Classpath)
	e.j.close('}')
	e.j.newline()
}

func (e *encoder) appStart() {
	a := e.app
	e.begin("SparkListenerApplicationStart")
	e.j.kstr("App Name", a.Name)
	if a.ID != "" {
		e.j.kstr("App ID", a.ID)
	}
	e.j.kint("Timestamp", a.Start)
	e.j.kstr("User", a.User)
	if a.AttemptID != "" {
		e.j.kstr("App Attempt ID", a.AttemptID)
	}
	if a.DriverLogs != nil {
		e.j.kmap("Driver Logs", a.DriverLogs)
	}
	if a.DriverAttributes != nil {
		e.j.kmap("Driver Attributes", a.DriverAttributes)
	}
	e.j.close('}')
	e.j.newline()
}

func (e *encoder) executorAdded(x *model.Executor) {
	e.begin("SparkListenerExecutorAdded")
	e.j.kint("Timestamp", x.Added)
	e.j.kstr("Executor ID", x.ID)
	e.j.key("Executor Info")
	e.j.open('{')
	e.j.kstr("Host", x.Host)
	e.j.kint("Total Cores", int64(x.Cores))
	e.j.kmap("Log Urls", x.LogURLs)
	e.j.kmap("Attributes", x.Attributes)
	e.j.key("Resources")
	e.j.open('{')
	for _, r := range x.Resources {
		e.j.keyEsc(r.Name)
		e.j.open('{')
		e.j.kstr("name", r.Name)
		e.j.key("addresses")
		e.j.open('[')
		for _, a := range r.Addresses {
			e.j.str(a)
		}
		e.j.close(']')
		e.j.close('}')
	}
	e.j.close('}')
	e.j.kint("Resource Profile Identifier", int64(x.Profile))
	e.j.close('}')
}

// splitHostPort splits "host:port" (HostPort as the reader builds it).
func splitHostPort(hp, host string) (string, int64) {
	if i := strings.LastIndexByte(hp, ':'); i >= 0 {
		if p, err := strconv.ParseInt(hp[i+1:], 10, 64); err == nil {
			return hp[:i], p
		}
	}
	return host, 0
}

func (e *encoder) blockManagerAdded(x *model.Executor) {
	host, port := splitHostPort(x.HostPort, x.Host)
	t := x.BlockManagerAdded
	if t == 0 {
		t = x.Added
	}
	e.begin("SparkListenerBlockManagerAdded")
	e.j.key("Block Manager ID")
	e.j.open('{')
	e.j.kstr("Executor ID", x.ID)
	e.j.kstr("Host", host)
	e.j.kint("Port", port)
	e.j.close('}')
	e.j.kint("Maximum Memory", x.MaxMemory)
	e.j.kint("Timestamp", t)
	e.j.kint("Maximum Onheap Memory", x.MaxOnHeapMemory)
	e.j.kint("Maximum Offheap Memory", x.MaxOffHeapMemory)
}

func (e *encoder) processAdded(p *model.Process) {
	e.begin("SparkListenerMiscellaneousProcessAdded")
	e.j.kint("time", p.Time)
	e.j.kstr("processId", p.ID)
	e.j.key("info")
	e.j.open('{')
	e.j.kstr("hostPort", p.Host)
	e.j.kint("cores", int64(p.Cores))
	e.j.kmap("logUrlInfo", p.LogURLs)
	e.j.close('}')
}

func (e *encoder) jobStart(job *model.Job) {
	e.begin("SparkListenerJobStart")
	e.j.kint("Job ID", int64(job.ID))
	e.j.kint("Submission Time", job.Submitted)
	e.j.key("Stage Infos")
	e.j.open('[')
	ids := slices.Clone(job.StageIDs)
	slices.Sort(ids)
	for k, sid := range ids {
		st := e.jobStageAttempt(sid, job.Submitted)
		if st == nil {
			continue
		}
		name := st.Name
		if k == len(ids)-1 && job.Name != "" {
			name = job.Name // the job is named after its final stage as listed at its start
		}
		n := st.NumTasks
		if k < len(job.StageTasks) {
			n = job.StageTasks[k]
		}
		var sub, done int64
		var failure *string
		if st.Submitted != 0 && st.Submitted <= job.Submitted {
			sub = st.Submitted
			if st.Completed != 0 && st.Completed <= job.Submitted {
				done = st.Completed
				if st.Status == model.StageFailed {
					failure = &st.Failure
				}
			}
		}
		e.stageInfo(st, name, n, sub, done, failure, done != 0)
	}
	e.j.close(']')
	e.j.key("Stage IDs")
	e.j.open('[')
	for _, id := range job.StageIDs {
		e.j.int(int64(id))
	}
	e.j.close(']')
	if job.Properties != nil {
		e.j.kmap("Properties", job.Properties)
	}
}

// jobStageAttempt picks the attempt of stage id a job started at time t
// lists: the latest one submitted by then (a stage reused from an earlier
// job), else the first.
func (e *encoder) jobStageAttempt(id int32, t int64) *model.Stage {
	idx := e.attempts[id]
	if len(idx) == 0 {
		return nil
	}
	pick := e.app.Stages[idx[0]]
	for _, i := range idx {
		if st := e.app.Stages[i]; st.Submitted != 0 && st.Submitted <= t && st.Attempt >= pick.Attempt {
			pick = st
		}
	}
	return pick
}

func (e *encoder) jobEnd(job *model.Job) {
	e.begin("SparkListenerJobEnd")
	e.j.kint("Job ID", int64(job.ID))
	e.j.kint("Completion Time", job.Completed)
	e.j.key("Job Result")
	e.j.open('{')
	if job.Status == model.JobSucceeded {
		e.j.kstr("Result", "JobSucceeded")
	} else {
		e.j.kstr("Result", "JobFailed")
		e.j.key("Exception")
		e.j.open('{')
		e.j.kstr("Message", job.Failure)
		e.j.key("Stack Trace")
		e.j.open('[')
		e.j.close(']')
		e.j.close('}')
	}
	e.j.close('}')
}
