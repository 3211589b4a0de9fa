package correlate

import (
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// DefaultSkewMs is the default clock-skew tolerance between the hosts'
// clocks and the logs' (NTP keeps a cluster within tens of milliseconds;
// two seconds also covers a one-second sampler's stamping jitter).
const DefaultSkewMs = 2000

// Options tune the correlation.
type Options struct {
	// SkewMs is the clock-skew tolerance: a sample stamped t belongs to a
	// window when (t-Δ-SkewMs, t+SkewMs] overlaps it. 0 means
	// DefaultSkewMs; negative means none.
	SkewMs int64
	// IntervalMs overrides each host's sampling interval Δ (0: the median
	// spacing of its samples).
	IntervalMs int64
	// Aliases map host names the logs use to names the samples use (or
	// back), for example IP addresses to host names.
	Aliases map[string]string
	// Offsets are sample hosts' clock offsets (ms ahead of the logs'
	// clock, from EstimateOffsets): their samples are moved onto the logs'
	// clock before the tolerance applies.
	Offsets map[string]int64
	// Profile tunes the resource classification.
	Profile ProfileOptions
	// Others are other applications whose attempts ran on the same
	// cluster (for example every application loaded; the correlated one is
	// skipped if present): StageViews counts their attempts as foreign
	// work on each host. Nothing else uses them.
	Others []*model.App
}

func (o Options) skew() int64 {
	switch {
	case o.SkewMs == 0:
		return DefaultSkewMs
	case o.SkewMs < 0:
		return 0
	}
	return o.SkewMs
}

// Correlation is an application's windows indexed per host against the
// hosts' samples.
type Correlation struct {
	app     *model.App
	opts    Options
	skew    int64
	hosts   []hostIndex
	matches []HostMatch
	missing []string
	// taskRef maps a task window id to its stage and task index.
	taskRef [][2]int32
}

// hostIndex is one matched host's frame and windows, each sorted by start.
type hostIndex struct {
	match HostMatch
	frame *Frame
	iv    int64
	// times are the frame's times on the logs' clock: shifted by the
	// host's Options.Offsets entry, else the frame's own.
	times  []int64
	tasks  []window // id: index into Correlation.taskRef
	stages []window // id: index into App.Stages
	jobs   []window // id: index into App.Jobs
	// foreign are Options.Others' attempts on the host (id unused).
	foreign []window
}

// New matches the application's hosts to the frames' hosts and indexes
// each matched host's task, stage and job windows. A task's window is
// [Launch, Finish] (Finish, or the application's end for an attempt still
// running); a stage's window on a host is the span of its attempts there
// (first launch to last finish), a job's the span of its stages' attempts
// there. fs must be finished (Frames.Finish).
func New(app *model.App, fs *Frames, opts Options) *Correlation {
	c := &Correlation{app: app, opts: opts, skew: opts.skew()}
	used := map[uint32]bool{}
	for _, st := range app.Stages {
		for i := range st.Tasks {
			used[st.Tasks[i].Host] = true
		}
	}
	var logHosts []string
	for i, h := range app.Hosts {
		if i > 0 && used[uint32(i)] {
			logHosts = append(logHosts, h)
		}
	}
	var sampleHosts []string
	for _, f := range fs.Hosts() {
		sampleHosts = append(sampleHosts, f.Host)
	}
	c.matches, c.missing = MatchHosts(logHosts, sampleHosts, opts.Aliases)
	byLog := map[string]int{}
	for _, m := range c.matches {
		f := fs.Host(m.SampleHost)
		iv := f.IntervalMs
		if opts.IntervalMs > 0 {
			iv = opts.IntervalMs
		}
		byLog[m.Host] = len(c.hosts)
		c.hosts = append(c.hosts, hostIndex{match: m, frame: f, iv: iv, times: f.Times})
	}
	hostOf := make([]int, len(app.Hosts))
	for i := range hostOf {
		hostOf[i] = -1
		if k, ok := byLog[app.Hosts[i]]; ok && i > 0 {
			hostOf[i] = k
		}
	}
	jobIdx := map[int32]int32{}
	jobOf := map[int32][]int32{} // stage id → job indexes
	for j, job := range app.Jobs {
		jobIdx[job.ID] = int32(j)
		for _, sid := range job.StageIDs {
			jobOf[sid] = append(jobOf[sid], int32(j))
		}
	}
	jobSpans := map[[2]int32]*window{} // (host index, job index) → span
	for si, st := range app.Stages {
		spans := map[int]*window{} // host index → the stage's span there
		for ti := range st.Tasks {
			t := &st.Tasks[ti]
			k := hostOf[t.Host]
			s, e := taskSpan(app, t)
			if k < 0 || s <= 0 || e < s || app.Misdated(st, t) {
				continue
			}
			h := &c.hosts[k]
			h.tasks = append(h.tasks, window{s, e, int32(len(c.taskRef))})
			c.taskRef = append(c.taskRef, [2]int32{int32(si), int32(ti)})
			if w := spans[k]; w != nil {
				w.start, w.end = min(w.start, s), max(w.end, e)
			} else {
				spans[k] = &window{s, e, int32(si)}
			}
		}
		jobs := slices.Clone(jobOf[st.ID])
		for _, jid := range st.JobIDs {
			if j, ok := jobIdx[jid]; ok && !slices.Contains(jobs, j) {
				jobs = append(jobs, j)
			}
		}
		for k, w := range spans {
			c.hosts[k].stages = append(c.hosts[k].stages, *w)
			for _, j := range jobs {
				key := [2]int32{int32(k), j}
				if jw := jobSpans[key]; jw != nil {
					jw.start, jw.end = min(jw.start, w.start), max(jw.end, w.end)
				} else {
					jobSpans[key] = &window{w.start, w.end, j}
				}
			}
		}
	}
	for key, w := range jobSpans {
		c.hosts[key[0]].jobs = append(c.hosts[key[0]].jobs, *w)
	}
	c.indexOthers(byLog)
	for k := range c.hosts {
		h := &c.hosts[k]
		sortWindows(h.tasks)
		sortWindows(h.stages)
		sortWindows(h.jobs)
		sortWindows(h.foreign)
		if d := opts.Offsets[h.match.SampleHost]; d != 0 {
			h.match.OffsetMs = d
			h.times = make([]int64, len(h.frame.Times))
			for i, t := range h.frame.Times {
				h.times[i] = t - d
			}
			c.matches[k] = h.match
		}
	}
	return c
}

// indexOthers adds Options.Others' attempts to the windows of the hosts
// they ran on, found by their log name or the matched sample host's name.
func (c *Correlation) indexOthers(byLog map[string]int) {
	if len(c.opts.Others) == 0 {
		return
	}
	bySample := map[string]int{}
	for k, h := range c.hosts {
		bySample[h.match.SampleHost] = k
	}
	for _, o := range c.opts.Others {
		if o == nil || o == c.app {
			continue
		}
		hostOf := make([]int, len(o.Hosts))
		for i, name := range o.Hosts {
			k, ok := byLog[name]
			if !ok {
				k, ok = bySample[name]
			}
			hostOf[i] = -1
			if ok && i > 0 {
				hostOf[i] = k
			}
		}
		for _, st := range o.Stages {
			for ti := range st.Tasks {
				t := &st.Tasks[ti]
				if int(t.Host) >= len(hostOf) || hostOf[t.Host] < 0 {
					continue
				}
				if s, e := taskSpan(o, t); s > 0 && e >= s {
					h := &c.hosts[hostOf[t.Host]]
					h.foreign = append(h.foreign, window{s, e, -1})
				}
			}
		}
	}
}

// taskSpan is a task attempt's window: launch to finish, or to the
// application's end (or its last known time) while running.
func taskSpan(app *model.App, t *model.Task) (int64, int64) {
	e := t.Finish
	if e <= 0 {
		e = app.End
	}
	return t.Launch, e
}

// App is the application correlated.
func (c *Correlation) App() *model.App { return c.app }

// SkewMs is the clock-skew tolerance in effect.
func (c *Correlation) SkewMs() int64 { return c.skew }

// Matches are the log hosts matched to sample hosts.
func (c *Correlation) Matches() []HostMatch { return c.matches }

// Unmatched are the log hosts that ran tasks and have no samples.
func (c *Correlation) Unmatched() []string { return c.missing }

// Hosts is how many log hosts were matched.
func (c *Correlation) Hosts() int { return len(c.hosts) }

// Host returns matched host k's match, frame and sampling interval.
func (c *Correlation) Host(k int) (HostMatch, *Frame, int64) {
	h := &c.hosts[k]
	return h.match, h.frame, h.iv
}

// EachTask calls fn for every (sample row, task window) pair of host k:
// the task-resource correlation. stage and task index App.Stages and the
// stage's Tasks.
func (c *Correlation) EachTask(k int, fn func(row int, stage, task int32)) {
	h := &c.hosts[k]
	sweep(h.times, h.iv, c.skew, h.tasks, nil, func(row int, id int32) {
		r := c.taskRef[id]
		fn(row, r[0], r[1])
	})
}

// EachStage calls fn for every (sample row, stage window) pair of host k:
// the stage-resource correlation; stage indexes App.Stages.
func (c *Correlation) EachStage(k int, fn func(row int, stage int32)) {
	h := &c.hosts[k]
	sweep(h.times, h.iv, c.skew, h.stages, nil, fn)
}

// EachJob calls fn for every (sample row, job window) pair of host k: the
// job-resource correlation; job indexes App.Jobs.
func (c *Correlation) EachJob(k int, fn func(row int, job int32)) {
	h := &c.hosts[k]
	sweep(h.times, h.iv, c.skew, h.jobs, nil, fn)
}

// StageWindow returns stage si's window on host k, ok false when none of
// its attempts ran there.
func (c *Correlation) StageWindow(k int, si int32) (start, end int64, ok bool) {
	for _, w := range c.hosts[k].stages {
		if w.id == si {
			return w.start, w.end, true
		}
	}
	return 0, 0, false
}
