package sim

import (
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// stageRun is a submitted stage: its pending tasks indexed for delay
// scheduling, its running attempts and its shuffle output.
type stageRun struct {
	app  *appRun
	pi   int
	plan *stagePlan
	m    *model.Stage

	pending  []bool // task index waits for an attempt
	attempts []int32
	done     []bool
	nDone    int
	running  map[*taskRun]struct{}
	avoid    []int32 // node a retry should avoid, -1 for none
	byExec   map[*execRun][]int32
	byNode   map[int32][]int32
	byRack   map[int][]int32
	noPref   []int32
	all      []int32
	retries  []int32
	nPending int
	// nPendingPref counts pending tasks with a locality preference.
	nPendingPref int
	cl           *cluster

	nextLaunch int64 // earliest next launch under a launch-rate cap
	level      int   // Spark's current locality index: 0 process, 1 node, 2 rack, 3 any
	waitSince  int64 // last launch at the current level (or submission)
	levels     [4]bool

	outByNode map[int32]int64 // shuffle bytes written per node
	outTotal  int64
	shuffleIn int64 // total shuffle bytes the stage reads
	sources   []shuffleSource
	lossySrc  []shuffleSource // sources on nodes with a packet-loss fault
	faultySrc []shuffleSource // sources on nodes with any fault
	durations []int64         // successful attempt durations (speculation)
	causes    []attemptCauses // successful attempts' causes (stragglerTruth)
	byRes     [numRes]int64   // attempts' time bound by CPU, disk and network
}

// shuffleSource is a node holding shuffle output for a stage, with its
// share and its sending rate (bytes/s) when the stage was submitted.
type shuffleSource struct {
	node   *node
	share  float64
	rate   float64
	lossy  bool // the node has a packet-loss fault
	faulty bool // the node has a fault
}

// newStage creates the run state of plan stage si of a (not yet submitted).
func (e *engine) newStage(a *appRun, si int) *stageRun {
	sp := a.plan.stages[si]
	st := &stageRun{app: a, pi: si, plan: sp, running: map[*taskRun]struct{}{}}
	a.stages[si] = st
	return st
}

// submitStage makes a stage's tasks schedulable.
func (e *engine) submitStage(st *stageRun) {
	a, sp := st.app, st.plan
	n := sp.tasks
	st.pending = make([]bool, n)
	st.attempts = make([]int32, n)
	st.done = make([]bool, n)
	st.avoid = make([]int32, n)
	st.byExec = map[*execRun][]int32{}
	st.byNode = map[int32][]int32{}
	st.byRack = map[int][]int32{}
	st.outByNode = map[int32]int64{}
	for i := n - 1; i >= 0; i-- { // Spark pops from the end: push in reverse so task 0 goes first
		idx := int32(i)
		st.pending[i] = true
		st.avoid[i] = -1
		st.all = append(st.all, idx)
		switch {
		case sp.input == inHDFS:
			racks := map[int]bool{}
			for _, nd := range sp.prefs[i] {
				st.byNode[nd] = append(st.byNode[nd], idx)
				r := e.cl.nodes[nd].rack
				if !racks[r] {
					racks[r] = true
					st.byRack[r] = append(st.byRack[r], idx)
				}
			}
			st.levels[1], st.levels[2] = true, true
		case sp.input == inCached && i < len(a.cachedAt) && a.cachedAt[i] != nil && !a.cachedAt[i].lost:
			x := a.cachedAt[i]
			st.byExec[x] = append(st.byExec[x], idx)
			st.byNode[int32(x.node.idx)] = append(st.byNode[int32(x.node.idx)], idx)
			st.levels[0], st.levels[1] = true, true
		default:
			st.noPref = append(st.noPref, idx)
		}
	}
	if sp.input == inHDFS || sp.input == inCached {
		st.nPendingPref = n
	}
	if sp.input == inCached {
		if hosts, under := cachedImbalance(a, n); len(hosts) > 0 {
			a.cacheImbalance = append(a.cacheImbalance, cacheLabel{stage: st.pi, hosts: hosts, under: under, cause: CauseCache})
		}
	}
	if sp.input == inHDFS && !sp.injected {
		if hosts, under := blockImbalance(a, sp.prefs); len(hosts) > 0 {
			a.cacheImbalance = append(a.cacheImbalance, cacheLabel{stage: st.pi, hosts: hosts, under: under, cause: CauseBlocks})
		}
	}
	st.levels[3] = true
	// Like Spark's computeValidLocalityLevels, a level counts only when a
	// live executor could run a task at it.
	liveNode, liveRack := map[int32]bool{}, map[int]bool{}
	for _, x := range a.execs {
		if !x.lost {
			liveNode[int32(x.node.idx)] = true
			liveRack[x.node.rack] = true
		}
	}
	if st.levels[1] {
		ok := false
		for nd := range st.byNode {
			ok = ok || liveNode[nd]
		}
		st.levels[1] = ok
	}
	if st.levels[2] {
		ok := false
		for r := range st.byRack {
			ok = ok || liveRack[r]
		}
		st.levels[2] = ok
	}
	if !st.levels[1] && !st.levels[2] && !st.levels[0] {
		st.nPendingPref = 0
	}
	st.level = 0
	for !st.levels[st.level] {
		st.level++
	}
	st.nPending = n
	st.cl = e.cl
	st.waitSince = e.now
	if sp.input == inShuffle {
		st.gatherSources(e)
	}
	st.m = newModelStage(a, st, e.now)
	a.active = append(a.active, st)
	e.offerAll(a)
}

// gatherSources collects where the parents' shuffle output lives.
func (st *stageRun) gatherSources(e *engine) {
	byNode := map[int32]int64{}
	var order []int32
	for _, p := range st.plan.parents {
		ps := st.app.stages[p]
		if ps == nil {
			continue
		}
		for nd, b := range ps.outByNode {
			if _, ok := byNode[nd]; !ok {
				order = append(order, nd)
			}
			byNode[nd] += b
		}
		st.shuffleIn += ps.outTotal
	}
	slices.Sort(order)
	for _, nd := range order {
		if st.shuffleIn > 0 {
			n := e.cl.nodes[nd]
			src := shuffleSource{node: n, share: float64(byNode[nd]) / float64(st.shuffleIn)}
			e.cur = st.app
			src.rate = n.netMBps(e.now) * mb / math.Max(1, e.load(n)/4)
			e.cur = nil
			for _, f := range n.faults {
				if f.spec.Kind == FaultPacketLoss {
					src.lossy = true
				}
			}
			if src.faulty = len(n.faults) > 0; src.faulty {
				st.faultySrc = append(st.faultySrc, src)
			}
			if src.lossy {
				st.lossySrc = append(st.lossySrc, src)
			}
			st.sources = append(st.sources, src)
		}
	}
}

// allowedLevel advances the stage's locality level by the time waited (delay scheduling).
func (st *stageRun) allowedLevel(now, wait int64) int {
	for st.level < 3 {
		if !st.levels[st.level] || (st.level < 3 && st.nPendingPref == 0) {
			st.level++
			continue
		}
		if now-st.waitSince < wait {
			break
		}
		st.waitSince += wait
		st.level++
	}
	return st.level
}

// popFrom takes the last pending index of *l, dropping launched ones.
func (st *stageRun) popFrom(l *[]int32, nodeIdx int32) int32 {
	s := *l
	for len(s) > 0 && !st.pending[s[len(s)-1]] {
		s = s[:len(s)-1]
	}
	*l = s
	for k := len(s) - 1; k >= 0; k-- {
		i := s[k]
		if !st.pending[i] || st.avoid[i] == nodeIdx {
			continue // launched, or a retry that must go to another node
		}
		*l = append(s[:k], s[k+1:]...)
		return i
	}
	return -1
}

// pick chooses a task for executor x under delay scheduling and says at which locality.
func (st *stageRun) pick(x *execRun, now, wait int64) (int32, model.Locality, bool) {
	if st.nPending == 0 || now < st.nextLaunch {
		return -1, 0, false
	}
	nd := int32(x.node.idx)
	// Retries and speculative copies first, anywhere but where they failed.
	for k, i := range st.retries {
		if st.pending[i] && st.avoid[i] != nd {
			st.retries = append(st.retries[:k], st.retries[k+1:]...)
			return i, st.localityOf(i, x), true
		}
	}
	level := st.allowedLevel(now, wait)
	if l, ok := st.byExec[x]; ok {
		if i := st.popFrom(&l, nd); i >= 0 {
			st.byExec[x] = l
			return i, model.ProcessLocal, true
		}
		st.byExec[x] = l
	}
	if l, ok := st.byNode[nd]; ok {
		if i := st.popFrom(&l, nd); i >= 0 {
			st.byNode[nd] = l
			return i, model.NodeLocal, true
		}
		st.byNode[nd] = l
	}
	if i := st.popFrom(&st.noPref, nd); i >= 0 {
		return i, model.NoPref, true
	}
	if level >= 2 {
		r := x.node.rack
		if l, ok := st.byRack[r]; ok {
			if i := st.popFrom(&l, nd); i >= 0 {
				st.byRack[r] = l
				return i, model.RackLocal, true
			}
			st.byRack[r] = l
		}
	}
	if level >= 3 {
		if i := st.popFrom(&st.all, nd); i >= 0 {
			return i, st.localityOf(i, x), true
		}
	}
	return -1, 0, false
}

// localityOf is where x stands relative to task i's data.
func (st *stageRun) localityOf(i int32, x *execRun) model.Locality {
	sp := st.plan
	switch sp.input {
	case inHDFS:
		for _, nd := range sp.prefs[i] {
			if int(nd) == x.node.idx {
				return model.NodeLocal
			}
		}
		for _, nd := range sp.prefs[i] {
			if st.cl.nodes[nd].rack == x.node.rack {
				return model.RackLocal
			}
		}
		return model.AnyLocality
	case inCached:
		if int(i) < len(st.app.cachedAt) && st.app.cachedAt[i] == x {
			return model.ProcessLocal
		}
		return model.AnyLocality
	}
	return model.NoPref
}

// offerAll offers every free core of a to its active stages.
func (e *engine) offerAll(a *appRun) {
	for _, x := range a.execs {
		e.offer(x)
	}
	e.scheduleReoffer(a)
}

// offer fills executor x's free cores with tasks of its application's active stages.
func (e *engine) offer(x *execRun) {
	a := x.app
	if x.lost || a.done {
		return
	}
	if hung, until := x.node.hungAt(e.now); hung {
		e.reofferAt(a, until)
		return
	}
	for x.free > 0 {
		launched := false
		for _, st := range a.active {
			i, loc, ok := st.pick(x, e.now, e.localityWait(st))
			if !ok {
				continue
			}
			e.launch(st, i, x, loc, nil)
			launched = true
			break
		}
		if !launched {
			return
		}
	}
}

func (e *engine) localityWait(st *stageRun) int64 {
	if st.plan.localityWait > 0 {
		return st.plan.localityWait
	}
	return e.sc.Scheduler.LocalityWaitMs
}

// scheduleReoffer plans another offer round when a stage holds tasks back for locality.
func (e *engine) scheduleReoffer(a *appRun) {
	for _, st := range a.active {
		if st.nPending > 0 && st.nextLaunch > e.now {
			e.reofferAt(a, st.nextLaunch)
		}
		if st.nPending > 0 && st.level < 3 {
			e.reofferAt(a, st.waitSince+e.localityWait(st))
		}
	}
}

func (e *engine) reofferAt(a *appRun, t int64) {
	t = max(t, e.now+1)
	if a.offerAt != 0 && a.offerAt <= t {
		return
	}
	a.offerAt = t
	e.at(t, event{kind: evOffer, app: a})
}

// stageDone completes a stage and submits what it unblocks.
func (e *engine) stageDone(st *stageRun) {
	a := st.app
	completeModelStage(st, e.now)
	a.truth.Stages++
	if a.stageWin == nil {
		a.stageWin = map[int][2]int64{}
	}
	a.stageWin[st.pi] = [2]int64{st.m.Submitted, st.m.Completed}
	a.truth.StageProfiles = append(a.truth.StageProfiles, stageProfile(st))
	e.stragglerTruth(st)
	st.plan.prefs = nil // placement is no longer needed
	st.byExec, st.byNode, st.byRack, st.all, st.noPref = nil, nil, nil, nil, nil
	for k, s := range a.active {
		if s == st {
			a.active = append(a.active[:k], a.active[k+1:]...)
			break
		}
	}
	jp := &a.plan.jobs[a.job]
	allDone := true
	for _, si := range jp.stages {
		s := a.stages[si]
		if s == nil {
			allDone = false
			ready := true
			for _, p := range a.plan.stages[si].parents {
				if ps := a.stages[p]; ps == nil || ps.m == nil || ps.m.Status != model.StageComplete {
					ready = false
				}
			}
			if ready {
				e.at(e.now+10+e.draws(siteStage, int64(a.plan.index), int64(si)).Int64N(40), event{kind: evStageSubmit, app: a, st: e.newStage(a, si)})
			}
			continue
		}
		if s.m == nil || s.m.Status != model.StageComplete {
			allDone = false
		}
	}
	if allDone {
		job := a.app.Jobs[a.job]
		job.Completed, job.Status = e.now+2, model.JobSucceeded
		e.at(e.now+driverGap(e.draws(siteJobStart, int64(a.plan.index), int64(a.job+1)), a)+e.driverPause(a), event{kind: evJobStart, app: a})
	}
}

// modelID is the stage's id in the model (MapReduce: map 0, reduce 1).
func (st *stageRun) modelID() int32 {
	if st.app.plan.engine == model.MapReduce {
		if st.plan.kind == model.StageReduce {
			return 1
		}
		return 0
	}
	return int32(st.pi)
}

// stageProfile says how much of a stage's attempt time was bound by each resource.
func stageProfile(st *stageRun) StageProfile {
	b := st.byRes
	total := float64(b[resCPU] + b[resDisk] + b[resNet])
	sp := StageProfile{Stage: st.modelID()}
	if total > 0 {
		sp.CPU = math.Round(float64(b[resCPU])/total*1000) / 1000
		sp.Disk = math.Round(float64(b[resDisk])/total*1000) / 1000
		sp.Network = math.Round(float64(b[resNet])/total*1000) / 1000
	}
	sp.Dominant = "cpu"
	if b[resDisk] > b[resCPU] && b[resDisk] >= b[resNet] {
		sp.Dominant = "disk"
	} else if b[resNet] > b[resCPU] && b[resNet] > b[resDisk] {
		sp.Dominant = "network"
	}
	return sp
}

// imbalanceBC is HybridTune's balance coefficient (arXiv:1711.07639, §3.3.1):
// a node whose workload deviates from the nodes' mean by more than this
// share of the mean is imbalanced.
const imbalanceBC = 0.1

// cacheLabel is a stage whose input (cached partitions or HDFS blocks) is
// imbalanced over the application's slots, the hosts truth.json names,
// the underloaded ones besides and the cause.
type cacheLabel struct {
	stage int
	hosts []string
	under []string
	cause string
}

// cachedImbalance judges where the n cached partitions a stage is about to
// read live. Spark keeps a cached partition in the executor that computed
// it and offers its task there first (PROCESS_LOCAL), so a node that
// cached fewer partitions per task slot than the others (a slow node that
// ran fewer tasks of the caching stage) is underloaded in every stage that
// reads them, and one that cached more is overloaded. Workload is cached
// partitions per slot of the application's live executors on the node;
// a node deviating from the mean over those nodes by more than imbalanceBC
// is imbalanced. It returns the overloaded hosts, or the underloaded ones
// when none is overloaded (sorted), or nil when the cache is balanced, and
// the underloaded hosts when overloaded ones were returned. It says
// nothing of how much time the imbalance costs: with a few partitions per
// slot, one partition more or less is already over BC.
func cachedImbalance(a *appRun, n int) (hosts, under []string) {
	slots := map[*node]int{}
	count := map[*node]int{}
	var nodes []*node
	for _, x := range a.execs {
		if x.lost {
			continue
		}
		if _, ok := slots[x.node]; !ok {
			nodes = append(nodes, x.node)
		}
		slots[x.node] += x.cores
	}
	if len(nodes) < 2 {
		return nil, nil
	}
	for i := 0; i < n && i < len(a.cachedAt); i++ {
		if x := a.cachedAt[i]; x != nil && !x.lost {
			count[x.node]++
		}
	}
	var mean float64
	for _, nd := range nodes {
		mean += float64(count[nd]) / float64(max(slots[nd], 1)) / float64(len(nodes))
	}
	if mean <= 0 {
		return nil, nil
	}
	load := make(map[*node]float64, len(nodes))
	for _, nd := range nodes {
		load[nd] = float64(count[nd])
	}
	return overUnder(nodes, load, slots, mean)
}

// overUnder splits nodes by their load per slot's deviation from mean:
// the overloaded (over imbalanceBC) and the underloaded (under
// -imbalanceBC), each sorted; the underloaded come first, and alone, when
// none is overloaded.
func overUnder(nodes []*node, load map[*node]float64, slots map[*node]int, mean float64) (hosts, under []string) {
	var over []string
	for _, nd := range nodes {
		dev := (load[nd]/float64(max(slots[nd], 1)) - mean) / mean
		switch {
		case dev > imbalanceBC:
			over = append(over, nd.name)
		case dev < -imbalanceBC:
			under = append(under, nd.name)
		}
	}
	slices.Sort(over)
	slices.Sort(under)
	if len(over) == 0 {
		return under, nil
	}
	return over, under
}

// blockImbalance judges where an HDFS-input stage's blocks live against
// the application's slots, before any task runs. Delay scheduling offers
// each task first to the executors on a node holding a replica of its
// block (NODE_LOCAL), so a node holding more of the stage's blocks per
// slot than the others gets more tasks, and one holding fewer waits out
// the locality wait with idle slots. A node's workload is its share of
// the blocks with a replica on some executor's node (a block counts
// 1/k on each of its k such nodes) per slot of the application's live
// executors there; the split is cachedImbalance's. Like it, it says
// nothing of what the imbalance costs.
func blockImbalance(a *appRun, prefs [][]int32) (hosts, under []string) {
	slots := map[*node]int{}
	var nodes []*node
	byIdx := map[int32]*node{}
	for _, x := range a.execs {
		if x.lost {
			continue
		}
		if _, ok := slots[x.node]; !ok {
			nodes = append(nodes, x.node)
			byIdx[int32(x.node.idx)] = x.node
		}
		slots[x.node] += x.cores
	}
	if len(nodes) < 2 {
		return nil, nil
	}
	load := make(map[*node]float64, len(nodes))
	for _, reps := range prefs {
		k := 0
		for _, r := range reps {
			if byIdx[r] != nil {
				k++
			}
		}
		for _, r := range reps {
			if nd := byIdx[r]; nd != nil {
				load[nd] += 1 / float64(k)
			}
		}
	}
	var mean float64
	for _, nd := range nodes {
		mean += load[nd] / float64(max(slots[nd], 1)) / float64(len(nodes))
	}
	if mean <= 0 {
		return nil, nil
	}
	return overUnder(nodes, load, slots, mean)
}
