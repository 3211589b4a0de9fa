package sim

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Result is one simulation: the applications as the logs describe them,
// the ground truth and the resolved scenario.
type Result struct {
	Scenario *Scenario
	Seed     uint64
	Apps     []*model.App
	Truth    *Truth
}

// Simulate runs sc with seed, streaming node metrics as CSV to metrics
// (nil: none), and returns every application. The same scenario and seed
// always give the same result.
func Simulate(sc *Scenario, seed uint64, metrics io.Writer) (*Result, error) {
	return SimulateStream(sc, seed, metrics, nil)
}

// Sinks are where a simulation streams what it samples, as CSV: node
// metrics and attempt phases (nil: not produced). docs/SIMULATOR.md
// describes both formats.
type Sinks struct {
	Metrics io.Writer
	Phases  io.Writer
}

// AppFunc receives each application when it ends, in order of their ends,
// and returns where it wrote it ("" for nowhere).
type AppFunc func(app *model.App) (path string, err error)

// SimulateStream is Simulate handing each application to onApp as soon as
// it ends and then forgetting it, so that memory holds only the
// applications running (Result.Apps stays empty). With onApp nil it keeps
// them all.
func SimulateStream(sc *Scenario, seed uint64, metrics io.Writer, onApp AppFunc) (*Result, error) {
	return SimulateTo(sc, seed, Sinks{Metrics: metrics}, onApp)
}

// SimulateTo is SimulateStream with every sink.
func SimulateTo(sc *Scenario, seed uint64, sinks Sinks, onApp AppFunc) (*Result, error) {
	metrics := sinks.Metrics
	if err := sc.Resolve(); err != nil {
		return nil, err
	}
	cseed := seed
	if sc.Cluster.Seed != 0 {
		cseed = sc.Cluster.Seed
	}
	cl := newCluster(&sc.Cluster, newRNG(cseed, 1))
	frng := newRNG(seed, 6)
	faults := append([]FaultSpec(nil), sc.Faults...)
	drawFaultNodes(faults, len(cl.nodes), frng)
	for _, f := range faults {
		n := cl.nodes[f.Node]
		n.faults = append(n.faults, &faultRun{spec: f, start: sc.StartMs + int64(f.StartS*1000), end: sc.StartMs + int64(f.EndS*1000),
			peers: map[int]bool{}})
	}
	e := &engine{sc: sc, cl: cl, rng: newRNG(seed, 3), mrng: newRNG(seed, 4), now: sc.StartMs, onApp: onApp, seed: seed,
		keyed: rand.NewPCG(0, 0)}
	e.keyedRNG = rand.New(e.keyed)
	e.sink = newMetricSink(sc, cl, metrics, e.mrng)
	e.ref = medianSpeeds(cl)
	if sinks.Phases != nil {
		e.phaseW = bufio.NewWriterSize(sinks.Phases, 1<<20)
		e.phaseW.WriteString(phaseHeader)
		e.scratch.keep = true
	}
	specs := append([]AppSpec(nil), sc.Apps...)
	specs = append(specs, arrivals(sc, newRNG(seed, 5))...)
	prng := newRNG(seed, 2)
	truth := &Truth{Scenario: sc.Name, Seed: seed, StartMs: sc.StartMs}
	clusterTS := strconv.FormatInt(sc.StartMs-86_400_000, 10)
	order := make([]int, len(specs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case specs[a].SubmitS < specs[b].SubmitS:
			return -1
		case specs[a].SubmitS > specs[b].SubmitS:
			return 1
		}
		return 0
	})
	runs := make([]*appRun, len(specs))
	for seq, i := range order {
		spec := specs[i]
		rng := planRNG(sc, seed, i, prng)
		plan := newPlan(i, spec, sc, cl, rng)
		a := &appRun{plan: plan, hosts: model.NewInterner(), reasons: map[model.Reason]uint32{},
			stages: make([]*stageRun, len(plan.stages)), clusterTS: clusterTS, seq: seq + 1,
			timeoutS: sc.Scheduler.TimeoutS, portBase: 30000 + rng.IntN(20000),
			dynamic:     sc.Scheduler.DynamicAllocation && plan.engine == model.Spark,
			speculation: sc.Scheduler.Speculation, driverHost: cl.nodes[rng.IntN(len(cl.nodes))].name}
		a.racks = append(a.racks, cl.rackNames...)
		app := &model.App{Name: spec.Name, User: "sim", Engine: plan.engine, Reasons: []model.Reason{{}},
			Quality: model.Quality{Events: map[string]int64{}}}
		if plan.engine == model.Spark {
			app.ID = fmt.Sprintf("application_%s_%04d", clusterTS, seq+1)
		} else {
			app.ID = fmt.Sprintf("job_%s_%04d", clusterTS, seq+1)
		}
		plan.id = app.ID
		a.app = app
		a.truth = AppTruth{ID: app.ID, Engine: spec.Engine, Class: spec.Class, Name: spec.Name, Dominant: plan.class.dominant, Job: spec.Job}
		runs[i] = a
		e.pending++
		e.at(sc.StartMs+int64(spec.SubmitS*1000), event{kind: evAppArrive, app: a})
	}
	for _, i := range order {
		e.apps = append(e.apps, runs[i])
	}
	if !e.sink.off {
		e.at(sc.StartMs+e.sink.width, event{kind: evTick})
	}
	for _, n := range cl.nodes {
		for _, f := range n.faults {
			if f.spec.Kind == FaultHang {
				e.at(f.end, event{kind: evHangEnd})
			}
		}
	}
	if err := e.run(); err != nil {
		return nil, err
	}
	if err := e.sink.flush(); err != nil {
		return nil, fmt.Errorf("write metrics: %w", err)
	}
	if e.phaseW != nil {
		if err := e.phaseW.Flush(); err != nil {
			return nil, fmt.Errorf("write phases: %w", err)
		}
	}
	res := &Result{Scenario: sc, Seed: seed, Truth: truth}
	for _, a := range e.apps {
		if !a.done {
			return nil, fmt.Errorf("simulate: application %s did not finish (cluster too small for it?)", a.truth.ID)
		}
		if a.app != nil {
			res.Apps = append(res.Apps, a.app)
		}
	}
	e.fillTruth(truth, runs, faults)
	return res, nil
}

// drawFaultNodes places the faults whose node is -1 on nodes drawn from
// rng: each on a node no other fault of the scenario is on while one is
// left, so that two drawn faults do not land on one node.
func drawFaultNodes(faults []FaultSpec, nodes int, rng *rand.Rand) {
	taken := map[int]bool{}
	for _, f := range faults {
		if f.Node >= 0 {
			taken[f.Node] = true
		}
	}
	for i := range faults {
		if faults[i].Node >= 0 {
			continue
		}
		n := rng.IntN(nodes)
		for tries := 0; taken[n] && tries < 4*nodes; tries++ {
			n = rng.IntN(nodes)
		}
		faults[i].Node = n
		taken[n] = true
	}
}

// maxSimulatedMs bounds a run's simulated time.
const maxSimulatedMs = 30 * 86_400_000

// tick writes the metric samples of every bucket that has ended and plans
// the next tick while anything may still happen.
func (e *engine) tick() error {
	s := e.sink
	for s.base+(s.next+1)*s.width <= e.now {
		if err := s.emit(); err != nil {
			return fmt.Errorf("write metrics: %w", err)
		}
	}
	end := e.sc.StartMs + int64(e.sc.HorizonS*1000)
	for _, f := range e.sc.Faults {
		end = max(end, e.sc.StartMs+int64(f.EndS*1000))
	}
	if e.now-e.sc.StartMs > maxSimulatedMs {
		return fmt.Errorf("simulate: still running after %d simulated days (an application that can never start?)", maxSimulatedMs/86_400_000)
	}
	// Keep sampling while something else may still happen (an application
	// waiting with nothing left to free capacity never will).
	busy := (e.pending > 0 || e.live > 0) && e.q.len() > 0
	if busy || e.now < end || e.now < e.lastEnd+s.width {
		e.at(e.now+s.width, event{kind: evTick})
	}
	return nil
}

// arrivals draws the random applications of sc.Arrivals: a Poisson process
// over the horizon with a mix of classes and log-normal input sizes (sigma
// 0.8, at most 4x the median).
func arrivals(sc *Scenario, rng *rand.Rand) []AppSpec {
	ar := sc.Arrivals
	if ar == nil {
		return nil
	}
	var out []AppSpec
	t := 0.0
	for {
		t += rng.ExpFloat64() * 60 / ar.PerMinute
		if t >= sc.HorizonS {
			return out
		}
		if len(ar.Recurring) > 0 {
			// Only scenarios with recurring jobs draw these numbers, so
			// the others stay byte-identical.
			out = append(out, recurringRun(sc, rng, t, len(out)))
			continue
		}
		spec := AppSpec{Engine: "mapreduce", SubmitS: math.Round(t*1000) / 1000, Executors: ar.Executors, Cores: ar.Cores}
		if rng.Float64() < ar.SparkShare {
			spec.Engine = "spark"
			spec.Class = [...]string{"wordcount", "sort", "terasort", "kmeans"}[rng.IntN(4)]
		} else {
			spec.Class = [...]string{"wordcount", "sort", "terasort", "randomwriter"}[rng.IntN(4)]
			spec.Cores = 1
			spec.Executors = ar.Executors * max(1, ar.Cores)
		}
		spec.InputGB = math.Round(math.Min(4, lognormal(rng, 0.8))*ar.InputGB*10) / 10
		spec.InputGB = max(spec.InputGB, 0.5)
		spec.Iterations = 3
		spec.Partitions = max(1, int(spec.InputGB*4))
		_ = spec.resolve()
		out = append(out, spec)
	}
}

// recurringRun draws the arrival at t (seconds): a run of one of the
// scenario's recurring jobs, or a one-off application.
func recurringRun(sc *Scenario, rng *rand.Rand, t float64, n int) AppSpec {
	ar := sc.Arrivals
	submit := math.Round(t*1000) / 1000
	if rng.Float64() < ar.RecurringShare {
		r := ar.Recurring[rng.IntN(len(ar.Recurring))]
		at := time.UnixMilli(sc.StartMs + int64(submit*1000)).UTC()
		name := strings.NewReplacer("{date}", at.Format("2006-01-02"), "{time}", at.Format("15:04:05"),
			"{ts}", strconv.FormatInt(at.UnixMilli(), 10), "{uuid}", randomUUID(rng), "{hex}", randomHex(rng, 12),
			"{n}", fmt.Sprintf("%04d", 1000+n)).Replace(r.Name)
		spec := AppSpec{Engine: r.Engine, Class: r.Class, Name: name, SubmitS: submit, Executors: r.Executors,
			Cores: r.Cores, Partitions: r.Partitions, Job: r.Job, Iterations: 3 + rng.IntN(4),
			InputGB: math.Round(r.InputGB*(0.5+rng.Float64())*10) / 10}
		if r.Fixed {
			spec.InputGB, spec.Iterations = r.InputGB, 3
		}
		spec.InputGB = max(spec.InputGB, 0.5)
		_ = spec.resolve()
		return spec
	}
	// A one-off: a class and size of its own and a name no other run has.
	spec := AppSpec{Engine: "spark", SubmitS: submit, Executors: ar.Executors, Cores: ar.Cores, Iterations: 3}
	if rng.Float64() >= ar.SparkShare {
		spec.Engine, spec.Cores = "mapreduce", 1
	}
	spec.Class = [...]string{"wordcount", "sort", "terasort", "randomwriter"}[rng.IntN(4)]
	words := [...]string{"revenue", "churn", "clicks", "funnel", "cohort", "inventory", "fraud", "latency", "geo",
		"pricing", "returns", "sessions", "retention", "ads", "search", "ranking"}
	spec.Name = fmt.Sprintf("adhoc %s %s %s check by %s", words[rng.IntN(len(words))], words[rng.IntN(len(words))],
		words[rng.IntN(len(words))], [...]string{"ana", "bo", "chen", "dee", "eli"}[rng.IntN(5)])
	spec.InputGB = math.Round(math.Min(4, lognormal(rng, 0.8))*ar.InputGB*10) / 10
	spec.InputGB = max(spec.InputGB, 0.5)
	spec.Partitions = max(1, int(spec.InputGB*4))
	_ = spec.resolve()
	return spec
}

func randomUUID(rng *rand.Rand) string {
	h := randomHex(rng, 32)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func randomHex(rng *rand.Rand, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[rng.IntN(16)]
	}
	return string(b)
}

// fillTruth writes the ground truth of a finished run.
func (e *engine) fillTruth(tr *Truth, runs []*appRun, faults []FaultSpec) {
	sc := e.sc
	tr.EndMs = max(e.lastEnd, e.sc.StartMs+int64(sc.HorizonS*1000))
	for _, n := range e.cl.nodes {
		nt := NodeTruth{Host: n.name, Rack: e.cl.rackNames[n.rack], Class: n.class.Name, Cores: n.class.Cores, Sampled: n.sampled}
		if n.role != nil {
			nt.Role = n.role.Name
		}
		tr.Nodes = append(tr.Nodes, nt)
	}
	tr.Faults = []FaultTruth{}
	seen := map[*node]int{}
	for _, f := range faults {
		n := e.cl.nodes[f.Node]
		fr := n.faults[seen[n]]
		seen[n]++
		ft := FaultTruth{Kind: f.Kind, Host: n.name, StartMs: fr.start, EndMs: fr.end, Loss: f.Loss,
			Resource: faultResource(f.Kind), Peers: []string{}}
		for _, p := range e.cl.nodes {
			if fr.peers[p.idx] {
				ft.Peers = append(ft.Peers, p.name)
			}
		}
		tr.Faults = append(tr.Faults, ft)
	}
	tr.Problems = []ProblemTruth{}
	for _, p := range sc.Problems {
		a := runs[p.App]
		si := a.plan.problemStage(p.Stage)
		sp := a.plan.stages[si]
		pt := ProblemTruth{Kind: p.Kind, App: a.truth.ID, Stage: int32(si)}
		if a.plan.engine == model.MapReduce {
			pt.Stage = int32(min(si, 1))
		}
		if w, ok := a.stageWin[si]; ok {
			pt.StartMs, pt.EndMs = w[0], w[1]
		}
		if a.plan.spec.SQL && a.plan.engine == model.Spark {
			q := int64(sp.job) // queries are numbered by job (sqlQueries)
			pt.Query = &q
		}
		switch p.Kind {
		case ProblemSkew:
			pt.Tasks = skewedTasks(sp)
		case ProblemHungTask:
			pt.Tasks = []int32{sp.hungTask}
		case ProblemStraggler:
			for k := range sp.stragglers {
				pt.Tasks = append(pt.Tasks, k)
			}
			slices.Sort(pt.Tasks)
		case ProblemImbalance, ProblemPlacement:
			for _, n := range p.Nodes {
				pt.Hosts = append(pt.Hosts, e.cl.nodes[n].name)
			}
		}
		tr.Problems = append(tr.Problems, pt)
	}
	// Imbalance nobody injected: stages reading cached partitions that the
	// caching stage left unevenly spread (cachedImbalance).
	for _, a := range e.apps {
		for _, c := range a.cacheImbalance {
			pt := ProblemTruth{Kind: ProblemImbalance, App: a.truth.ID, Stage: int32(c.stage), Hosts: c.hosts, Under: c.under, Cause: c.cause}
			if w, ok := a.stageWin[c.stage]; ok {
				pt.StartMs, pt.EndMs = w[0], w[1]
			}
			tr.Problems = append(tr.Problems, pt)
		}
	}
	for _, a := range e.apps {
		if a.truth.Stragglers == nil {
			a.truth.Stragglers = []StragglerTruth{}
		}
		a.truth.SlowAttempts, a.truth.SlowNodes = nonNil(a.truth.SlowAttempts), slowNodes(a, e.cl)
		tr.Apps = append(tr.Apps, a.truth)
	}
	s := e.sink
	tr.Metrics = MetricsTruth{IntervalS: sc.Metrics.IntervalS, Samples: s.samples, Rows: s.rows,
		Metrics: len(MetricNames), TotalNodes: len(e.cl.nodes)}
	for _, n := range e.cl.nodes {
		if n.sampled {
			tr.Metrics.SampledOf++
		}
	}
}

// skewedTasks lists the tasks whose input is over 1.5x the stage's median.
func skewedTasks(sp *stagePlan) []int32 {
	size := make([]float64, sp.tasks)
	for i := range size {
		switch {
		case sp.input == inShuffle:
			size[i] = sp.weights[i]
		default:
			size[i] = float64(sp.inBytes[i])
		}
	}
	sorted := append([]float64(nil), size...)
	slices.Sort(sorted)
	med := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		med = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	var out []int32
	for i, v := range size {
		if v > 1.5*med {
			out = append(out, int32(i))
		}
	}
	return out
}
