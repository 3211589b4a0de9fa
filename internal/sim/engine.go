package sim

import (
	"bufio"
	"math/rand/v2"

	"github.com/clusterlens/clusterlens/internal/model"
)

// engine is one run of the discrete-event simulation.
type engine struct {
	sc       *Scenario
	cl       *cluster
	q        eventQueue
	now      int64
	rng      *rand.Rand // scheduling and task noise (an attempt's own stream while it is laid out, with common random numbers)
	seed     uint64
	keyed    *rand.PCG  // the generator of draws' keyed streams (streams.go)
	keyedRNG *rand.Rand // over keyed
	mrng     *rand.Rand // metric noise
	apps     []*appRun
	waiting  []*appRun // admitted apps waiting for capacity
	live     int       // apps arrived and not finished
	pending  int       // apps not yet arrived
	cursor   int       // next node to try when placing executors
	sink     *metricSink
	lastEnd  int64
	cur      *appRun // the application whose attempt is being laid out
	scratch  phases  // reused by execute
	onApp    AppFunc
	phaseW   *bufio.Writer // attempt phases, nil when not written
	phaseBuf []byte
	err      error     // from onApp; stops the run
	ref      refSpeeds // the median node class (causes.go)
}

// appRun is an application while it runs.
type appRun struct {
	plan     *appPlan
	app      *model.App
	submit   int64
	execs    []*execRun
	stages   []*stageRun // by plan index, nil until submitted
	active   []*stageRun
	job      int // current job
	nextTask int64
	// cachedAt is where each partition of a cached stage lives.
	cachedAt []*execRun
	// cacheImbalance lists the stages (plan indexes) that read cached
	// partitions spread unevenly over the executors' slots, with the hosts
	// that truth.json names for them (cachedImbalance).
	cacheImbalance []cacheLabel
	offerAt        int64 // time of the pending evOffer, 0 for none
	hosts          *model.Interner
	reasons        map[model.Reason]uint32
	done           bool
	started        bool
	want           int // executors wanted (dynamic allocation)
	execSeq        int
	truth          AppTruth
	portBase       int

	driverHost  string
	dynamic     bool
	speculation bool
	clusterTS   string // YARN cluster timestamp in application and container ids
	seq         int    // application number in the cluster
	timeoutS    float64
	racks       []string
	hostSet     map[int]bool // nodes that ran attempts
	coresOn     []int32      // cores held per node, while the application runs
	stageWin    map[int][2]int64
	gcCum       map[uint32]int64 // GC time so far per executor (model index)
	// nodeSlow holds, per node, its successful attempts' node and fault
	// slowdowns over their stages' typical attempts (slowNodes).
	nodeSlow map[int][][2]float64
}

// execRun is a Spark executor or a MapReduce container on a node.
type execRun struct {
	app       *appRun
	node      *node
	idx       uint32 // index in App.Executors (Spark)
	cores     int
	free      int
	lost      bool
	idleSince int64
}

func (e *engine) at(t int64, ev event) {
	ev.at = max(t, e.now)
	e.q.push(ev)
}

// run processes events until none are left.
func (e *engine) run() error {
	for {
		ev, ok := e.q.pop()
		if !ok {
			break
		}
		if e.err != nil {
			return e.err
		}
		e.now = ev.at
		switch ev.kind {
		case evAppArrive:
			e.arrive(ev.app)
		case evJobStart:
			e.startJob(ev.app)
		case evStageSubmit:
			e.submitStage(ev.st)
		case evTaskEnd:
			if ev.gen == ev.task.gen {
				e.taskEnd(ev.task)
			}
		case evOffer:
			if ev.app.offerAt == ev.at {
				ev.app.offerAt = 0
				e.offerAll(ev.app)
			}
		case evAllocate:
			e.allocateTick(ev.app)
		case evSpeculate:
			e.speculateTick(ev.app)
		case evHangEnd:
			e.admitWaiting() // the node's cores are usable again
		case evTick:
			if err := e.tick(); err != nil {
				return err
			}
		}
	}
	return e.err
}

// arrive admits an application: it takes executors if the cluster has room,
// else waits for an application to finish.
func (e *engine) arrive(a *appRun) {
	e.pending--
	e.live++
	a.submit = e.now
	e.waiting = append(e.waiting, a)
	e.admitWaiting()
}

// admitWaiting gives freed capacity first to running applications that got
// fewer executors than they asked for (as YARN keeps their requests), then
// starts waiting applications, in arrival order, while they get executors.
func (e *engine) admitWaiting() {
	for _, a := range e.apps {
		if !a.started || a.done {
			continue
		}
		live := 0
		for _, x := range a.execs {
			if !x.lost {
				live++
			}
		}
		if live < a.want && e.addExecutors(a, a.want-live) > 0 {
			e.offerAll(a)
		}
	}
	for len(e.waiting) > 0 {
		a := e.waiting[0]
		want := a.plan.spec.Executors
		if e.sc.Scheduler.DynamicAllocation && a.plan.engine == model.Spark {
			want = max(1, want/2)
		}
		if e.addExecutors(a, want) == 0 {
			return
		}
		e.waiting = e.waiting[1:]
		a.want = want
		e.startApp(a)
	}
}

// addExecutors places up to n executors of a, one per node per pass,
// and returns how many it placed.
func (e *engine) addExecutors(a *appRun, n int) int {
	cores := a.plan.spec.Cores
	nodes := e.cl.nodes
	got := 0
	for got < n {
		placed := false
		for k := 0; k < len(nodes) && got < n; k++ {
			nd := nodes[(e.cursor+k)%len(nodes)]
			if nd.free < cores || nd.drained {
				continue
			}
			if hung, _ := nd.hungAt(e.now); hung {
				continue
			}
			e.newExecutor(a, nd)
			got++
			placed = true
			e.cursor = (e.cursor + k + 1) % len(nodes)
			break
		}
		if !placed {
			break
		}
	}
	return got
}

func (e *engine) newExecutor(a *appRun, nd *node) *execRun {
	cores := a.plan.spec.Cores
	nd.free -= cores
	x := &execRun{app: a, node: nd, cores: cores, free: cores, idleSince: e.now}
	if a.coresOn == nil {
		a.coresOn = make([]int32, len(e.cl.nodes))
	}
	a.coresOn[nd.idx] += int32(cores)
	a.execSeq++
	if a.plan.engine == model.Spark {
		x.idx = uint32(len(a.app.Executors))
		a.app.Executors = append(a.app.Executors, sparkExecutor(a, nd, a.execSeq, cores, e.now))
	}
	a.execs = append(a.execs, x)
	e.sink.memAdd(nd, memPerCore*float64(cores))
	return x
}

// removeExecutor gives an executor's cores back to its node.
func (e *engine) removeExecutor(x *execRun, reason string) {
	if x.lost {
		return
	}
	x.lost = true
	x.node.free += x.cores
	x.app.coresOn[x.node.idx] -= int32(x.cores)
	e.sink.memAdd(x.node, -memPerCore*float64(x.cores))
	if x.app.plan.engine == model.Spark {
		ex := x.app.app.Executors[x.idx]
		ex.Removed, ex.RemoveReason = e.now, reason
	}
}

// startApp begins an application once it has executors.
func (e *engine) startApp(a *appRun) {
	a.started = true
	startSparkOrMR(a, e.now)
	a.job = -1
	e.at(e.now+driverGap(e.draws(siteJobStart, int64(a.plan.index), 0), a)+e.driverPause(a), event{kind: evJobStart, app: a})
	if e.sc.Scheduler.DynamicAllocation && a.plan.engine == model.Spark {
		e.at(e.now+1000, event{kind: evAllocate, app: a})
	}
	if e.sc.Scheduler.Speculation {
		e.at(e.now+1000, event{kind: evSpeculate, app: a})
	}
}

// startJob submits the next job of a, or ends a when it has none left.
func (e *engine) startJob(a *appRun) {
	a.job++
	if a.job >= len(a.plan.jobs) {
		e.endApp(a)
		return
	}
	jp := &a.plan.jobs[a.job]
	job := &model.Job{ID: int32(a.job), Name: jp.name, SQLID: -1, Submitted: e.now, Status: model.JobRunning,
		ResultStage: int32(jp.stages[len(jp.stages)-1])}
	for _, si := range jp.stages {
		job.StageIDs = append(job.StageIDs, int32(si))
		job.StageTasks = append(job.StageTasks, int32(a.plan.stages[si].tasks))
		job.NumTasks += int64(a.plan.stages[si].tasks)
	}
	if a.plan.engine == model.MapReduce {
		// As the .jhist decoder builds it: submitted when the job was, no
		// estimated task count.
		job.Name, job.Submitted, job.NumTasks = a.app.Name, a.app.Start, 0
		job.ResultStage = int32(jp.stages[len(jp.stages)-1])
		job.Properties = [][2]string{{"queue", "default"}, {"priority", "NORMAL"}}
	} else {
		job.Description = jp.name
		job.Properties = [][2]string{{"spark.scheduler.pool", "default"}, {"spark.job.description", jp.name}}
	}
	a.app.Jobs = append(a.app.Jobs, job)
	a.truth.Jobs++
	for _, si := range jp.stages {
		if len(a.plan.stages[si].parents) == 0 {
			e.at(e.now+5, event{kind: evStageSubmit, app: a, st: e.newStage(a, si)})
		}
	}
}

// endApp finishes an application and frees its executors.
func (e *engine) endApp(a *appRun) {
	a.done = true
	e.live--
	end := e.now + 200 + e.draws(siteAppEnd, int64(a.plan.index)).Int64N(800)
	for _, x := range a.execs {
		if !x.lost {
			e.removeExecutorAt(x, end)
		}
	}
	finishApp(a, end)
	if a.plan.spec.SQL && a.plan.engine == model.Spark {
		sqlQueries(a, e.appProblems(a))
	}
	a.coresOn = nil
	t := &a.truth
	t.StartMs, t.EndMs = a.app.Start, a.app.End
	t.Hosts = len(a.hostSet)
	t.Executors = len(a.execs)
	if e.onApp != nil {
		p, err := e.onApp(a.app)
		if err != nil && e.err == nil {
			e.err = err
		}
		t.Path = p
		// Forget the application: its log is written.
		a.app, a.stages, a.execs, a.active, a.cachedAt, a.hostSet = nil, nil, nil, nil, nil, nil
	}
	e.lastEnd = max(e.lastEnd, end)
	e.admitWaiting()
}

// removeExecutorAt frees an executor at app end; Spark logs no removal for
// executors still alive when the application ends.
func (e *engine) removeExecutorAt(x *execRun, _ int64) {
	x.lost = true
	x.node.free += x.cores
	e.sink.memAdd(x.node, -memPerCore*float64(x.cores))
}

// driverGap is the driver's time between jobs (planning, collecting results).
func driverGap(rng *rand.Rand, a *appRun) int64 {
	if a.plan.engine == model.MapReduce {
		return 1000 + rng.Int64N(2000)
	}
	return 100 + rng.Int64N(900)
}
