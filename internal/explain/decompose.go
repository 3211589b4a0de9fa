package explain

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/history"
)

// decomposition accumulates the milliseconds each cause's items explain.
type decomposition struct {
	parts map[partKey]*part
	order []partKey
}

type partKey struct{ kind, stage, node, key string }

type part struct {
	item Item
	ms   float64
}

// add credits ms to the item of kind; the item's evidence is the first
// given.
func (d *decomposition) add(kind string, it Item, ms float64) {
	if ms == 0 || math.IsNaN(ms) || math.IsInf(ms, 0) {
		return
	}
	k := partKey{kind, it.StageName + fmt.Sprint(it.Stage), it.Node, it.Key}
	p := d.parts[k]
	if p == nil {
		p = &part{item: it}
		d.parts[k] = p
		d.order = append(d.order, k)
	}
	p.ms += ms
}

// stageCtx is what the decomposition of every stage group shares.
type stageCtx struct {
	p        Params
	beta     map[string]float64
	gamma    map[string]float64 // signature -> its task count's elasticity to its bytes (taskElasticities)
	settings []setting
	plans    map[string]*planChange
	nodes    map[string]*NodeSlowdown      // every host the model judged
	hostMs   map[string]map[string]float64 // signature -> host -> successful task ms
	// gcExplains marks the stage groups whose extra task time garbage
	// collection and spills explain for the most part.
	gcExplains map[string]bool
	inRatio    float64 // the run's input over its usual input
}

// decompose splits the difference between run and its usual runs into
// causes (package doc).
func decompose(run *history.Run, usual []*history.Run, p Params, nodes NodeModel) *decomposition {
	d := &decomposition{parts: map[partKey]*part{}}
	pr := profileOf(run)
	ups := make([]*profile, len(usual))
	for i, u := range usual {
		ups[i] = profileOf(u)
	}
	c := &stageCtx{p: p, beta: elasticities(usual, p), gamma: taskElasticities(usual), settings: changedSettings(run, usual, p),
		plans: changedPlans(run, usual, p), nodes: map[string]*NodeSlowdown{},
		hostMs: map[string]map[string]float64{}, gcExplains: map[string]bool{}}
	c.inRatio = ratio(pr.input, medianOf(ups, func(u *profile) float64 { return u.input }))
	for _, s := range nodes.Slowdowns(run, usual) {
		c.nodes[s.Host] = &s
	}
	for sig, hosts := range cellsOf(run) {
		c.hostMs[sig] = map[string]float64{}
		for h, cl := range hosts {
			c.hostMs[sig][h] = cl.sumMs
		}
	}

	// The driver's time, and waiting for executors outside stages.
	drv := medianOf(ups, func(u *profile) float64 { return u.driver })
	d.add(KindDriver, Item{Stage: -1, Evidence: fmt.Sprintf("no stage ran for %s with executors up (usually %s)",
		fmtMs(int64(pr.driver)), fmtMs(int64(drv)))}, pr.driver-drv)
	wx := medianOf(ups, func(u *profile) float64 { return u.waitExe })
	c.credit(d, KindExecutors, Item{Stage: -1, Evidence: fmt.Sprintf("no executor was up for %s of the run (usually %s)",
		fmtMs(int64(pr.waitExe)), fmtMs(int64(wx)))}, pr.waitExe-wx)

	sigs := slices.Clone(pr.order)
	var gone []string
	for _, u := range ups {
		for _, sig := range u.order {
			if _, ok := pr.groups[sig]; !ok && !slices.Contains(gone, sig) {
				gone = append(gone, sig)
			}
		}
	}
	slices.Sort(gone)
	usualOf := func(sig string) []*group {
		var us []*group
		for _, u := range ups {
			if ug := u.groups[sig]; ug != nil {
				us = append(us, ug)
			}
		}
		return us
	}
	for _, sig := range sigs {
		g := pr.groups[sig]
		us := usualOf(sig)
		if 2*len(us) < len(ups) {
			// The same stage whose shape flags differ (a stage whose tasks
			// read no bytes this time) is still that stage.
			name, _, _ := strings.Cut(sig, "|")
			for i, alt := range gone {
				if a, _, _ := strings.Cut(alt, "|"); a == name && 2*len(usualOf(alt)) >= len(ups) {
					us = usualOf(alt)
					gone = slices.Delete(gone, i, i+1)
					break
				}
			}
		}
		if 2*len(us) < len(ups) {
			c.credit(d, KindPlan, Item{Stage: g.ids[0], StageName: g.name, Evidence: fmt.Sprintf(
				"stage %d (%s) ran for %s; %d of the %d usual runs ran it", g.ids[0], g.name, fmtMs(int64(g.wall)),
				len(us), len(ups))}, g.wall)
			continue
		}
		c.group(d, g, us)
	}
	for _, sig := range gone {
		var name string
		var n int
		w := medianOf(ups, func(u *profile) float64 {
			if ug := u.groups[sig]; ug != nil {
				name = ug.name
				n++
				return ug.wall
			}
			return 0
		})
		if 2*n >= len(ups) {
			c.credit(d, KindPlan, Item{Stage: -1, StageName: name, Evidence: fmt.Sprintf(
				"a stage the usual runs ran (%s, usually %s) did not run", name, fmtMs(int64(w)))}, -w)
		}
	}
	return d
}

// group splits one stage group's change in wall time (package doc): work,
// waiting and tail.
func (c *stageCtx) group(d *decomposition, g *group, us []*group) {
	med := func(f func(*group) float64) float64 {
		xs := make([]float64, 0, len(us))
		for _, u := range us {
			xs = append(xs, f(u))
		}
		return median(xs)
	}
	if !g.timed || g.dur <= 0 || g.slots() <= 0 || slices.ContainsFunc(us, func(u *group) bool { return !u.timed || u.dur <= 0 || u.slots() <= 0 }) {
		return // runs indexed before schema 3: the change stays unexplained
	}
	stage := Item{Stage: g.ids[0], StageName: g.name}
	beta, ok := c.beta[g.sig]
	if !ok {
		beta = 1
	}
	aR, aB := g.wall/g.dur, med(func(u *group) float64 { return u.wall / u.dur })
	okB, bytesB := med(func(u *group) float64 { return u.ok }), med(func(u *group) float64 { return u.bytes })
	phiR := (g.ok + g.failed) / math.Max(g.ok, 1)
	phiB := med(func(u *group) float64 { return (u.ok + u.failed) / math.Max(u.ok, 1) })
	availR, availB := g.avail(), med((*group).avail)
	nR, nB := g.perStage(), med((*group).perStage)
	kR, kB := min(availR, nR), min(availB, nB)
	fd := math.Pow(ratio(g.bytes, bytesB), beta)

	// Work: (S+F)/K by LMDI over data, excess task time, failures, slots;
	// the tail by the attempts the stage ended with; both into gd, this
	// stage's parts.
	gd := &decomposition{parts: map[partKey]*part{}}
	pe, pp := shapley(availB, nB, availR, nR)
	rest := c.restOf(g, stage, pe, pp, availB, nB, bytesB)
	workR, workB := aR*(g.ok+g.failed)/kR, aB*okB*phiB/kB
	if workR > 0 && workB > 0 {
		l := lmean(workR, workB)
		c.data(gd, g, stage, l*math.Log(fd), beta, bytesB)
		c.failures(gd, g, stage, l*math.Log(phiR/phiB), med(func(u *group) float64 { return u.failed }))
		c.slots(gd, g, stage, -l*pe, -l*pp, availB, nB, bytesB)
		ex := l * math.Log(g.ok/(okB*fd))
		if x := g.ok - okB*fd; x > 0 {
			c.excess(gd, g, stage, ex, x, fd, med(func(u *group) float64 { return u.gc }),
				med(func(u *group) float64 { return u.spill }), okB, bytesB, rest)
		} else {
			rest(gd, ex)
		}
	}
	tailR := aR * g.tail() / kR
	tailB := med(func(u *group) float64 { return u.wall / u.dur * u.tail() / u.slots() })
	c.tail(gd, g, us, stage, tailR-tailB, beta, bytesB, nB, fd, rest)
	// Waiting: cores idle while tasks waited to be launched. Where the
	// usual runs launch the stage's tasks at once (they wait under 10% of
	// its slot time), waiting is the scheduler's or the executors'; where
	// they launch as they become ready (the usual runs wait longer: tasks
	// waiting on their inputs, as a workflow's do), waiting follows what
	// slowed the rest of the stage.
	waitR := aR * g.waiting() / kR
	waitB := med(func(u *group) float64 { return u.wall / u.dur * u.waiting() / u.slots() })
	waitShare := med(func(u *group) float64 { return u.wait / math.Max(u.slot, 1) })
	it := withEvidence(stage, fmt.Sprintf("stage %d (%s) left cores idle %s while its tasks waited to be launched (usually %s)",
		g.ids[0], g.name, fmtMs(int64(waitR)), fmtMs(int64(waitB))))
	if waitShare < 0.1 || math.Abs(math.Log(ratio(availB, availR))) >= 0.1 {
		c.credit(gd, KindExecutors, it, waitR-waitB)
	} else {
		gd.spread(waitR - waitB)
	}
	d.merge(gd)
}

// spread adds ms to the parts pulling its way, in proportion to them; with
// none, ms stays unexplained.
func (d *decomposition) spread(ms float64) {
	var pull float64
	for _, p := range d.parts {
		pull += math.Max(0, sign(ms)*p.ms)
	}
	if pull == 0 {
		return
	}
	for _, k := range d.order {
		if p := d.parts[k]; sign(ms)*p.ms > 0 {
			p.ms += ms * math.Abs(p.ms) / pull
		}
	}
}

// merge adds o's parts to d's.
func (d *decomposition) merge(o *decomposition) {
	for _, k := range o.order {
		p := o.parts[k]
		d.add(k.kind, p.item, p.ms)
	}
}

// restOf returns what credits the task time (and tail) of a stage group
// that data, garbage collection, failures, skew and nodes leave: a
// changed plan or setting; else, when the usable slots changed by 10% or
// more, the slots' causes (tasks sharing a node's disk and network with
// fewer or more of their own run's tasks run faster or slower), in the
// proportion of their log changes pe and pp; else nothing (unexplained).
func (c *stageCtx) restOf(g *group, stage Item, pe, pp, availB, nB, bytesB float64) func(*decomposition, float64) {
	if owner, it := c.costOwner(g, stage); owner != "" {
		return func(d *decomposition, ms float64) { c.credit(d, owner, it, ms) }
	}
	if math.Abs(pe+pp) < 0.1 {
		return func(*decomposition, float64) {}
	}
	we := math.Abs(pe) / (math.Abs(pe) + math.Abs(pp))
	return func(d *decomposition, ms float64) { c.slots(d, g, stage, ms*we, ms*(1-we), availB, nB, bytesB) }
}

// data credits the work's data factor: more input, or, in a query whose
// plan changed, the part beyond the run's input's change to the plan.
func (c *stageCtx) data(d *decomposition, g *group, stage Item, ms, beta, bytesB float64) {
	ev := fmt.Sprintf("stage %d (%s) read and wrote %s (usually %s; task time ∝ bytes^%.2f)", g.ids[0], g.name,
		fmtBytes(g.bytes), fmtBytes(bytesB), beta)
	share := c.inputShare(g, bytesB)
	d.add(KindInput, withEvidence(stage, ev), ms*share)
	if pc := c.plans[g.sig]; pc != nil {
		c.credit(d, c.planKind(), withEvidence(stage, pc.describe()+"; "+ev), ms*(1-share))
	}
}

// inputShare is the part of a stage group's change in bytes (in logs)
// that the run's input explains: all of it, unless its query's plan
// changed; then the input's change over the stage's, the rest being the
// plan's. Either may be negative: less input read through a plan that
// writes more is less data and a costlier plan.
func (c *stageCtx) inputShare(g *group, bytesB float64) float64 {
	if c.plans[g.sig] == nil {
		return 1
	}
	total := math.Log(ratio(g.bytes, bytesB))
	if total == 0 {
		return 0
	}
	return math.Log(c.inRatio) / total
}

// planKind is the kind a changed plan is credited to: the plan's.
func (c *stageCtx) planKind() string { return KindPlan }

// failures credits the failed attempts' share of the work.
func (c *stageCtx) failures(d *decomposition, g *group, stage Item, ms, failedB float64) {
	c.credit(d, KindFailures, withEvidence(stage, fmt.Sprintf("stage %d (%s)'s failed attempts ran %s (usually %s)",
		g.ids[0], g.name, fmtMs(int64(g.failed)), fmtMs(int64(failedB)))), ms)
}

// slots credits the change in usable slots to executors (the cores) and
// to the change in task count (tasks): the part of it the stage's data
// explains to more data (tasksOfData), the rest to partitioning.
func (c *stageCtx) slots(d *decomposition, g *group, stage Item, exec, tasks, availB, nB, bytesB float64) {
	c.credit(d, KindExecutors, withEvidence(stage, fmt.Sprintf("stage %d (%s) had %.0f executor cores on average (usually %.0f)",
		g.ids[0], g.name, g.avail(), availB)), exec)
	nD, ev := c.tasksOfData(g, nB, bytesB)
	fromData := 0.0
	if all := math.Log(ratio(g.perStage(), nB)); all != 0 {
		fromData = math.Log(ratio(nD, nB)) / all
	}
	d.add(KindInput, withEvidence(stage, ev), tasks*fromData)
	c.credit(d, KindPartitioning, withEvidence(stage, fmt.Sprintf("stage %d (%s) ran %.0f tasks on %.0f cores (usually %.0f)",
		g.ids[0], g.name, g.perStage(), g.avail(), nB)), tasks*(1-fromData))
}

// tasksOfData is the task count a stage group would have had with the
// run's bytes and its usual partitioning: the usual count nB scaled by
// the change in bytes to the power of the stage's task-count elasticity
// (1 for a stage that splits its input by size, 0 for one with a fixed
// number of partitions), with the evidence of the change it makes.
func (c *stageCtx) tasksOfData(g *group, nB, bytesB float64) (float64, string) {
	n := nB * math.Pow(ratio(g.bytes, bytesB), c.gamma[g.sig])
	return n, fmt.Sprintf("stage %d (%s) read and wrote %s in %.0f tasks (usually %s in %.0f)", g.ids[0], g.name,
		fmtBytes(g.bytes), g.perStage(), fmtBytes(bytesB), nB)
}

// excess credits the task time the data does not explain (x ms of task
// time, ms of wall time): garbage collection and spills, then the stage's
// common slowdown to a changed plan or setting, then slower nodes, then
// the rest to rest (restOf).
func (c *stageCtx) excess(d *decomposition, g *group, stage Item, ms, x, fd, gcB, spillB, okB, bytesB float64, rest func(*decomposition, float64)) {
	perMs := ms / x
	rem := x
	claim := func(kind string, it Item, amount float64) {
		amount = math.Min(amount, rem)
		if amount <= 0 {
			return
		}
		rem -= amount
		c.credit(d, kind, it, amount*perMs)
	}
	gcExtra := math.Max(0, g.gc-gcB*fd)
	spillExtra := math.Max(0, g.spill-spillB*fd)
	spillCost := 0.0
	if bytesB > 0 {
		spillCost = spillExtra * okB / bytesB
	}
	claim(KindSpillGC, withEvidence(stage, fmt.Sprintf("stage %d (%s) spent %s in garbage collection (usually %s) and spilled %s (usually %s)",
		g.ids[0], g.name, fmtMs(int64(g.gc)), fmtMs(int64(gcB)), fmtBytes(g.spill), fmtBytes(spillB))), gcExtra+spillCost)

	c.gcExplains[g.sig] = gcExtra+spillCost >= x/2
	owner, ownerItem := c.costOwner(g, stage)
	common := c.explainedCommon(g)
	if owner != "" {
		claim(owner, ownerItem, g.ok*(1-1/common))
	}
	var hosts []string
	for h := range c.hostMs[g.sig] {
		if c.slow(h, g.sig) {
			hosts = append(hosts, h)
		}
	}
	slices.Sort(hosts)
	amounts := map[string]float64{}
	var total float64
	for _, h := range hosts {
		if net := c.stageFactor(h, g.sig) / common; net > 1 {
			amounts[h] = c.hostMs[g.sig][h] * (1 - 1/net)
			total += amounts[h]
		}
	}
	scale := 1.0
	if total > rem {
		scale = rem / total
	}
	for _, h := range hosts {
		if a := amounts[h] * scale; a > 0 {
			claim(KindNode, c.nodeItem(h, g.sig), a)
		}
	}
	if rem > 0 {
		rest(d, rem*perMs)
	}
}

// costOwner is who claims a stage's task time that neither data, GC nor
// nodes explain: its query's changed plan, else a changed setting that
// may change what a task costs; "" for none.
func (c *stageCtx) costOwner(g *group, stage Item) (string, Item) {
	if pc := c.plans[g.sig]; pc != nil {
		return KindPlan, withEvidence(stage, pc.describe())
	}
	for _, s := range c.settings {
		if s.moves == "" {
			return KindConfig, settingItem(s)
		}
	}
	return "", Item{}
}

// commonFactor is the slowdown all of a stage's hosts share: the median
// over its hosts, weighted by their task time, of their factors.
func (c *stageCtx) commonFactor(sig string) float64 {
	type hw struct{ f, w float64 }
	var xs []hw
	var total float64
	for h, ms := range c.hostMs[sig] {
		xs = append(xs, hw{c.stageFactor(h, sig), ms})
		total += ms
	}
	if len(xs) == 0 {
		return 1
	}
	slices.SortFunc(xs, func(a, b hw) int { return cmp.Compare(a.f, b.f) })
	var acc float64
	for _, x := range xs {
		if acc += x.w; acc >= total/2 {
			return x.f
		}
	}
	return xs[len(xs)-1].f
}

// stageSlowdown is host's slowdown in a stage group: its own when the
// model tells stages apart, else its pooled one; none for a host the
// model did not judge.
func (c *stageCtx) stageSlowdown(host, sig string) (StageSlowdown, bool) {
	s := c.nodes[host]
	if s == nil {
		return StageSlowdown{Factor: 1}, false
	}
	if st, ok := s.Stages[sig]; ok {
		return st, true
	}
	return StageSlowdown{Factor: s.Factor, Z: s.Z, Tasks: s.Tasks}, true
}

// stageFactor is host's slowdown factor in a stage group (1 when unknown).
func (c *stageCtx) stageFactor(host, sig string) float64 {
	st, _ := c.stageSlowdown(host, sig)
	return st.Factor
}

// slow reports whether host is slower than its own history in a stage
// group: over the run's stages (pooled), or in that stage alone.
func (c *stageCtx) slow(host, sig string) bool {
	s := c.nodes[host]
	if s == nil {
		return false
	}
	if s.Factor >= c.p.NodeSlowdown && s.Z >= c.p.NodeZ {
		return true
	}
	st, _ := c.stageSlowdown(host, sig)
	return st.Factor >= c.p.NodeSlowdown && st.Z >= c.p.NodeZ
}

// nodeItem names a slow node, with its slowdown over the run and, when
// larger, in the stage group sig.
func (c *stageCtx) nodeItem(host, sig string) Item {
	s := c.nodes[host]
	ev := fmt.Sprintf("tasks on %s ran %.1f× what its own history makes expected (z %.1f, %d tasks)", host, s.Factor, s.Z, s.Tasks)
	if st, ok := s.Stages[sig]; ok && st.Factor > s.Factor {
		ev = fmt.Sprintf("tasks on %s ran %.1f× what its own history makes expected in a stage (z %.1f, %d tasks), %.1f× over the run",
			host, st.Factor, st.Z, st.Tasks, s.Factor)
	}
	return Item{Stage: -1, Node: host, Evidence: ev}
}

// tail splits the change in a stage group's tail (ms of wall time) by
// the factors of the attempts it ended with: their retries, data per task
// (more data, partitioning), their share of the data (skew), node and
// garbage collection; what they leave goes to a changed plan or setting,
// else stays unexplained. The factors pulling the way the tail moved
// share it in proportion to their logarithms (a factor pulling the other
// way is a fact, not a cause of the change).
func (c *stageCtx) tail(d *decomposition, g *group, us []*group, stage Item, ms, beta, bytesB, nB, fd float64, rest func(*decomposition, float64)) {
	med := func(f func(*group) float64) float64 {
		xs := make([]float64, 0, len(us))
		for _, u := range us {
			xs = append(xs, f(u))
		}
		return median(xs)
	}
	eR, eB := g.chain(), med((*group).chain)
	if eR <= 0 || eB <= 0 || g.lastMs <= 0 {
		return
	}
	lnE := math.Log(eR / eB)
	nD, _ := c.tasksOfData(g, nB, bytesB)
	availB := med((*group).avail)
	slotsMoved := math.Abs(math.Log(ratio(availB, g.avail()))) >= 0.1
	executors := withEvidence(stage, fmt.Sprintf("stage %d (%s) had %.0f executor cores on average (usually %.0f)",
		g.ids[0], g.name, g.avail(), availB))
	if ms*lnE <= 0 || math.Abs(lnE) < 0.05 {
		// The attempts the stage ended with do not explain its tail; when
		// its cores changed, they do (cores added late idle in the tail,
		// fewer cores make other waves).
		if slotsMoved {
			c.credit(d, KindExecutors, executors, ms)
		}
		return
	}
	type factor struct {
		kind string
		it   Item
		ln   float64
	}
	retryB := med(func(u *group) float64 { return u.lastRetry })
	skewB := med(func(u *group) float64 { return u.lastBytes / math.Max(u.medBytes, 1) })
	lastGCB := med(func(u *group) float64 { return u.lastGC })
	fs := []factor{
		{KindFailures, withEvidence(stage, fmt.Sprintf("stage %d (%s) ended with a task whose failed attempts ran %s before it (usually %s)",
			g.ids[0], g.name, fmtMs(int64(g.lastRetry)), fmtMs(int64(retryB)))),
			math.Log(ratio(eR/g.lastMs, med(func(u *group) float64 { return u.chain() / math.Max(u.lastMs, 1) })))},
		{KindInput, withEvidence(stage, fmt.Sprintf("stage %d (%s) read and wrote %s (usually %s; task time ∝ bytes^%.2f)",
			g.ids[0], g.name, fmtBytes(g.bytes), fmtBytes(bytesB), beta)), beta * (math.Log(ratio(g.bytes, bytesB))*c.inputShare(g, bytesB) + math.Log(ratio(nB, nD)))},
		{KindPartitioning, withEvidence(stage, fmt.Sprintf("stage %d (%s) split its data into %.0f tasks (usually %.0f)",
			g.ids[0], g.name, g.perStage(), nB)), beta * math.Log(ratio(nD, g.perStage()))},
		{KindSpillGC, withEvidence(stage, fmt.Sprintf("stage %d (%s) ended with a task that spent %s in garbage collection (usually %s)",
			g.ids[0], g.name, fmtMs(int64(g.lastGC)), fmtMs(int64(lastGCB)))),
			math.Log(g.lastMs / math.Max(1, g.lastMs-math.Max(0, g.lastGC-lastGCB*fd)))},
	}
	if g.medBytes > 0 && skewB > 0 {
		fs = append(fs, factor{KindSkew, withEvidence(stage, fmt.Sprintf("stage %d (%s) ended with a task of %.1f× the median task's bytes (usually %.1f×)",
			g.ids[0], g.name, g.lastBytes/g.medBytes, skewB)), beta * math.Log(ratio(g.lastBytes/g.medBytes, skewB))})
	}
	if pc := c.plans[g.sig]; pc != nil {
		fs = append(fs, factor{c.planKind(), withEvidence(stage, pc.describe()),
			beta * math.Log(ratio(g.bytes, bytesB)) * (1 - c.inputShare(g, bytesB))})
	}
	if slotsMoved {
		fs = append(fs, factor{KindExecutors, executors, math.Abs(math.Log(ratio(availB, g.avail()))) * sign(ms)})
	}
	common := c.explainedCommon(g)
	for _, h := range g.lastHosts {
		if c.slow(h, g.sig) {
			fs = append(fs, factor{KindNode, c.nodeItem(h, g.sig), math.Log(math.Max(1, c.stageFactor(h, g.sig)/common)) / float64(len(g.lastHosts))})
		}
	}
	left := lnE
	for _, f := range fs {
		left -= f.ln
	}
	sign := sign(ms)
	pull := math.Max(0, sign*left)
	for _, f := range fs {
		pull += math.Max(0, sign*f.ln)
	}
	// The factors share the tail's change in proportion to their pull;
	// what they leave of the chain's change goes to rest.
	scale := ms / math.Max(pull, math.Abs(lnE))
	for _, f := range fs {
		if v := sign * f.ln; v > 0 {
			c.credit(d, f.kind, f.it, v*scale)
		}
	}
	if v := sign * left; v > 0 {
		rest(d, v*scale)
	}
}

// explainedCommon is the slowdown a stage's hosts share when something
// other than its nodes explains it (its plan or a setting changed, or
// garbage collection explains most of its extra task time), else 1: the
// node factors are then taken net of it.
func (c *stageCtx) explainedCommon(g *group) float64 {
	owner, _ := c.costOwner(g, Item{})
	if owner == "" && !c.gcExplains[g.sig] {
		return 1
	}
	return math.Max(1, c.commonFactor(g.sig))
}

// shapley splits the change of ln min(K, n), the usable slots, between
// the cores (K) and the tasks (n) by their Shapley values: the average
// of each one's change over both orders.
func shapley(kB, nB, kR, nR float64) (exec, part float64) {
	f := func(k, n float64) float64 { return math.Log(math.Max(math.Min(k, n), 1e-9)) }
	exec = (f(kR, nB) - f(kB, nB) + f(kR, nR) - f(kB, nR)) / 2
	part = (f(kB, nR) - f(kB, nB) + f(kR, nR) - f(kR, nB)) / 2
	return exec, part
}

// credit adds ms to kind's item, or to the configuration's when a setting
// that drives kind changed: the setting is the cause, the mechanism its
// evidence.
func (c *stageCtx) credit(d *decomposition, kind string, it Item, ms float64) {
	for _, s := range c.settings {
		if s.moves == kind {
			si := settingItem(s)
			si.Evidence += "; " + it.Evidence
			d.add(KindConfig, si, ms)
			return
		}
	}
	d.add(kind, it, ms)
}

func withEvidence(it Item, ev string) Item {
	it.Evidence = ev
	return it
}

func settingItem(s setting) Item {
	return Item{Stage: -1, Key: s.key, From: s.from, To: s.to, Evidence: fmt.Sprintf("%s: %q, usually %q", s.key, s.to, s.from)}
}

// medianOf is the median of f over the usual runs' profiles.
func medianOf(ups []*profile, f func(*profile) float64) float64 {
	xs := make([]float64, len(ups))
	for i, u := range ups {
		xs[i] = f(u)
	}
	return median(xs)
}

// fmtBytes writes a byte count in binary units.
func fmtBytes(b float64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%.0f B", b)
	}
	div, exp := float64(unit), 0
	for n := b / unit; n >= unit && exp < 4; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", b/div, "KMGTP"[exp])
}

func sign(v float64) float64 { return math.Copysign(1, v) }
