package dataflow

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// DefaultThreadIntervalMs is the sampling interval assumed when no thread
// has two samples (the agent's default interval).
const DefaultThreadIntervalMs = 1000

// ThreadText is the parsed Text of a model.ThreadSampleType sample.
type ThreadText struct {
	Executor string // Spark executor id, or the MapReduce attempt id
	Name     string // the thread's name
	State    string // Thread.State, as jcmd prints it ("TIMED_WAITING (sleeping)")
	Stack    string // frames, innermost first, joined by "\n"
}

// ParseThreadText splits a thread sample's Text, "executor\tthread
// name\tstate\tstack"; ok is false when a field is missing.
func ParseThreadText(text string) (t ThreadText, ok bool) {
	var rest string
	if t.Executor, rest, ok = strings.Cut(text, "\t"); !ok {
		return ThreadText{}, false
	}
	if t.Name, rest, ok = strings.Cut(rest, "\t"); !ok {
		return ThreadText{}, false
	}
	if t.State, t.Stack, ok = strings.Cut(rest, "\t"); !ok {
		return ThreadText{}, false
	}
	return t, true
}

// PhaseRule classifies a task's main thread by its stack (HiTune §4.1's
// task-execution sampler, read back as §5 does): in a thread of task pool
// Pool, a frame whose class and method contain Frame puts the sample in
// Phase. A rule with an empty Frame is the pool's default phase.
type PhaseRule struct {
	Pool  Pool
	Frame string
	Phase Phase
}

// DefaultPhaseRules classify Spark task threads and MapReduce main threads.
// Frames are tried innermost first, and for each frame the rules in order,
// so the innermost recognised frame decides: a shuffle writer that pulls its
// input through a fetch is waiting for the fetch, and compute pipelined into
// a writer is compute as long as an iterator frame lies inside the writer.
var DefaultPhaseRules = []PhaseRule{
	{PoolSpark, "org.apache.spark.storage.ShuffleBlockFetcherIterator.", FetchWait},
	{PoolSpark, "SerializerInstance.deserialize", Deserialize},
	{PoolSpark, "org.apache.spark.scheduler.Task$.deserializeWithDependencies", Deserialize},
	{PoolSpark, "SerializerInstance.serialize", ResultSerialize},
	{PoolSpark, "org.apache.spark.util.collection.ExternalSorter.insertAll", Compute},
	{PoolSpark, "scala.collection.", Compute},
	{PoolSpark, "org.apache.spark.InterruptibleIterator.", Compute},
	{PoolSpark, "GeneratedIteratorForCodegenStage", Compute},
	{PoolSpark, "org.apache.spark.util.collection.ExternalSorter.writePartitioned", ShuffleWrite},
	{PoolSpark, "org.apache.spark.shuffle.sort.SortShuffleWriter.", ShuffleWrite},
	{PoolSpark, "org.apache.spark.shuffle.sort.BypassMergeSortShuffleWriter.", ShuffleWrite},
	{PoolSpark, "org.apache.spark.shuffle.sort.UnsafeShuffleWriter.", ShuffleWrite},
	{PoolSpark, "org.apache.spark.shuffle.ShuffleWriter", ShuffleWrite},
	{PoolSpark, "", Compute},
	{PoolMap, "MapTask$MapOutputBuffer.sortAndSpill", Spill},
	{PoolMap, "MapTask$MapOutputBuffer.mergeParts", MapMerge},
	{PoolMap, "org.apache.hadoop.mapred.Merger", MapMerge},
	{PoolMap, "MapTask$MapOutputBuffer.flush", Spill},
	{PoolMap, "", Map},
	{PoolReduce, "org.apache.hadoop.mapred.Merger", Sort},
	{PoolReduce, "MergeManagerImpl.finalMerge", Sort},
	{PoolReduce, "ReduceTask$ReduceCopier.createKVIterator", Sort},
	{PoolReduce, "org.apache.hadoop.mapreduce.task.reduce.Fetcher", Shuffle},
	{PoolReduce, "org.apache.hadoop.mapreduce.task.reduce.Shuffle.", Shuffle},
	{PoolReduce, "ReduceTask$ReduceCopier", Shuffle},
	{PoolReduce, "", Reduce},
}

// ClassifyStack returns the phase rules give a stack (frames innermost
// first, joined by "\n") of a thread in pool p, or PhaseNone.
func ClassifyStack(rules []PhaseRule, p Pool, stack string) Phase {
	for rest := stack; rest != ""; {
		var f string
		f, rest, _ = strings.Cut(rest, "\n")
		if i := strings.IndexByte(f, '('); i >= 0 {
			f = f[:i]
		}
		for _, r := range rules {
			if r.Pool == p && r.Frame != "" && strings.Contains(f, r.Frame) {
				return r.Phase
			}
		}
	}
	for _, r := range rules {
		if r.Pool == p && r.Frame == "" {
			return r.Phase
		}
	}
	return PhaseNone
}

// ThreadOptions tune the reconstruction from thread samples.
type ThreadOptions struct {
	// Rules classify main threads by stack (nil: DefaultPhaseRules).
	Rules []PhaseRule
	// IntervalMs is the sampling interval (0: the median gap between a
	// thread's consecutive samples).
	IntervalMs int64
}

// VertexInstance is one vertex instance found in thread samples: a run of
// consecutive samples of one thread of one task attempt in one vertex. A
// thread that leaves a vertex and comes back (fetch wait interleaved with
// compute, a stray sample between two phases) has one instance per stay.
type VertexInstance struct {
	Vertex  string `json:"vertex"`
	Pool    Pool   `json:"pool"`
	Phase   Phase  `json:"phase"`
	Host    string `json:"host"`
	Attempt string `json:"attempt"` // Spark TID, or the MapReduce attempt id
	Thread  string `json:"thread"`  // "pid/tid"
	Name    string `json:"threadName"`
	// Main is set for the attempt's main thread (a Spark task thread, a
	// YarnChild's "main").
	Main bool `json:"main"`
	// Start is the first sample; End the last plus the sampling interval.
	Start int64 `json:"start"`
	End   int64 `json:"end"`
	// Samples counts the samples; Runnable and Waiting those whose thread
	// was RUNNABLE, or BLOCKED, WAITING or TIMED_WAITING.
	Samples  int `json:"samples"`
	Runnable int `json:"runnable"`
	Waiting  int `json:"waiting"`
}

// ThreadVertex aggregates a vertex's instances.
type ThreadVertex struct {
	Vertex    string `json:"vertex"`
	Pool      Pool   `json:"pool"`
	Phase     Phase  `json:"phase"`
	Instances int    `json:"instances"`
	Attempts  int    `json:"attempts"`
	// SampledMs is samples × interval: thread time in the vertex, which
	// concurrent threads add to.
	SampledMs int64 `json:"sampledMs"`
	Samples   int   `json:"samples"`
	// RunnableShare and WaitingShare split the samples into busy and
	// waiting (HiTune §5's busy/idle breakdown per vertex).
	RunnableShare float64 `json:"runnableShare"`
	WaitingShare  float64 `json:"waitingShare"`
	// MaxThreads is the most threads found by name (not main threads) one
	// attempt ran the vertex in; Card is the cardinality the specification
	// gives its thread pool, if any.
	MaxThreads int         `json:"maxThreads"`
	Card       Cardinality `json:"specThreads,omitempty"`
}

// ThreadReconstruction is an execution rebuilt from thread samples
// (HiTune §4.1, §5): vertex instances and per-vertex aggregates.
type ThreadReconstruction struct {
	IntervalMs int64 `json:"intervalMs"`
	Samples    int   `json:"samples"`
	Threads    int   `json:"threads"`
	// Unattributed counts threads of no task attempt (Spark's helper and
	// VM threads, Spark 1.x pool-named task threads); Unmapped threads of an
	// attempt that no vertex maps (a YarnChild's communication thread).
	Unattributed int              `json:"unattributedThreads"`
	Unmapped     int              `json:"unmappedThreads"`
	Attempts     int              `json:"attempts"`
	Vertices     []ThreadVertex   `json:"vertices"`
	Instances    []VertexInstance `json:"-"`
	// Agreement compares with the log's reconstruction (SampledFor).
	Agreement *ThreadAgreement `json:"agreement,omitempty"`

	attempts []sampledAttempt
}

// threadKey identifies a thread's work for one attempt.
type threadKey struct{ host, thread, attempt string }

type threadGroup struct {
	key     threadKey
	pool    Pool
	name    string
	main    bool
	samples []threadPoint
}

type threadPoint struct {
	t     int64
	state string
	stack string
}

// sampledAttempt is a task attempt seen in thread samples: at each sample
// instant, the phases its threads were in.
type sampledAttempt struct {
	pool    Pool
	id      string
	host    string
	phases  map[int64]uint32 // instant → bit set of Phase
	logged  int32            // index into Reconstruction.Attempts, -1 until matched
	samples int
}

// ReconstructThreads rebuilds vertex instances from thread samples (HiTune
// §4.1, §5). Samples are grouped by host, thread and task attempt: a Spark
// task thread's attempt is its TID (the sample's Value); every thread of a
// MapReduce task JVM belongs to the attempt that JVM runs (its main thread's,
// named in the executor field). A thread whose name starts with a vertex
// mapping's Thread, Thread Pool or Thread Group Pool name (in the attempt's
// pool) is that vertex, the stack choosing among several; a main thread is
// the activity of the phase ClassifyStack gives it. Samples of other types
// are ignored.
func ReconstructThreads(samples []model.Sample, spec *Spec, opts ThreadOptions) *ThreadReconstruction {
	tr, groups := groupThreads(samples, nil)
	tr.build(groups, spec, opts)
	return tr
}

// groupThreads groups thread samples kept by keep (nil: all).
func groupThreads(samples []model.Sample, keep func(*model.Sample) bool) (*ThreadReconstruction, []*threadGroup) {
	tr := &ThreadReconstruction{}
	byKey := map[threadKey]*threadGroup{}
	var groups []*threadGroup
	threads := map[[2]string]bool{}
	attributed := map[[2]string]bool{}
	for i := range samples {
		s := &samples[i]
		if s.Type != model.ThreadSampleType || (keep != nil && !keep(s)) {
			continue
		}
		tt, ok := ParseThreadText(s.Text)
		if !ok {
			continue
		}
		tr.Samples++
		th := [2]string{s.Host, s.Target}
		threads[th] = true
		pool, attempt, main := taskOfSample(s, &tt)
		if pool == PoolNone {
			continue
		}
		attributed[th] = true
		k := threadKey{s.Host, s.Target, attempt}
		g := byKey[k]
		if g == nil {
			g = &threadGroup{key: k, pool: pool, name: tt.Name, main: main}
			byKey[k] = g
			groups = append(groups, g)
		}
		g.samples = append(g.samples, threadPoint{s.Time, tt.State, tt.Stack})
	}
	tr.Threads = len(threads)
	tr.Unattributed = len(threads) - len(attributed)
	return tr, groups
}

// taskOfSample is the pool and attempt a thread sample works for, and
// whether it is the attempt's main thread; PoolNone for no attempt.
func taskOfSample(s *model.Sample, tt *ThreadText) (Pool, string, bool) {
	if p := mrAttemptPool(tt.Executor); p != PoolNone {
		return p, tt.Executor, tt.Name == "main"
	}
	if s.Value >= 0 && s.Value == float64(int64(s.Value)) {
		return PoolSpark, strconv.FormatInt(int64(s.Value), 10), true
	}
	return PoolNone, "", false
}

// mrAttemptPool is the pool of a MapReduce attempt id
// (attempt_<cluster>_<job>_<m|r>_<task>_<attempt>), or PoolNone.
func mrAttemptPool(id string) Pool {
	f := strings.Split(id, "_")
	if len(f) != 6 || f[0] != "attempt" {
		return PoolNone
	}
	for _, n := range []string{f[1], f[2], f[4], f[5]} {
		if _, err := strconv.ParseUint(n, 10, 63); err != nil {
			return PoolNone
		}
	}
	switch f[3] {
	case "m":
		return PoolMap
	case "r":
		return PoolReduce
	}
	return PoolNone
}

// build turns groups into instances, attempts and vertex aggregates.
func (tr *ThreadReconstruction) build(groups []*threadGroup, spec *Spec, opts ThreadOptions) {
	rules := opts.Rules
	if rules == nil {
		rules = DefaultPhaseRules
	}
	var gaps []int64
	for _, g := range groups {
		slices.SortStableFunc(g.samples, func(a, b threadPoint) int { return cmp.Compare(a.t, b.t) })
		g.samples = slices.CompactFunc(g.samples, func(a, b threadPoint) bool { return a.t == b.t })
		for i := 1; i < len(g.samples); i++ {
			gaps = append(gaps, g.samples[i].t-g.samples[i-1].t)
		}
	}
	tr.IntervalMs = opts.IntervalMs
	if tr.IntervalMs <= 0 {
		tr.IntervalMs = DefaultThreadIntervalMs
		if len(gaps) > 0 {
			slices.Sort(gaps)
			tr.IntervalMs = gaps[len(gaps)/2]
		}
	}
	attempts := map[string]*sampledAttempt{}
	unmapped := map[[2]string]bool{}
	for _, g := range groups {
		aKey := g.pool.String() + "/" + g.key.attempt
		sa := attempts[aKey]
		if sa == nil {
			sa = &sampledAttempt{pool: g.pool, id: g.key.attempt, host: g.key.host, phases: map[int64]uint32{}, logged: -1}
			attempts[aKey] = sa
		}
		cands := threadMappings(spec, g.pool, g.name)
		cur := -1 // index into tr.Instances of the run the previous sample extended
		for _, p := range g.samples {
			v, ph := sampleVertex(spec, rules, g, cands, p.stack)
			if v == "" {
				unmapped[[2]string{g.key.host, g.key.thread}] = true
				cur = -1
				continue
			}
			if cur < 0 || tr.Instances[cur].Vertex != v {
				cur = len(tr.Instances)
				tr.Instances = append(tr.Instances, VertexInstance{Vertex: v, Pool: g.pool, Phase: ph, Host: g.key.host,
					Attempt: g.key.attempt, Thread: g.key.thread, Name: g.name, Main: g.main, Start: p.t})
			}
			in := &tr.Instances[cur]
			in.End = p.t + tr.IntervalMs
			in.Samples++
			switch stateKind(p.state) {
			case stateRunnable:
				in.Runnable++
			case stateWaiting:
				in.Waiting++
			}
			sa.phases[p.t] |= 1 << ph
			sa.samples++
		}
	}
	tr.Unmapped = len(unmapped)
	for _, sa := range attempts {
		if sa.samples > 0 {
			tr.attempts = append(tr.attempts, *sa)
		}
	}
	slices.SortFunc(tr.attempts, func(a, b sampledAttempt) int {
		return cmp.Or(cmp.Compare(a.pool, b.pool), cmp.Compare(len(a.id), len(b.id)), cmp.Compare(a.id, b.id))
	})
	tr.Attempts = len(tr.attempts)
	slices.SortStableFunc(tr.Instances, func(a, b VertexInstance) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(a.Host, b.Host), cmp.Compare(a.Thread, b.Thread))
	})
	tr.aggregate(spec)
}

// threadMappings are the vertex mappings of pool p whose thread names
// prefix a thread's name, its spaces read as '-' (specification names
// cannot hold spaces: Executor-task-launch-worker).
func threadMappings(spec *Spec, p Pool, name string) []VertexMapping {
	var out []VertexMapping
	dashed := strings.ReplaceAll(name, " ", "-")
	for _, m := range spec.VertexMappings {
		if m.TaskPool != p {
			continue
		}
		names := append([]string{m.Thread, m.ThreadPool}, m.ThreadGroupPool...)
		for _, n := range names {
			if n != "" && strings.HasPrefix(dashed, n) {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// sampleVertex is the vertex and phase of one sample of group g.
func sampleVertex(spec *Spec, rules []PhaseRule, g *threadGroup, cands []VertexMapping, stack string) (string, Phase) {
	switch {
	case len(cands) == 1:
		return cands[0].Vertex, cands[0].Phase
	case len(cands) > 1:
		ph := ClassifyStack(rules, g.pool, stack)
		for _, m := range cands {
			if m.Phase == ph {
				return m.Vertex, m.Phase
			}
		}
		return cands[0].Vertex, cands[0].Phase
	case g.main:
		ph := ClassifyStack(rules, g.pool, stack)
		if phaseIndex(g.pool, ph) < 0 {
			return "", PhaseNone
		}
		return mainActivity(spec, g.pool, ph), ph
	}
	return "", PhaseNone
}

// mainActivity names what a main thread in phase ph of pool p runs: the
// vertices mapped there without a thread, else all vertices mapped there,
// joined by "+", else the phase's name.
func mainActivity(spec *Spec, p Pool, ph Phase) string {
	var own, all []string
	for _, m := range spec.VertexMappings {
		if m.TaskPool != p || m.Phase != ph {
			continue
		}
		all = append(all, m.Vertex)
		if m.Thread == "" && m.ThreadPool == "" && len(m.ThreadGroupPool) == 0 {
			own = append(own, m.Vertex)
		}
	}
	switch {
	case len(own) > 0:
		return strings.Join(own, "+")
	case len(all) > 0:
		return strings.Join(all, "+")
	}
	return ph.String()
}

const (
	stateOther = iota
	stateRunnable
	stateWaiting
)

// stateKind sorts a Thread.State into runnable, waiting or other.
func stateKind(s string) int {
	switch {
	case strings.HasPrefix(s, "RUNNABLE"):
		return stateRunnable
	case strings.HasPrefix(s, "BLOCKED"), strings.HasPrefix(s, "WAITING"), strings.HasPrefix(s, "TIMED_WAITING"):
		return stateWaiting
	}
	return stateOther
}

// aggregate sums instances per vertex, in order of first appearance.
func (tr *ThreadReconstruction) aggregate(spec *Spec) {
	idx := map[[2]string]int{}
	threads := map[[3]string]int{} // (vertex, pool, attempt) → threads
	seen := map[[4]string]bool{}   // (vertex, pool, attempt, thread)
	attempts := map[[3]string]bool{}
	tr.Vertices = []ThreadVertex{}
	for _, in := range tr.Instances {
		k := [2]string{in.Vertex, in.Pool.String()}
		i, ok := idx[k]
		if !ok {
			i = len(tr.Vertices)
			idx[k] = i
			tr.Vertices = append(tr.Vertices, ThreadVertex{Vertex: in.Vertex, Pool: in.Pool, Phase: in.Phase, Card: poolCard(spec, in.Vertex, in.Pool)})
		}
		v := &tr.Vertices[i]
		v.Instances++
		v.Samples += in.Samples
		v.RunnableShare += float64(in.Runnable)
		v.WaitingShare += float64(in.Waiting)
		ak := [3]string{in.Vertex, in.Pool.String(), in.Attempt}
		if !attempts[ak] {
			attempts[ak] = true
			v.Attempts++
		}
		if tk := [4]string{in.Vertex, in.Pool.String(), in.Attempt, in.Thread}; !in.Main && !seen[tk] {
			seen[tk] = true
			threads[ak]++
			v.MaxThreads = max(v.MaxThreads, threads[ak])
		}
	}
	for i := range tr.Vertices {
		v := &tr.Vertices[i]
		v.SampledMs = int64(v.Samples) * tr.IntervalMs
		v.RunnableShare /= float64(v.Samples)
		v.WaitingShare /= float64(v.Samples)
	}
}

// poolCard is the thread (group) pool cardinality spec gives vertex v in pool p.
func poolCard(spec *Spec, v string, p Pool) Cardinality {
	for _, m := range spec.VertexMappings {
		if m.Vertex == v && m.TaskPool == p {
			return cmp.Or(m.ThreadPoolCard, m.ThreadGroupCard)
		}
	}
	return ""
}

// ThreadAgreement compares the attempts found in thread samples with the
// log's reconstruction of the same attempts: where each starts and ends,
// and how long each phase an executor thread can be seen in lasted.
type ThreadAgreement struct {
	// Attempts counts sampled attempts the log has; NotInLog those it has not.
	Attempts int `json:"attempts"`
	NotInLog int `json:"notInLog"`
	// MedianStartDiffMs and MedianEndDiffMs are the medians over attempts
	// of sampled − logged start and end.
	MedianStartDiffMs int64            `json:"medianStartDiffMs"`
	MedianEndDiffMs   int64            `json:"medianEndDiffMs"`
	Phases            []PhaseAgreement `json:"phases"`
}

// PhaseAgreement compares one phase's sampled and logged time over the
// attempts of its pool the log has. An attempt's sampled time in a phase is
// the sample instants at which any of its threads was in it × the interval.
type PhaseAgreement struct {
	Pool      Pool  `json:"pool"`
	Phase     Phase `json:"phase"`
	Attempts  int   `json:"attempts"`
	SampledMs int64 `json:"sampledMs"`
	LoggedMs  int64 `json:"loggedMs"`
	// AbsDiffMs sums |sampled − logged| over the attempts.
	AbsDiffMs int64 `json:"absDiffMs"`
}

// sampleSlackMs widens the application's run on either side for the
// thread samples SampledFor keeps (node clocks may differ from the driver's).
const sampleSlackMs = 60_000

// SampledFor reconstructs the application of r from thread samples taken
// on its hosts during its run and compares them with r. hosts maps sample
// hosts to the log's host names (nil: the same names); samples of other
// hosts, of other times and of attempts the log does not have are left out.
func SampledFor(r *Reconstruction, samples []model.Sample, hosts map[string]string, opts ThreadOptions) *ThreadReconstruction {
	app := r.App
	logHosts := map[string]bool{}
	for _, h := range app.Hosts {
		logHosts[h] = h != ""
	}
	var kept []model.Sample
	for _, s := range samples {
		if s.Type != model.ThreadSampleType || s.Time < r.Start-sampleSlackMs || s.Time > r.End+sampleSlackMs {
			continue
		}
		if hosts != nil {
			h, ok := hosts[s.Host]
			if !ok {
				continue
			}
			s.Host = h
		}
		if logHosts[s.Host] {
			kept = append(kept, s)
		}
	}
	logged := map[string]int32{}
	job := strings.TrimPrefix(app.ID, "job_")
	for i, a := range r.Attempts {
		t := &app.Stages[a.Stage].Tasks[a.Task]
		switch a.Pool {
		case PoolSpark:
			logged["spark/"+strconv.FormatInt(t.ID, 10)] = int32(i)
		case PoolMap, PoolReduce:
			logged[a.Pool.String()+"/"+MapReduceAttemptID(job, a.Pool == PoolReduce, t)] = int32(i)
		}
	}
	tr, groups := groupThreads(kept, nil)
	notInLog := map[string]bool{}
	in := groups[:0]
	for _, g := range groups {
		if _, ok := logged[g.pool.String()+"/"+g.key.attempt]; ok {
			in = append(in, g)
		} else {
			notInLog[g.pool.String()+"/"+g.key.attempt] = true
		}
	}
	tr.build(in, r.Spec, opts)
	ag := &ThreadAgreement{NotInLog: len(notInLog), Phases: []PhaseAgreement{}}
	var starts, ends []int64
	byPhase := map[[2]uint8]int{}
	for _, sa := range tr.attempts {
		a := &r.Attempts[logged[sa.pool.String()+"/"+sa.id]]
		ag.Attempts++
		var first, last int64
		var count [numPhases]int64
		for t, bits := range sa.phases {
			if first == 0 || t < first {
				first = t
			}
			last = max(last, t)
			for ph := range numPhases {
				if bits&(1<<ph) != 0 {
					count[ph]++
				}
			}
		}
		starts = append(starts, first-a.Start)
		ends = append(ends, last+tr.IntervalMs-a.End)
		for i, ph := range Layout(a.Pool) {
			if ph == SchedulerDelay || ph == GettingResult {
				continue // the driver's side: no executor thread shows it
			}
			k := [2]uint8{uint8(a.Pool), uint8(ph)}
			j, ok := byPhase[k]
			if !ok {
				j = len(ag.Phases)
				byPhase[k] = j
				ag.Phases = append(ag.Phases, PhaseAgreement{Pool: a.Pool, Phase: ph})
			}
			pa := &ag.Phases[j]
			s, l := count[ph]*tr.IntervalMs, int64(a.Dur[i])
			pa.Attempts++
			pa.SampledMs += s
			pa.LoggedMs += l
			pa.AbsDiffMs += max(s-l, l-s)
		}
	}
	slices.SortFunc(ag.Phases, func(a, b PhaseAgreement) int {
		return cmp.Or(cmp.Compare(a.Pool, b.Pool), cmp.Compare(phaseIndex(a.Pool, a.Phase), phaseIndex(b.Pool, b.Phase)))
	})
	ag.MedianStartDiffMs, ag.MedianEndDiffMs = median(starts), median(ends)
	tr.Agreement = ag
	return tr
}

// MapReduceAttemptID writes a MapReduce task's attempt id as YarnChild is
// given it, for the job id without its "job_" prefix: the id the agent's
// JVM thread samples name.
func MapReduceAttemptID(job string, reduce bool, t *model.Task) string {
	kind := "m"
	if reduce {
		kind = "r"
	}
	n := strconv.Itoa(int(t.Index))
	if len(n) < 6 {
		n = strings.Repeat("0", 6-len(n)) + n
	}
	return "attempt_" + job + "_" + kind + "_" + n + "_" + strconv.Itoa(int(t.Attempt))
}

// median is the middle value of xs (the upper one of an even count), 0 when empty.
func median(xs []int64) int64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return xs[len(xs)/2]
}
