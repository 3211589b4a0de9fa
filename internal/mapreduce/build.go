package mapreduce

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// builder assembles one model.App from the records of one job, whichever of
// the three formats they come from. Its maps are transient: the App it
// builds holds only interned hosts and flat task structs.
type builder struct {
	app      *model.App
	hosts    *model.Interner
	reasons  map[model.Reason]uint32
	stages   [model.StageCleanup + 1]*model.Stage // by kind
	declared [model.StageCleanup + 1]int32        // task counts the job declared
	failed   [model.StageCleanup + 1]string       // first task-level failure per stage
	attempts map[string]attemptRef
	splits   map[int32]string  // map task number → its split locations, as logged
	ports    map[uint32]int32  // host → a port attempts on it used
	lookup   map[string]uint32 // host or rack name → interned index, while building
	nextID   int64

	submit, launch, finish int64
	status                 string // final job status (SUCCEEDED, FAILED, KILLED, ERROR, ...)
	complete               bool
	diagnostics            string
	queue, priority        string
}

type attemptRef struct {
	kind model.StageKind
	idx  int32
}

// attemptRec is what one record says about one task attempt. Zero fields are
// unknown and leave what earlier records said in place.
type attemptRec struct {
	id                               string
	kind                             model.StageKind // StageSpark (0) when the record does not say
	start, finish                    int64
	host, rack                       string
	port                             int32
	status                           model.TaskStatus
	hasStatus                        bool
	errMsg                           string
	ctr                              *counters // nil when the record has no counters
	mapFinish, shuffleFinish, sortFn int64
	locality                         model.Locality
	speculative                      bool
}

var noMetrics model.TaskMetrics

func newBuilder(source string) *builder {
	return &builder{
		app: &model.App{
			Engine:  model.MapReduce,
			Source:  source,
			Reasons: []model.Reason{{}},
		},
		hosts:    model.NewInterner(),
		reasons:  map[model.Reason]uint32{},
		attempts: map[string]attemptRef{},
		splits:   map[int32]string{},
		ports:    map[uint32]int32{},
	}
}

func (b *builder) stage(k model.StageKind) *model.Stage {
	if k < model.StageMap || k > model.StageCleanup {
		k = model.StageMap
	}
	if b.stages[k] == nil {
		b.stages[k] = &model.Stage{
			ID:     stageID(k),
			Kind:   k,
			Name:   k.String(),
			JobIDs: []int32{0},
		}
	}
	return b.stages[k]
}

func (b *builder) hasReduces() bool {
	return b.declared[model.StageReduce] > 0 || b.stages[model.StageReduce] != nil
}

// reason interns a failure reason and returns its index in App.Reasons.
func (b *builder) reason(kind, msg string) uint32 {
	r := model.Reason{Kind: kind, Message: msg}
	if i, ok := b.reasons[r]; ok {
		return i
	}
	i := uint32(len(b.app.Reasons))
	b.app.Reasons = append(b.app.Reasons, r)
	b.reasons[r] = i
	return i
}

// task records what a task-level record says: when the task was scheduled,
// its split locations, when it ended and, for a failed task, why.
func (b *builder) task(kind model.StageKind, index int32, start, finish int64, status, errMsg, splits string) {
	st := b.stage(kind)
	if start > 0 && (st.Submitted == 0 || start < st.Submitted) {
		st.Submitted = start
	}
	if finish > st.Completed {
		st.Completed = finish
	}
	if kind == model.StageMap && splits != "" {
		b.splits[index] = splits
	}
	if s, _ := parseStatus(status); s == model.TaskFailed && b.failed[kind] == "" {
		b.failed[kind] = "task " + strconv.Itoa(int(index)) + " failed"
		if errMsg != "" {
			b.failed[kind] += ": " + errMsg
		}
	}
}

// attempt merges one record about a task attempt into its Task, creating the
// Task at the attempt's first record.
func (b *builder) attempt(r *attemptRec) {
	ref, ok := b.attempts[r.id]
	if !ok {
		id, okID := parseAttemptID(r.id)
		kind := r.kind
		if kind == model.StageSpark {
			if k, okK := kindOfLetter(id.typ); okID && okK {
				kind = k
			} else {
				kind = model.StageMap
			}
		}
		t := model.Task{ID: b.nextID, Index: -1, Partition: -1, Status: model.TaskRunning}
		if okID {
			t.Index, t.Partition, t.Attempt = id.task, id.task, id.attempt
		}
		b.nextID++
		st := b.stage(kind)
		ref = attemptRef{kind: st.Kind, idx: int32(st.AddTask(t, &noMetrics))}
		b.attempts[r.id] = ref
	}
	st := b.stages[ref.kind]
	t := &st.Tasks[ref.idx]
	if r.start > 0 {
		t.Launch = r.start
	}
	if r.finish > 0 {
		t.Finish = r.finish
	}
	if r.host != "" {
		t.Host = b.hosts.ID(r.host)
		t.Rack = 0
		if r.rack != "" {
			t.Rack = b.hosts.ID(r.rack)
		}
		if r.port > 0 {
			if _, ok := b.ports[t.Host]; !ok {
				b.ports[t.Host] = r.port
			}
		}
	}
	if r.hasStatus {
		t.Status = r.status
		switch r.status {
		case model.TaskFailed:
			t.Reason = b.reason("FAILED", r.errMsg)
		case model.TaskKilled:
			t.Reason = b.reason("KILLED", r.errMsg)
		}
	}
	if r.locality != model.LocalityUnknown {
		t.Locality = r.locality
	}
	if r.speculative {
		t.Speculative = true
	}

	runTime := int64(0)
	if t.Launch > 0 && t.Finish >= t.Launch {
		runTime = t.Finish - t.Launch
	}
	if r.ctr == nil && r.mapFinish == 0 && r.shuffleFinish == 0 && r.sortFn == 0 && runTime == 0 {
		return
	}
	var old, m model.TaskMetrics
	st.TaskMetrics(int(ref.idx), &old)
	m = old
	if r.ctr != nil {
		m = r.ctr.m
		derive(&m, st.Kind, b.hasReduces(), r.ctr.materialized)
		m[model.MapPhaseFinish] = old[model.MapPhaseFinish]
		m[model.ShufflePhaseFinish] = old[model.ShufflePhaseFinish]
		m[model.SortPhaseFinish] = old[model.SortPhaseFinish]
	}
	if r.mapFinish > 0 {
		m[model.MapPhaseFinish] = r.mapFinish
	}
	if r.shuffleFinish > 0 {
		m[model.ShufflePhaseFinish] = r.shuffleFinish
	}
	if r.sortFn > 0 {
		m[model.SortPhaseFinish] = r.sortFn
	}
	if runTime > 0 {
		m[model.ExecutorRunTime] = runTime
	}
	if m != old {
		st.SetTaskMetrics(int(ref.idx), &m)
	}
}

// build finishes the App: stages in execution order with their status,
// locality, one executor per host, the job, and the application's times.
func (b *builder) build() *model.App {
	app := b.app
	b.stage(model.StageMap)
	if b.declared[model.StageReduce] > 0 {
		b.stage(model.StageReduce)
	}
	succeeded := b.status == "SUCCEEDED" || b.status == "SUCCESS"
	hostRack := b.hostRacks()
	if len(b.splits) > 0 {
		b.lookup = make(map[string]uint32, len(b.hosts.All))
		for i, h := range b.hosts.All {
			b.lookup[h] = uint32(i)
		}
	}
	job := &model.Job{
		ID:          0,
		Name:        app.Name,
		SQLID:       -1,
		Submitted:   b.submit,
		Completed:   b.finish,
		ResultStage: 0,
	}
	for _, k := range [...]model.StageKind{model.StageSetup, model.StageMap, model.StageReduce, model.StageCleanup} {
		st := b.stages[k]
		if st == nil {
			continue
		}
		b.finishStage(st, succeeded, hostRack)
		app.Stages = append(app.Stages, st)
		job.StageIDs = append(job.StageIDs, st.ID)
		job.StageTasks = append(job.StageTasks, st.NumTasks)
		if k == model.StageReduce {
			job.ResultStage = st.ID
		}
	}
	switch {
	case !b.complete:
		job.Status = model.JobRunning
	case succeeded:
		job.Status = model.JobSucceeded
	default:
		job.Status = model.JobFailed
		job.Failure = b.status
		if b.diagnostics != "" {
			job.Failure += ": " + b.diagnostics
		}
	}
	if b.queue != "" {
		job.Properties = append(job.Properties, [2]string{"queue", b.queue})
	}
	if b.priority != "" {
		job.Properties = append(job.Properties, [2]string{"priority", b.priority})
	}
	if b.launch > 0 {
		job.Properties = append(job.Properties, [2]string{"launchTime", strconv.FormatInt(b.launch, 10)})
	}
	app.Jobs = []*model.Job{job}
	b.executors()
	app.Hosts = b.hosts.All

	app.Start = b.submit
	if app.Start == 0 {
		app.Start = b.launch
	}
	if app.Start == 0 {
		for _, st := range app.Stages {
			if st.Submitted > 0 && (app.Start == 0 || st.Submitted < app.Start) {
				app.Start = st.Submitted
			}
		}
	}
	app.Complete = b.complete
	if b.complete {
		app.End = b.finish
	}
	return app
}

// hostRacks learns each host's rack from the attempts that logged both.
func (b *builder) hostRacks() map[uint32]uint32 {
	m := map[uint32]uint32{}
	for _, st := range b.stages {
		if st == nil {
			continue
		}
		for i := range st.Tasks {
			if t := &st.Tasks[i]; t.Host != 0 && t.Rack != 0 {
				m[t.Host] = t.Rack
			}
		}
	}
	return m
}

func (b *builder) finishStage(st *model.Stage, jobSucceeded bool, hostRack map[uint32]uint32) {
	done := map[int32]bool{}
	var last int64
	for i := range st.Tasks {
		t := &st.Tasks[i]
		if _, ok := done[t.Index]; !ok {
			done[t.Index] = false
		}
		if t.Status == model.TaskSuccess {
			done[t.Index] = true
		}
		if t.Finish > last {
			last = t.Finish
		}
		if t.Launch > 0 && (st.Submitted == 0 || t.Launch < st.Submitted) {
			st.Submitted = t.Launch
		}
		if st.Kind == model.StageMap && t.Locality == model.LocalityUnknown && t.Host != 0 {
			if sp, ok := b.splits[t.Index]; ok {
				t.Locality = b.locality(sp, t, hostRack)
			}
		}
	}
	st.NumTasks = b.declared[st.Kind]
	if st.NumTasks == 0 {
		st.NumTasks = int32(len(done))
	}
	ok := 0
	for _, v := range done {
		if v {
			ok++
		}
	}
	st.Failure = b.failed[st.Kind]
	switch {
	case len(st.Tasks) == 0 && b.complete:
		st.Status = model.StageSkipped
	case len(st.Tasks) == 0:
		st.Status = model.StagePending
	case st.Failure != "":
		st.Status = model.StageFailed
	case (b.complete && jobSucceeded) || (st.NumTasks > 0 && ok >= int(st.NumTasks)):
		st.Status = model.StageComplete
	case b.complete:
		st.Status = model.StageFailed
	default:
		st.Status = model.StageActive
	}
	if st.Status == model.StageActive || st.Status == model.StagePending {
		st.Completed = 0
	} else if last > st.Completed {
		st.Completed = last
	}
	st.Metrics.Compact()
	if cap(st.Tasks) > len(st.Tasks)+len(st.Tasks)/8 {
		st.Tasks = append([]model.Task(nil), st.Tasks...)
	}
}

// locality compares a map attempt's host and rack with its split locations
// ("host" or "/rack/host", comma separated): NODE_LOCAL when the host holds a
// split, RACK_LOCAL when its rack does, ANY when every split's rack is known
// and none matches, unknown otherwise.
func (b *builder) locality(splits string, t *model.Task, hostRack map[uint32]uint32) model.Locality {
	host := b.hosts.All[t.Host]
	rack := t.Rack
	if rack == 0 {
		rack = hostRack[t.Host]
	}
	allKnown := true
	rackLocal := false
	for s := range strings.SplitSeq(splits, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		r, h := splitHost(s)
		if h == host {
			return model.NodeLocal
		}
		var rid uint32
		if r != "" {
			rid = b.lookup[r]
		} else {
			rid = hostRack[b.lookup[h]]
		}
		if rid == 0 {
			allKnown = false
		} else if rid == rack && rack != 0 {
			rackLocal = true
		}
	}
	switch {
	case rackLocal:
		return model.RackLocal
	case allKnown && rack != 0:
		return model.AnyLocality
	}
	return model.LocalityUnknown
}

// executors makes one executor per host that ran attempts, in order of
// first use, and points each task at its host's executor. Attempts whose
// host is unknown share a last executor with an empty ID and host.
func (b *builder) executors() {
	app := b.app
	byHost := map[uint32]uint32{}
	order := slices.Clone(app.Stages)
	type first struct {
		id   int64
		host uint32
	}
	var firsts []first
	seen := map[uint32]bool{}
	for _, st := range order {
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if !seen[t.Host] {
				seen[t.Host] = true
				firsts = append(firsts, first{t.ID, t.Host})
			}
		}
	}
	sort.Slice(firsts, func(i, j int) bool {
		if (firsts[i].host == 0) != (firsts[j].host == 0) {
			return firsts[j].host == 0
		}
		return firsts[i].id < firsts[j].id
	})
	for _, f := range firsts {
		name := b.hosts.All[f.host]
		e := &model.Executor{ID: name, Host: name}
		if p, ok := b.ports[f.host]; ok && name != "" {
			e.HostPort = name + ":" + strconv.Itoa(int(p))
		}
		byHost[f.host] = uint32(len(app.Executors))
		app.Executors = append(app.Executors, e)
	}
	for _, st := range order {
		for i := range st.Tasks {
			t := &st.Tasks[i]
			ei := byHost[t.Host]
			t.Executor = ei
			if e := app.Executors[ei]; t.Launch > 0 && (e.Added == 0 || t.Launch < e.Added) {
				e.Added = t.Launch
			}
		}
	}
}
