package hetero

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// intervalZ is the normal quantile of the intervals reported (95%
// two-sided).
const intervalZ = 1.96

// Bases of an expectation: what a cell's expected duration came from.
const (
	// BasisHistory: the stage's own history runs (the recurring job's
	// level on this node), no peer of the run agreeing with its history.
	BasisHistory = "history"
	// BasisHistoryPeers: the stage's history and the run's other nodes,
	// each weighed by its uncertainty.
	BasisHistoryPeers = "history+peers"
	// BasisPeers: the run's other nodes alone (a stage the history has
	// not seen often enough, or Params.Expect "peers": PARC's α*, eq. 5).
	BasisPeers = "peers"
)

// judgedCell is one cell of the runs judged with its expectation.
type judgedCell struct {
	node  int32 // index into the judged data's nodes
	model int32 // the node's index in the model
	rs    int32 // the judged data's run-stage
	job   int32 // the judged data's job class
	class history.Class
	tasks int
	load  []float64 // the job class's loadings
	mix   []float64 // the stage's resource mix on this node (naming)
	// e and ve are the log residual against the expectation (history and
	// peers combined) and its variance.
	e, ve float64
	// eh and vh are against the stage's own history alone (hist).
	eh, vh float64
	// q is the part of ve and vh that is the node factor's uncertainty
	// along the job class's loadings (load · Cov(u_n) · load); hsd and
	// hsdH are the standard deviations of the history mean's error as it
	// enters e and eh. The node's cells share the first, a job class's
	// cells the second: they do not shrink as cells add up
	// (sharedVariance).
	q, hsd, hsdH float64
	hist         bool
	basis        string
	// y is the cell's mean log duration.
	y float64
}

// judgeCells sets, for each cell of t whose node has a model, what the
// node should have taken and how far it was from that. For a cell of
// run-stage s (job class j) on node n, r = y − u_n · v_j is what the node's
// own factors leave (PARC eq. 6 in log space); the run-stage's offset a_s
// (eq. 5's α*) has two estimates, each with its variance:
//
//   - the history's: the job class's offset over its history runs,
//     scaled on the stage's bytes per task (offsetPrior), when the class
//     has at least MinHistoryRuns runs and Expect is not "peers";
//   - the run's other nodes': their inverse-variance weighted r, leaving
//     out the peers that are themselves slower than their history by
//     SuspectZ or more (a slowed peer is no yardstick).
//
// The expectation combines both by inverse variance; e = r − â_s, and eh
// = r − the history's alone. When both workers of a two-node run are slowed
// each is judged against its history, so the slowdown cannot cancel.
func (m *Joint) judgeCells(t *data, history bool) []judgedCell {
	k := m.p.Rank
	nodeMap := make([]int32, len(t.nodes))
	for i, h := range t.nodes {
		nodeMap[i] = -1
		if j, ok := m.nodeIx[h]; ok && m.tasks[j] >= m.p.MinHistoryTasks {
			nodeMap[i] = j
		}
	}
	loads := make([][]float64, len(t.jobs))
	tau2 := make([]float64, len(t.jobs))
	priors := make([]*offsetPrior, len(t.jobs))
	for i, jc := range t.jobs {
		if j, ok := m.job(jc.key); ok {
			loads[i], tau2[i] = m.v[int(j)*k:int(j)*k+k], m.tau2[j]
			if p := &m.prior[j]; history && m.p.Expect != ExpectPeers && p.runs >= max(1, m.p.MinHistoryRuns) {
				priors[i] = p
			}
			continue
		}
		// A job class the history has not seen: its resource class's
		// loadings and the median spread.
		loads[i], tau2[i] = priorLoading(jc.class, k), m.medianTau2()
	}
	dirs := m.resourceLoadings()
	var out []judgedCell
	type part struct {
		i       int32
		r, w, q float64
		suspect bool
	}
	var parts []part
	for s := range t.rs {
		rs := &t.rs[s]
		v := loads[rs.job]
		prior := priors[rs.job]
		var p, pv float64
		if prior != nil {
			p, pv = prior.predict(rs.x)
		}
		parts = parts[:0]
		var sw, swr float64
		for i := rs.first; i < rs.end; i++ {
			c := &t.cells[i]
			n := nodeMap[c.node]
			if n < 0 {
				continue
			}
			x := part{i: i, r: c.y - dot(m.u[int(n)*k:int(n)*k+k], v), w: 1 / (tau2[rs.job]/float64(c.n) + m.omega2),
				q: quad(v, m.cov[int(n)*k*k:int(n)*k*k+k*k], v)}
			if prior != nil {
				x.suspect = m.tail.cellZ(x.r-p, 1/x.w+pv+x.q, int(c.nLin)) >= m.p.SuspectZ
			}
			if !x.suspect {
				sw += x.w
				swr += x.w * x.r
			}
			parts = append(parts, x)
		}
		for _, x := range parts {
			c := &t.cells[x.i]
			ow, owr := sw, swr
			if !x.suspect {
				ow, owr = ow-x.w, owr-x.w*x.r
			}
			if ow < 1e-12 {
				ow, owr = 0, 0
			}
			prec, num := ow, owr
			jc := judgedCell{node: c.node, model: nodeMap[c.node], rs: int32(s), job: rs.job, class: t.jobs[rs.job].class, tasks: int(c.nLin), load: v, y: c.y}
			switch {
			case prior != nil && ow > 0:
				jc.basis = BasisHistoryPeers
			case prior != nil:
				jc.basis = BasisHistory
			case ow > 0:
				jc.basis = BasisPeers
			default:
				continue
			}
			jc.q = x.q
			if prior != nil {
				prec += 1 / pv
				num += p / pv
				mean := math.Sqrt(prior.meanVariance(rs.x))
				jc.hist, jc.eh, jc.vh = true, x.r-p, 1/x.w+pv+x.q
				jc.hsdH = mean
				jc.hsd = mean / (pv * prec)
			}
			jc.e = x.r - num/prec
			jc.ve = 1/x.w + 1/prec + x.q
			jc.mix = m.mix(v, rs.cpu, jc.model, dirs)
			out = append(out, jc)
		}
	}
	return out
}

// nodeAcc gathers one node's judged cells.
type nodeAcc struct {
	cells []*judgedCell
	bases map[string]int
	// names are the job classes' names (stage names) by judged job index.
	names map[int32]string
}

func (ac *nodeAcc) add(c *judgedCell) {
	if ac.bases == nil {
		ac.bases = map[string]int{}
	}
	ac.cells = append(ac.cells, c)
	ac.bases[c.basis] += c.tasks
}

// basis is the expectation the node's tasks were mostly judged against.
func (ac *nodeAcc) basis() string {
	best, n := "", -1
	for _, b := range []string{BasisHistoryPeers, BasisHistory, BasisPeers} {
		if ac.bases[b] > n {
			best, n = b, ac.bases[b]
		}
	}
	return best
}

// Judge compares each node's tasks in runs (read with Detail) with what
// its model expects and returns a verdict per node that ran a task there,
// by host name: judgeCells's residuals, combined by inverse variance into
// the node's slowdown (unclipped) and, each cell's residual scored under
// the history's tail model, into its z-score (tailModel.estimate: a node
// whose cells agree is never capped, one odd task does not decide), and
// by least squares on the job loadings into its slowdown per latent
// resource (decide). Verdicts over several runs pool them; JudgeRuns
// judges each run on its own.
func (m *Joint) Judge(runs []*history.Run) []Verdict {
	t := newData()
	t.add(runs, m.p.Trim)
	cells := m.judgeCells(t, true)
	accs := make([]*nodeAcc, len(t.nodes))
	for i := range cells {
		c := &cells[i]
		if accs[c.node] == nil {
			accs[c.node] = &nodeAcc{names: t.jobNames()}
		}
		accs[c.node].add(c)
	}
	seen, runsOf := t.nodeTasks()
	out := make([]Verdict, 0, len(t.nodes))
	for i, host := range t.nodes {
		out = append(out, m.verdict(host, accs[i], seen[i], len(runsOf[i])))
	}
	slices.SortFunc(out, func(a, b Verdict) int { return cmp.Compare(a.Host, b.Host) })
	return out
}

// nodeTasks counts each node's tasks and the runs it ran in.
func (t *data) nodeTasks() ([]int, []map[int32]bool) {
	seen := make([]int, len(t.nodes))
	runsOf := make([]map[int32]bool, len(t.nodes))
	for i := range runsOf {
		runsOf[i] = map[int32]bool{}
	}
	for i := range t.cells {
		c := &t.cells[i]
		seen[c.node] += int(c.nLin)
		runsOf[c.node][t.rs[c.rs].run] = true
	}
	return seen, runsOf
}

// verdict judges one node from its accumulated residuals (nil: none).
func (m *Joint) verdict(host string, ac *nodeAcc, tasks, runs int) Verdict {
	vd := Verdict{Host: host, Tasks: tasks, Runs: runs}
	j, ok := m.nodeIx[host]
	if ok {
		vd.HistoryTasks = m.tasks[j]
	}
	if cl, ok := m.classIndex()[host]; ok {
		vd.Class = cl.Name
	}
	switch {
	case vd.HistoryTasks == 0:
		vd.Status, vd.Why = StatusUnknown, fmt.Sprintf("no history: the node ran no task in the %d runs the model was fitted on", m.runs)
	case vd.HistoryTasks < m.p.MinHistoryTasks:
		vd.Status, vd.Why = StatusUnknown, fmt.Sprintf("too little history: %d tasks, %d needed", vd.HistoryTasks, m.p.MinHistoryTasks)
	case ac == nil:
		vd.Status, vd.Why = StatusUnknown, "none of its stages has a history of its own (at least "+fmt.Sprint(max(1, m.p.MinHistoryRuns))+" runs) or a peer with history in the same run, so the runs' own size cannot be told from the node's speed"
	default:
		m.decide(&vd, ac)
	}
	return vd
}

// decide turns a node's cells into its verdict. Its tests, each
// calibrated (tailModel.combine) and each with its own slowdown: the
// slowdown over all its cells (shift), and, when its stages are of more
// than one resource class, the slowdown of each latent resource alone
// (resourceShifts: a disk hog slows the stages that read and write, a CPU
// hog those that compute, and the average over all of a node's stages
// dilutes either). The node is degraded when one of them reaches Z's
// one-sided level divided among the tests (Bonferroni) with a slowdown of
// at least MinSlowdown. A degraded node's evidence lists the job classes
// (stages) slowed significantly, at Z's level divided among its job
// classes (a fault can slow only the stages that use the slowed
// resource); its resource is named from its residuals' least squares on
// the stages' resource mix (Joint.mix), each residual held to namingClip
// standard deviations. (Deciding on a stage alone, or on a resource alone
// at a Gaussian z while the node is slower overall (z ≥ 2), as the model
// did before the tail's calibration, indicted innocents on the
// simulator's tuning seeds.)
func (m *Joint) decide(vd *Verdict, ac *nodeAcc) {
	k := m.p.Rank
	var hist []*judgedCell
	byJob := map[int32][]*judgedCell{}
	for _, c := range ac.cells {
		if c.hist {
			hist = append(hist, c)
		}
		byJob[c.job] = append(byJob[c.job], c)
	}
	sh := m.shift(ac.cells, false)
	vd.Z = round3(sh.z)
	f := sh.factor()
	vd.Slowdown = &f
	vd.Basis = ac.basis()
	if len(hist) > 0 {
		h := m.shift(hist, true)
		hf := h.factor()
		vd.VsHistory, vd.VsHistoryZ = &hf, round3(h.z)
	}
	sa, sb := make([]float64, k*k), make([]float64, k)
	for _, c := range ac.cells {
		// Naming the resource is a regression on few cells: one odd cell
		// is held to namingClip standard deviations.
		sd := math.Sqrt(c.ve)
		e := math.Max(-namingClip*sd, math.Min(namingClip*sd, c.e))
		addOuter(sa, sb, c.mix, math.Expm1(e), c.ve)
	}
	named := m.perResource(sa, sb, linearFactor)
	rs := m.resourceShifts(ac.cells)
	for q, r := range rs {
		vd.ByResource = append(vd.ByResource, ResourceSlowdown{Resource: resourceName(q), Slowdown: r.factor(), Z: round3(r.z)})
	}
	what := fmt.Sprintf("ran %.2fx (%.2f–%.2f) what it should take by %s over %d tasks in %d runs (z %.1f)",
		f.Value, f.Low, f.High, basisText(vd.Basis), vd.Tasks, vd.Runs, vd.Z)
	if resourceClasses(ac.cells) < 2 {
		// Stages of one resource class do not tell the resources apart.
		rs = nil
	}
	zTest := stats.NormalZ(stats.StudentTSF(m.p.Z, math.Inf(1)) / float64(1+len(rs)))
	sig := vd.Z >= zTest && f.Value >= m.p.MinSlowdown
	for q, r := range rs {
		if rf := r.factor(); r.z >= zTest && rf.Value >= m.p.MinSlowdown {
			if !sig {
				what += fmt.Sprintf("; its %s alone %.2fx (%.2f–%.2f, z %.1f)", resourceName(q), rf.Value, rf.Low, rf.High, r.z)
			}
			sig = true
		}
	}
	if !sig {
		vd.Status, vd.Why = StatusNormal, what
		if cl := m.classIndex()[vd.Host]; cl != nil && cl.SlowByDesign {
			vd.Status = StatusSlowClass
			vd.Why += "; its class " + cl.Name + " is slow by design"
		}
		return
	}
	vd.Status = StatusDegraded
	vd.Resource = m.resource(named)
	if c := oneClass(ac.cells); c != "" {
		// Every stage judged is of one resource class: that resource, as
		// PARC names it from the class of the jobs that slowed (Gupta et
		// al. §4.2); the stages' mixes cannot tell the resources apart.
		vd.Resource = c
	}
	zStage := stats.NormalZ(stats.StudentTSF(m.p.Z, math.Inf(1)) / float64(len(byJob)))
	for j, cs := range byJob {
		tasks := 0
		for _, c := range cs {
			tasks += c.tasks
		}
		js := m.shift(cs, false)
		if jf := js.factor(); len(byJob) > 1 && js.z >= zStage && jf.Value >= m.p.MinSlowdown {
			vd.Stages = append(vd.Stages, StageSlowdown{Stage: ac.names[j], Slowdown: jf, Z: round3(js.z), Tasks: tasks})
		}
	}
	slices.SortFunc(vd.Stages, func(a, b StageSlowdown) int { return cmp.Compare(b.Z, a.Z) })
	for i, st := range vd.Stages {
		if i == 3 {
			what += fmt.Sprintf("; %d more stages slowed", len(vd.Stages)-3)
			break
		}
		what += fmt.Sprintf("; stage %s %.2fx (%.2f–%.2f, z %.1f)", st.Stage, st.Slowdown.Value, st.Slowdown.Low, st.Slowdown.High, st.Z)
	}
	vd.Why = what + "; slow in " + vd.Resource
}

// shift is what cells say of their node's slowdown (tailModel.estimate)
// against the expectation (hist: against the stages' own history alone).
// Their errors are independent but for two parts: the node factor's,
// which enters a cell of loadings v as v · δu_n, so that the cells' weighted
// mean carries v̄ · δu_n with v̄ their weighted mean loading (variance
// v̄ᵀ Cov(u_n) v̄: the factors of the resources are estimated together, and
// their errors, of opposite signs where the loadings are alike, partly
// cancel over cells of different resources), and each job class's history
// mean's, shared by that class's cells alone. Before, every cell's own
// load · Cov · load and every class's history mean were counted as one
// error common to all the node's cells, which made the interval of a
// node's slowdown over a window 1.3x too wide: on the parc scenario's
// tuning seeds 500–599 the innocent nodes' window z-scores had a standard
// deviation of 0.78 (1.01 as counted now).
func (m *Joint) shift(cells []*judgedCell, hist bool) shift {
	k := m.p.Rank
	e, v, indep := make([]float64, len(cells)), make([]float64, len(cells)), make([]float64, len(cells))
	tasks := make([]int, len(cells))
	var sw float64
	for i, c := range cells {
		hsd := c.hsd
		e[i], v[i] = c.e, c.ve
		if hist {
			hsd = c.hsdH
			e[i], v[i] = c.eh, c.vh
		}
		tasks[i] = c.tasks
		indep[i] = math.Max(v[i]-c.q-hsd*hsd, 0)
		sw += 1 / v[i]
	}
	if len(cells) == 0 || sw == 0 {
		return shift{}
	}
	vbar := make([]float64, k)
	byJob := map[int32]float64{}
	for i, c := range cells {
		w := 1 / v[i] / sw
		for q := range vbar {
			vbar[q] += w * c.load[q]
		}
		if hist {
			byJob[c.job] += w * c.hsdH
		} else {
			byJob[c.job] += w * c.hsd
		}
	}
	// The cells of one call are one node's.
	n := int(cells[0].model)
	shared := quad(vbar, m.cov[n*k*k:n*k*k+k*k], vbar)
	for _, x := range byJob {
		shared += x * x
	}
	return m.tail.estimate(e, v, tasks, indep, shared)
}

// resourceShifts is what cells say of their node's slowdown on each
// latent resource alone: the generalized least squares of their log
// residuals on the job classes' loadings (a resource slowed f times slows
// a cell of loadings v by f^v), with the ridge NodePrior, each coefficient
// a linear combination of the residuals scored as shift's
// (tailModel.combine). A fault slows a resource, never speeds one: a
// resource whose coefficient comes out negative is left out of the
// regression of the others (non-negative least squares), so that a
// contrast — one resource faster, the other slower than expected, as a
// node's stages misfit by their loadings give — is not read as one
// resource slowed; its own coefficient is the unconstrained one.
func (m *Joint) resourceShifts(cells []*judgedCell) []shift {
	out := m.resourceFit(cells, nil)
	if out == nil {
		return nil
	}
	neg := make([]bool, len(out))
	refit := false
	for q, r := range out {
		if r.delta < 0 {
			neg[q], refit = true, true
		}
	}
	if !refit {
		return out
	}
	fit := m.resourceFit(cells, neg)
	for q := range out {
		if !neg[q] && fit != nil {
			out[q] = fit[q]
		}
	}
	return out
}

// resourceFit is the regression of resourceShifts with the resources drop
// marks left out (nil: none). The node factor's error δu enters a cell
// as v · δu, so that coefficient q carries Σ w_qi v_i · δu for its weights
// w_q; a job class's history mean error enters its cells alone.
func (m *Joint) resourceFit(cells []*judgedCell, drop []bool) []shift {
	k := m.p.Rank
	if len(cells) == 0 {
		return nil
	}
	load := func(c *judgedCell) []float64 {
		if drop == nil {
			return c.load
		}
		l := slices.Clone(c.load)
		for q := range l {
			if drop[q] {
				l[q] = 0
			}
		}
		return l
	}
	a := make([]float64, k*k)
	for q := 0; q < k; q++ {
		a[q*k+q] = m.p.NodePrior
	}
	e, v, indep := make([]float64, len(cells)), make([]float64, len(cells)), make([]float64, len(cells))
	tasks := make([]int, len(cells))
	for i, c := range cells {
		e[i], v[i], tasks[i] = c.e, c.ve, c.tasks
		indep[i] = math.Max(c.ve-c.q-c.hsd*c.hsd, 0)
		l := load(c)
		for p := 0; p < k; p++ {
			for q := 0; q < k; q++ {
				a[p*k+q] += l[p] * l[q] / c.ve
			}
		}
	}
	ainv := inverseSPD(a, k)
	if ainv == nil {
		return nil
	}
	n := int(cells[0].model)
	cov := m.cov[n*k*k : n*k*k+k*k]
	out := make([]shift, k)
	w := make([]float64, len(cells))
	g := make([]float64, k)
	for q := 0; q < k; q++ {
		byJob := map[int32]float64{}
		clear(g)
		for i, c := range cells {
			w[i] = dot(ainv[q*k:q*k+k], load(c)) / c.ve
			byJob[c.job] += w[i] * c.hsd
			for p := 0; p < k; p++ {
				g[p] += w[i] * c.load[p]
			}
		}
		shared := quad(g, cov, g)
		for _, x := range byJob {
			shared += x * x
		}
		out[q] = m.tail.combine(e, v, tasks, w, indep, shared)
	}
	return out
}

// resourceClasses counts the resource classes of the cells' job classes.
func resourceClasses(cells []*judgedCell) int {
	seen := map[history.Class]bool{}
	for _, c := range cells {
		seen[c.class] = true
	}
	return len(seen)
}

// oneClass is the resource (ResourceCPU, ResourceIO) every cell's job
// class is of, or "" when they are of several or of another class.
func oneClass(cells []*judgedCell) string {
	var c history.Class
	for i, x := range cells {
		if i > 0 && x.class != c {
			return ""
		}
		c = x.class
	}
	switch c {
	case history.ClassCPU:
		return ResourceCPU
	case history.ClassIO:
		return ResourceIO
	}
	return ""
}

// namingClip bounds a cell's standardized residual in the regressions
// that name the resource (Huber's guard; not in the slowdown or its z).
const namingClip = 3

// basisText says what an expectation came from.
func basisText(b string) string {
	switch b {
	case BasisHistory:
		return "its own model and the stages' history"
	case BasisHistoryPeers:
		return "its own model, the stages' history and the run's other nodes"
	}
	return "its own model and the run's other nodes"
}

// perResource solves the ridge least squares of a node's residuals on
// the resources (a, b: Σ x xᵀ/var and Σ x ẽ/var) for its slowdown per
// resource, each coefficient turned into a factor by f.
func (m *Joint) perResource(a, b []float64, f func(x, sd float64) Factor) []ResourceSlowdown {
	k := m.p.Rank
	a = slices.Clone(a)
	for q := 0; q < k; q++ {
		a[q*k+q] += m.p.NodePrior
	}
	cov := inverseSPD(a, k)
	if cov == nil {
		return nil
	}
	var out []ResourceSlowdown
	for q := 0; q < k; q++ {
		dq := 0.0
		for p := 0; p < k; p++ {
			dq += cov[q*k+p] * b[p]
		}
		sq := math.Sqrt(cov[q*k+q])
		out = append(out, ResourceSlowdown{Resource: resourceName(q), Slowdown: f(dq, sq), Z: dq / sq})
	}
	return out
}

// resource names what a degraded node is slow in: the one latent resource
// whose slowdown is significant (ResourceZ) or, of two, the larger unless
// the smaller is at least NodeShare of it (in log); the node when neither
// is or both are alike.
func (m *Joint) resource(rs []ResourceSlowdown) string {
	var sig []ResourceSlowdown
	for _, r := range rs {
		if r.Z >= m.p.ResourceZ && r.Slowdown.Value > 1 {
			sig = append(sig, r)
		}
	}
	switch len(sig) {
	case 0:
		return ResourceNode
	case 1:
		return sig[0].Resource
	}
	slices.SortFunc(sig, func(a, b ResourceSlowdown) int { return cmp.Compare(b.Slowdown.Value, a.Slowdown.Value) })
	if math.Log(sig[1].Slowdown.Value) >= m.p.NodeShare*math.Log(sig[0].Slowdown.Value) {
		return ResourceNode
	}
	return sig[0].Resource
}

// factor is exp(x) with its interval at intervalZ × sd.
func factor(x, sd float64) Factor {
	return Factor{Value: round3(math.Exp(x)), Low: round3(math.Exp(x - intervalZ*sd)), High: round3(math.Exp(x + intervalZ*sd))}
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// medianTau2 is the median spread over the job classes.
func (m *Joint) medianTau2() float64 {
	if len(m.tau2) == 0 {
		return 0.16
	}
	t := slices.Clone(m.tau2)
	slices.Sort(t)
	return t[len(t)/2]
}

// mix is what a slowdown of each resource does to a cell, for naming the
// resource: with two resources, the share of node n's time in the stage
// spent on the CPU and the rest, so that the relative slowdown of the cell
// is cpu × (f_cpu − 1) + rest × (f_io − 1) for resource slowdowns f (a
// CPU twice as slow slows a stage that computes 80% of its time by 80%,
// whatever the job's loadings learned from healthy runs say). The stage's
// CPU share is the cluster's; on a node whose CPU is slower than its disk
// (relative to the average node) more of the stage's time is CPU time:
// each share is weighted by the node's factor on that resource (dirs, the
// resources' directions in the latent space). Otherwise the job class's
// loadings.
func (m *Joint) mix(v []float64, cpu float64, n int32, dirs [][]float64) []float64 {
	if len(v) != 2 || len(dirs) != 2 {
		return v
	}
	k := m.p.Rank
	u := m.u[int(n)*k : int(n)*k+k]
	c := cpu * math.Exp(dot(u, dirs[0]))
	o := (1 - cpu) * math.Exp(dot(u, dirs[1]))
	if c+o <= 0 {
		return []float64{cpu, 1 - cpu}
	}
	return []float64{c / (c + o), o / (c + o)}
}

// linearFactor is 1 + x with its interval at intervalZ × sd.
func linearFactor(x, sd float64) Factor {
	return Factor{Value: round3(1 + x), Low: round3(1 + x - intervalZ*sd), High: round3(1 + x + intervalZ*sd)}
}

// addOuter adds x xᵀ/vr to a and x e/vr to b.
func addOuter(a, b, x []float64, e, vr float64) {
	k := len(x)
	for p := 0; p < k; p++ {
		b[p] += x[p] * e / vr
		for q := 0; q < k; q++ {
			a[p*k+q] += x[p] * x[q] / vr
		}
	}
}

// jobNames maps each job class to its stage name as a report names it.
func (t *data) jobNames() map[int32]string {
	out := make(map[int32]string, len(t.jobs))
	for i, jc := range t.jobs {
		name, _, _ := strings.Cut(jc.signature, "|")
		out[int32(i)] = name
	}
	return out
}
