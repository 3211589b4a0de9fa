package diagnose

import (
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// taskRec is one successful task attempt with the numbers the HybridTune
// and BDTune detectors compare: duration, data size, locality and the
// metrics that explain slow tasks.
type taskRec struct {
	stage, task int // indices into App.Stages and the stage's Tasks
	id          int64
	index       int32
	host        uint32
	launch      int64
	finish      int64
	dur         int64 // ms
	bytes       int64 // input plus shuffle read (MapReduce: HDFS read, reduce shuffle bytes)
	input       int64 // input bytes alone
	loc         model.Locality
	gcMs        int64
	fetchWaitMs int64
	spill       int64 // bytes spilled to disk (MapReduce: records spilled beyond one write of the output)
}

// recordsCache holds the task records of the applications that RunInput is
// diagnosing, so that the half-dozen detectors reading a stage's records
// (imbalance, skew, placement, stragglers and their causes) decode its
// metrics once per run instead of once each. Entries live while a run holds
// a reference (shareRecords) and are keyed by application.
var recordsCache = struct {
	sync.Mutex
	m map[*model.App]*appRecords
}{m: map[*model.App]*appRecords{}}

// appRecords is one application's cached records, by stage index.
type appRecords struct {
	refs     int
	stages   [][]taskRec
	done     []bool
	profiles []*stageProfile // BDTune stage profiles, nil until computed
	slowness map[slownessKey]*hostSlowness
}

// slownessKey is the parameters of a nodeSlowness call.
type slownessKey struct {
	thD                    float64
	minTasks, minNodeTasks int
	modelled               bool // against a node model's expectation
}

// hostSlowness is what nodeSlowness returns.
type hostSlowness struct {
	ratios map[uint32]float64
	counts map[uint32]int
	spread float64
}

// shareRecords makes stageRecords reuse the records of app's stages until
// the returned release is called. Calls nest (and may overlap across
// goroutines); the cache is dropped with the last release.
func shareRecords(app *model.App) (release func()) {
	recordsCache.Lock()
	e := recordsCache.m[app]
	if e == nil {
		n := len(app.Stages)
		e = &appRecords{stages: make([][]taskRec, n), done: make([]bool, n), profiles: make([]*stageProfile, n)}
		recordsCache.m[app] = e
	}
	e.refs++
	recordsCache.Unlock()
	return func() {
		recordsCache.Lock()
		if e.refs--; e.refs == 0 {
			delete(recordsCache.m, app)
		}
		recordsCache.Unlock()
	}
}

// stageRecords returns the successful, finished attempts of App.Stages[si].
// Inside a run (shareRecords) every caller gets the same cached slice, so
// callers must not modify it (withoutUltrashort filters into a new one).
func stageRecords(app *model.App, si int) []taskRec {
	recordsCache.Lock()
	e := recordsCache.m[app]
	if e != nil && si < len(e.done) && e.done[si] {
		recs := e.stages[si]
		recordsCache.Unlock()
		return recs
	}
	recordsCache.Unlock()
	recs := buildStageRecords(app, si)
	if e != nil && si < len(e.done) {
		recordsCache.Lock()
		e.stages[si], e.done[si] = recs, true
		recordsCache.Unlock()
	}
	return recs
}

// stageProfileOf is newStageProfile(recs) for recs as stageRecords(app, si)
// returned them, unmodified. Inside a run (shareRecords) the profile is
// computed once per stage and shared by the straggler detectors, each
// getting its own copy holding its recs.
func stageProfileOf(app *model.App, si int, recs []taskRec) *stageProfile {
	recordsCache.Lock()
	e := recordsCache.m[app]
	var cached *stageProfile
	if e != nil && si < len(e.profiles) {
		cached = e.profiles[si]
	}
	recordsCache.Unlock()
	if cached != nil {
		p := *cached
		p.recs = recs
		return &p
	}
	p := newStageProfile(recs)
	if e != nil && si < len(e.profiles) {
		c := *p
		c.recs = nil
		recordsCache.Lock()
		e.profiles[si] = &c
		recordsCache.Unlock()
	}
	return p
}

// nodeSlownessOf is nodeSlowness, computed once per run and parameters
// (the straggler task and node detectors both ask for it); each caller gets
// its own copies of the maps. Within a run the expectation, when given, is
// always the run's Input's.
func nodeSlownessOf(app *model.App, thD float64, minTasks, minNodeTasks int, expect Expectation) (map[uint32]float64, map[uint32]int, float64) {
	k := slownessKey{thD, minTasks, minNodeTasks, expect != nil}
	recordsCache.Lock()
	e := recordsCache.m[app]
	var h *hostSlowness
	if e != nil {
		h = e.slowness[k]
	}
	recordsCache.Unlock()
	if h == nil {
		ratios, counts, spread := nodeSlowness(app, thD, minTasks, minNodeTasks, expect)
		h = &hostSlowness{ratios, counts, spread}
		if e != nil {
			recordsCache.Lock()
			if e.slowness == nil {
				e.slowness = map[slownessKey]*hostSlowness{}
			}
			e.slowness[k] = h
			recordsCache.Unlock()
		}
	}
	return maps.Clone(h.ratios), maps.Clone(h.counts), h.spread
}

// buildStageRecords decodes the successful, finished attempts of
// App.Stages[si]; nil when there are none. Failed and killed attempts (a
// speculative copy that lost the race included) are no stragglers and carry
// no complete data size; a Resubmitted TaskEnd repeats, without metrics, a
// success already listed, so it is left out too.
func buildStageRecords(app *model.App, si int) []taskRec {
	st := app.Stages[si]
	n := 0
	for i := range st.Tasks {
		if t := &st.Tasks[i]; recorded(app, st, t) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]taskRec, 0, n)
	var m model.TaskMetrics
	for i := range st.Tasks {
		t := &st.Tasks[i]
		if !recorded(app, st, t) {
			continue
		}
		st.TaskMetrics(i, &m)
		spill := m[model.DiskBytesSpilled]
		if app.Engine == model.MapReduce {
			written := m[model.MapOutputRecords]
			if st.Kind == model.StageReduce {
				written = 0
			}
			spill = max(0, m[model.SpilledRecords]-written)
		}
		out = append(out, taskRec{
			stage: si, task: i, id: t.ID, index: t.Index, host: t.Host,
			launch: t.Launch, finish: t.Finish, dur: t.Finish - t.Launch,
			bytes: m[model.InputBytes] + m.ShuffleReadBytes(), input: m[model.InputBytes], loc: t.Locality,
			gcMs: m[model.JVMGCTime], fetchWaitMs: m[model.ShuffleFetchWaitTime], spill: spill,
		})
	}
	return out
}

// recorded reports whether task t of st makes a record: a successful
// attempt (not a Resubmitted note) whose times can be right (not
// model.App.Misdated).
func recorded(app *model.App, st *model.Stage, t *model.Task) bool {
	return t.Status == model.TaskSuccess && t.Launch > 0 && t.Finish >= t.Launch && !app.Resubmitted(t) && !app.Misdated(st, t)
}

// median is the middle value of vs, the mean of the two middle ones for an
// even count, 0 for none; vs is not modified.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return 0
	}
	return medianInPlace(slices.Clone(vs))
}

// medianInPlace is median, reordering s: a three-way quickselect, linear
// on average instead of a sort's n log n. Slices holding NaN are sorted,
// as before, so NaN keeps its place (first).
func medianInPlace(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return 0
	}
	if slices.ContainsFunc(s, func(v float64) bool { return v != v }) {
		slices.Sort(s)
		if n%2 == 1 {
			return s[n/2]
		}
		return (s[n/2-1] + s[n/2]) / 2
	}
	k := n / 2
	hi := stats.Select(s, k)
	if n%2 == 1 {
		return hi
	}
	// s[:k] holds the k smallest values: the lower middle is their maximum.
	return (slices.Max(s[:k]) + hi) / 2
}

// medianOf is the median of f over recs.
func medianOf(recs []taskRec, f func(*taskRec) float64) float64 {
	vs := make([]float64, len(recs))
	for i := range recs {
		vs[i] = f(&recs[i])
	}
	return medianInPlace(vs)
}

// stageName names a stage attempt for scopes and summaries: "3", or "3.1"
// for a retried attempt.
func stageName(st *model.Stage) string {
	if st.Attempt == 0 {
		return strconv.Itoa(int(st.ID))
	}
	return strconv.Itoa(int(st.ID)) + "." + strconv.Itoa(int(st.Attempt))
}

// stageLabel is how summaries name a stage: "stage 3", or "the map stage"
// of a MapReduce job.
func stageLabel(st *model.Stage) string {
	if st.Kind != model.StageSpark {
		return "the " + st.Kind.String() + " stage"
	}
	return "stage " + stageName(st)
}

// taskIDs lists the ids of recs as strings, at most limit of them (all when
// limit <= 0).
func taskIDs(recs []taskRec, limit int) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		if limit > 0 && len(out) == limit {
			break
		}
		out = append(out, strconv.FormatInt(r.id, 10))
	}
	return out
}

// workStage reports whether a stage holds the application's work: Spark
// stages and MapReduce map and reduce stages, not job setup or cleanup.
func workStage(st *model.Stage) bool {
	return st.Kind == model.StageSpark || st.Kind == model.StageMap || st.Kind == model.StageReduce
}
