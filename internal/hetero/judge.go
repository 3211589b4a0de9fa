package hetero

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/history"
)

// intervalZ is the normal quantile of the intervals reported (95%
// two-sided).
const intervalZ = 1.96

// nodeAcc gathers one node's residuals over the runs judged.
type nodeAcc struct {
	sw, se float64   // Σ 1/var, Σ ẽ/var
	a, b   []float64 // Σ v vᵀ/var, Σ v ẽ/var (v: the job's loadings)
	sa, sb []float64 // the same with v the stage's CPU share and the rest
	tasks  int
	runs   map[int32]bool
}

// Judge compares each node's tasks in runs (read with Detail) with what
// its model expects and returns a verdict per node that ran a task there,
// by host name. For a cell (run-stage s of job class j on node n) the
// expected mean log duration is â_s + u_n · v_j, where â_s is the offset
// estimated from the other nodes' cells of the same run-stage only (the
// leave-one-out α* of PARC eq. 5, in log space) and u_n · v_j the node's
// own expected slowness for the job (eq. 6); its variance adds the
// offset's, the node factor's (Cov u_n) and the cell's (eq. 7). The
// residuals, each clipped at Clip standard deviations, are combined by
// inverse variance into the node's slowdown and its z-score, and by least
// squares on the job loadings into its slowdown per latent resource. A
// node is degraded when either is at least MinSlowdown with a z-score of
// at least Z (a resource's only while the node is slower overall, GateZ);
// the per-resource slowdowns tell which resource.
func (m *Joint) Judge(runs []*history.Run) []Verdict {
	k := m.p.Rank
	t := newData()
	t.add(runs, m.p.Trim)
	nodeMap := make([]int32, len(t.nodes))
	for i, h := range t.nodes {
		nodeMap[i] = -1
		if j, ok := m.nodeIx[h]; ok && m.tasks[j] >= m.p.MinHistoryTasks {
			nodeMap[i] = j
		}
	}
	loads := make([][]float64, len(t.jobs))
	tau2 := make([]float64, len(t.jobs))
	for i, jc := range t.jobs {
		if j, ok := m.jobIx[jc.key]; ok {
			loads[i], tau2[i] = m.v[int(j)*k:int(j)*k+k], m.tau2[j]
			continue
		}
		// A job class the history has not seen: its resource class's
		// loadings and the median spread.
		loads[i], tau2[i] = priorLoading(jc.class, k), m.medianTau2()
	}
	acc := make([]nodeAcc, len(t.nodes))
	seen := make([]int, len(t.nodes))
	runsOf := make([]map[int32]bool, len(t.nodes))
	for i := range acc {
		acc[i] = nodeAcc{a: make([]float64, k*k), b: make([]float64, k), sa: make([]float64, k*k), sb: make([]float64, k)}
		runsOf[i] = map[int32]bool{}
	}
	r := make([]float64, 0, 64)
	w := make([]float64, 0, 64)
	dirs := m.resourceLoadings()
	for s := range t.rs {
		rs := &t.rs[s]
		v := loads[rs.job]
		r, w = r[:0], w[:0]
		var sumWR, sumW float64
		for i := rs.first; i < rs.end; i++ {
			c := &t.cells[i]
			seen[c.node] += int(c.nLin)
			runsOf[c.node][rs.run] = true
			n := nodeMap[c.node]
			if n < 0 {
				r, w = append(r, 0), append(w, 0)
				continue
			}
			ri := c.y - dot(m.u[int(n)*k:int(n)*k+k], v)
			wi := 1 / (tau2[rs.job]/float64(c.n) + m.omega2)
			r, w = append(r, ri), append(w, wi)
			sumWR += wi * ri
			sumW += wi
		}
		for i := rs.first; i < rs.end; i++ {
			c := &t.cells[i]
			n, x := nodeMap[c.node], i-rs.first
			others := sumW - w[x]
			if n < 0 || others <= 1e-12 {
				continue
			}
			aHat := (sumWR - w[x]*r[x]) / others
			vr := 1/w[x] + 1/others + quad(v, m.cov[int(n)*k*k:int(n)*k*k+k*k], v)
			sd := math.Sqrt(vr)
			e := math.Max(-m.p.Clip, math.Min(m.p.Clip, (r[x]-aHat)/sd)) * sd
			ac := &acc[c.node]
			ac.sw += 1 / vr
			ac.se += e / vr
			ac.tasks += int(c.nLin)
			addOuter(ac.a, ac.b, v, e, vr)
			addOuter(ac.sa, ac.sb, m.mix(v, rs.cpu, n, dirs), math.Expm1(e), vr)
		}
	}
	classOf := m.classIndex()
	out := make([]Verdict, 0, len(t.nodes))
	for i, host := range t.nodes {
		vd := Verdict{Host: host, Tasks: seen[i], Runs: len(runsOf[i])}
		n := nodeMap[i]
		if j, ok := m.nodeIx[host]; ok {
			vd.HistoryTasks = m.tasks[j]
		}
		if cl, ok := classOf[host]; ok {
			vd.Class = cl.Name
		}
		switch {
		case vd.HistoryTasks == 0:
			vd.Status, vd.Why = StatusUnknown, fmt.Sprintf("no history: the node ran no task in the %d runs the model was fitted on", m.runs)
		case n < 0:
			vd.Status, vd.Why = StatusUnknown, fmt.Sprintf("too little history: %d tasks, %d needed", vd.HistoryTasks, m.p.MinHistoryTasks)
		case acc[i].sw == 0:
			vd.Status, vd.Why = StatusUnknown, "no peer with history ran the same stages, so the runs' own size cannot be told from the node's speed"
		default:
			m.decide(&vd, &acc[i], classOf)
		}
		out = append(out, vd)
	}
	slices.SortFunc(out, func(a, b Verdict) int { return cmp.Compare(a.Host, b.Host) })
	return out
}

// decide turns a node's residuals into its verdict.
func (m *Joint) decide(vd *Verdict, ac *nodeAcc, classOf map[string]*Class) {
	delta := ac.se / ac.sw
	sd := 1 / math.Sqrt(ac.sw)
	vd.Z = delta / sd
	vd.Slowdown = factor(delta, sd)
	vd.ByResource = m.perResource(ac.a, ac.b, factor)
	named := m.perResource(ac.sa, ac.sb, linearFactor)
	if m.significant(vd.Z, vd.Slowdown) || vd.Z >= m.p.GateZ && slices.ContainsFunc(vd.ByResource, func(r ResourceSlowdown) bool { return m.significant(r.Z, r.Slowdown) }) {
		vd.Status = StatusDegraded
		vd.Resource = m.resource(named)
		vd.Why = fmt.Sprintf("ran %.2fx (%.2f–%.2f) what its own model expects over %d tasks in %d runs (z %.1f); slow in %s",
			vd.Slowdown.Value, vd.Slowdown.Low, vd.Slowdown.High, vd.Tasks, vd.Runs, vd.Z, vd.Resource)
		return
	}
	vd.Status = StatusNormal
	vd.Why = fmt.Sprintf("ran %.2fx (%.2f–%.2f) what its own model expects over %d tasks in %d runs",
		vd.Slowdown.Value, vd.Slowdown.Low, vd.Slowdown.High, vd.Tasks, vd.Runs)
	if cl := classOf[vd.Host]; cl != nil && cl.SlowByDesign {
		vd.Status = StatusSlowClass
		vd.Why += "; its class " + cl.Name + " is slow by design"
	}
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

// significant reports whether a slowdown is at least MinSlowdown with a
// z-score of at least Z.
func (m *Joint) significant(z float64, f Factor) bool {
	return z >= m.p.Z && f.Value >= m.p.MinSlowdown
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
