package history

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/summary"
)

// FromApp condenses one analyzed application into a Run: log is where it
// was read from, inProgress whether that log is still being written, and
// findings what the detectors said of it.
func FromApp(app *model.App, log string, inProgress bool, findings []finding.Finding) *Run {
	s := summary.Build(app)
	r := &Run{
		Key: RunKey(app), Log: log,
		ID: app.ID, Attempt: app.AttemptID, Name: app.Name, User: app.User,
		Engine: app.Engine.String(), Version: app.Version, Platform: app.Platform.Name,
		Start: app.Start, End: app.End, DurationMs: app.Duration(), LastUpdated: app.LastUpdated,
		Status:   status(app, s, inProgress),
		Findings: []Finding{},
	}
	// A log without its application start (cut short, or made by hand)
	// starts at its first event, not at 1970; a run without an end lasted
	// at least until its last event (DurationMs then is a lower bound: the
	// views take durations of ended runs only).
	first, last := eventSpan(app)
	if r.Start <= 0 {
		r.Start = first
	}
	switch {
	case r.Start <= 0:
	case r.End >= r.Start:
		r.DurationMs = r.End - r.Start
	case r.End <= 0 && last > r.Start:
		r.DurationMs = last - r.Start
	}
	r.Totals = Totals{Jobs: s.Totals.Jobs, FailedJobs: s.Totals.FailedJobs, Stages: s.Totals.Stages,
		FailedStages: s.Totals.FailedStages, Tasks: s.Totals.Tasks, FailedTasks: s.Totals.FailedTasks}
	r.Cluster = cluster(app, s)

	byKey := map[model.StageKey]int{}
	for i, ss := range s.Stages {
		st := Stage{ID: ss.ID, Attempt: ss.Attempt, Name: ss.Name, Status: ss.Status, Tasks: ss.Tasks,
			Failed: ss.Failed, DurationMs: ss.DurationMs, InputBytes: ss.InputBytes, OutputBytes: ss.OutputBytes,
			ShuffleReadBytes: ss.ShuffleReadBytes, ShuffleWriteBytes: ss.ShuffleWriteBytes,
			SpillBytes: ss.SpillBytes, GCTimeMs: ss.GCTimeMs}
		copy(st.Quantiles[:], ss.TaskDurationMs)
		r.Stages = append(r.Stages, st)
		byKey[model.StageKey{ID: ss.ID, Attempt: ss.Attempt}] = i
		r.Totals.InputBytes += ss.InputBytes
		r.Totals.OutputBytes += ss.OutputBytes
		r.Totals.ShuffleReadBytes += ss.ShuffleReadBytes
		r.Totals.ShuffleWriteBytes += ss.ShuffleWriteBytes
		r.Totals.SpillBytes += ss.SpillBytes
		r.Totals.TaskTimeMs += ss.TaskTimeMs
		r.Totals.GCTimeMs += ss.GCTimeMs
	}
	var m model.TaskMetrics
	slots := slotsOf(app)
	idle := idleOf(app, slots)
	for _, ms := range app.Stages {
		st := &r.Stages[byKey[ms.Key()]]
		st.Times = stageTimes(app, ms, slots, idle)
		hosts := map[uint32]*HostStage{}
		for i := range ms.Tasks {
			t := &ms.Tasks[i]
			if t.Status != model.TaskSuccess || app.Resubmitted(t) {
				continue
			}
			ms.TaskMetrics(i, &m)
			st.InputRecords += m[model.InputRecords] + m[model.MapInputRecords]
			st.OutputRecords += m[model.OutputRecords] + m[model.ReduceOutputRecords]
			if app.Engine == model.Spark {
				st.RunTimeMs += m[model.ExecutorRunTime]
				st.CPUTimeMs += m[model.ExecutorCPUNanos] / 1e6
			} else {
				st.RunTimeMs += t.Duration()
				st.CPUTimeMs += m[model.CPUMillis]
			}
			h := hosts[t.Host]
			if h == nil {
				h = &HostStage{Stage: ms.ID, Attempt: ms.Attempt, Host: app.Host(t.Host), MinMs: math.MaxInt64}
				hosts[t.Host] = h
			}
			h.add(t.Duration(), m[model.InputBytes]+m.ShuffleReadBytes()+m[model.OutputBytes]+
				m[model.ShuffleWriteBytes]+m[model.HDFSBytesRead]+m[model.HDFSBytesWritten])
		}
		st.Class = Classify(st)
		r.Totals.CPUTimeMs += st.CPUTimeMs
		for _, h := range hosts {
			r.Hosts = append(r.Hosts, *h)
		}
	}
	sort.Slice(r.Hosts, func(i, j int) bool {
		a, b := &r.Hosts[i], &r.Hosts[j]
		return cmp.Or(cmp.Compare(a.Stage, b.Stage), cmp.Compare(a.Attempt, b.Attempt), cmp.Compare(a.Host, b.Host)) < 0
	})
	r.HostFacts = hostFacts(app, r)
	r.DriverMs, r.ExecutorWaitMs = driverTimes(app, slots)
	r.Config = ConfigOf(app)
	r.Queries = queriesOf(app)
	signStages(app, r)
	r.NameKey = NormalizeName(app.Name)
	r.JobKey = JobKey(r.Engine, r.NameKey, r.DAG)
	if r.NameKey == "" {
		r.JobKey = UnnamedJobKey(r.Engine, r.Key)
	}
	for _, f := range findings {
		r.Findings = append(r.Findings, Finding{Detector: f.ID, Severity: f.Severity, Scope: string(f.Scope.Kind),
			Title: f.Title, Summary: f.Summary})
		r.Worst = max(r.Worst, f.Severity)
	}
	return r
}

func (h *HostStage) add(d, bytes int64) {
	h.Tasks++
	f := float64(d)
	l := math.Log(math.Max(f, 1))
	h.SumMs += f
	h.SumSqMs += f * f
	h.SumLog += l
	h.SumSqLog += l * l
	h.MinMs = min(h.MinMs, d)
	h.MaxMs = max(h.MaxMs, d)
	h.Bytes += bytes
}

// RunKey is a run's identity: engine, application id and attempt.
func RunKey(app *model.App) string {
	return app.Engine.String() + "/" + app.ID + "/" + app.AttemptID
}

func status(app *model.App, s *summary.Summary, inProgress bool) Status {
	switch {
	case app.Complete && s.Totals.FailedJobs > 0:
		return StatusFailed
	case app.Complete:
		return StatusSucceeded
	case inProgress:
		return StatusRunning
	}
	return StatusIncomplete
}

// cluster reads the cluster's facts from the log: hosts that ran tasks,
// executors, the most executor cores alive at once, the executor memory
// setting and the instance types the platform's properties name (workers'
// first).
func cluster(app *model.App, s *summary.Summary) Cluster {
	c := Cluster{Hosts: s.Totals.Hosts, Executors: s.Totals.Executors, Cores: peakCores(app.Executors)}
	if v, ok := app.Env.SparkProp("spark.executor.memory"); ok {
		c.ExecutorMemoryMB = parseMemoryMB(v)
	}
	for _, kv := range app.Conf {
		if kv[0] == "mapreduce.map.memory.mb" {
			c.ExecutorMemoryMB, _ = strconv.ParseInt(strings.TrimSpace(kv[1]), 10, 64)
		}
	}
	var types []string
	for _, t := range []string{app.Platform.Cluster.WorkerNodeType, app.Platform.Cluster.DriverNodeType} {
		if t != "" && !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	c.InstanceTypes = strings.Join(types, ",")
	return c
}

// hostFacts are the facts of the hosts that ran r's tasks, by host: its
// rack (from its tasks), Spark executors and their peak cores there, the
// run's executor memory and the instance type the platform names.
func hostFacts(app *model.App, r *Run) []HostFact {
	facts := map[string]*HostFact{}
	for i := range r.Hosts {
		h := r.Hosts[i].Host
		if facts[h] == nil {
			facts[h] = &HostFact{Host: h, MemoryMB: r.Cluster.ExecutorMemoryMB, InstanceType: app.Platform.Cluster.WorkerNodeType}
		}
	}
	for _, st := range app.Stages {
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if f := facts[app.Host(t.Host)]; f != nil && f.Rack == "" && t.Rack != 0 {
				f.Rack = app.Host(t.Rack)
			}
		}
	}
	byHost := map[string][]*model.Executor{}
	for _, e := range app.Executors {
		if e.ID == "driver" {
			if f := facts[e.Host]; f != nil && app.Platform.Cluster.DriverNodeType != "" {
				f.InstanceType = app.Platform.Cluster.DriverNodeType
			}
		}
		byHost[e.Host] = append(byHost[e.Host], e)
	}
	out := make([]HostFact, 0, len(facts))
	for h, f := range facts {
		// The driver runs tasks in local mode only (it is then the one
		// executor).
		execs := slices.DeleteFunc(byHost[h], func(e *model.Executor) bool { return e.ID == "driver" && len(app.Executors) > 1 })
		f.Executors, f.Cores = len(execs), peakCores(execs)
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b HostFact) int { return cmp.Compare(a.Host, b.Host) })
	return out
}

// peakCores is the largest number of executor cores alive at once, from
// the executors' add and remove times (the driver of a local-mode
// application counts its cores).
func peakCores(execs []*model.Executor) int {
	type ev struct {
		t     int64
		cores int
	}
	var evs []ev
	for _, e := range execs {
		if e.Cores <= 0 {
			continue
		}
		evs = append(evs, ev{e.Added, int(e.Cores)})
		if e.Removed > 0 {
			evs = append(evs, ev{e.Removed, -int(e.Cores)})
		}
	}
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].t != evs[j].t {
			return evs[i].t < evs[j].t
		}
		return evs[i].cores < evs[j].cores // removals first at equal times
	})
	cur, peak := 0, 0
	for _, e := range evs {
		cur += e.cores
		peak = max(peak, cur)
	}
	return peak
}

// parseMemoryMB reads a JVM memory setting ("4g", "512m", "2048") in MiB,
// as Spark reads spark.executor.memory (a bare number is MiB).
func parseMemoryMB(v string) int64 {
	v = strings.ToLower(strings.TrimSpace(v))
	mult := 1.0
	switch {
	case strings.HasSuffix(v, "tb"), strings.HasSuffix(v, "t"):
		mult = 1 << 20
	case strings.HasSuffix(v, "gb"), strings.HasSuffix(v, "g"):
		mult = 1 << 10
	case strings.HasSuffix(v, "mb"), strings.HasSuffix(v, "m"):
		mult = 1
	case strings.HasSuffix(v, "kb"), strings.HasSuffix(v, "k"):
		mult = 1.0 / (1 << 10)
	}
	n, err := strconv.ParseFloat(strings.TrimRight(v, "tgmkb"), 64)
	if err != nil || n < 0 {
		return 0
	}
	return int64(n * mult)
}

// eventSpan returns the first and last times the application's events
// carry (0 when none), leaving out times before 2000 (a clock not set, a 0
// that means unknown). The first is the driver's (job and stage
// submissions, executors added), the tasks' only when the driver logged
// none: a real log without its application start has a task launched five
// years before its jobs. The last is any event's at or after the first.
func eventSpan(app *model.App) (first, last int64) {
	const y2000 = 946_684_800_000
	early := func(t int64) {
		if t >= y2000 && (first == 0 || t < first) {
			first = t
		}
	}
	for _, j := range app.Jobs {
		early(j.Submitted)
	}
	for _, st := range app.Stages {
		early(st.Submitted)
	}
	for _, e := range app.Executors {
		early(e.Added)
	}
	if first == 0 {
		for _, st := range app.Stages {
			for i := range st.Tasks {
				early(st.Tasks[i].Launch)
			}
		}
	}
	late := func(t int64) {
		if t >= y2000 && t >= first {
			last = max(last, t)
		}
	}
	late(app.End)
	for _, j := range app.Jobs {
		late(j.Submitted)
		late(j.Completed)
	}
	for _, st := range app.Stages {
		late(st.Submitted)
		late(st.Completed)
		for i := range st.Tasks {
			if st.Tasks[i].Launch >= first {
				late(st.Tasks[i].Launch)
				late(st.Tasks[i].Finish)
			}
		}
	}
	for _, e := range app.Executors {
		late(e.Added)
		late(e.Removed)
	}
	return first, last
}
