package hetero

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/history"
)

// baseClasses are the paper's base classes C_CPU and C_IO: WordCount's
// maps stress the CPU, RandomWriter's the disk (Gupta et al. §4.2).
var baseClasses = []history.Class{history.ClassCPU, history.ClassIO}

// Paper is PARC as the paper gives it (Gupta et al., §3–4): per node, a
// Gaussian model N(μ, σ) of the task durations of each base class (eq.
// 1–2: μ = Σd/N, σ² = Σd²/N − μ²), the base class's job being the job
// class of that resource class that covers the most nodes (or a named
// one, Params.BaseJobs); per job class, the complexity coefficient α of
// its tasks relative to its base class (eq. 3–4: the mean over nodes of
// μ_job/μ_base). A base job's runs differ in size here (the paper ran its
// base jobs on fixed inputs), so each base run's durations are first
// divided by that run's own α against the base models (eq. 3–4 applied to
// the base's runs, iterated).
type Paper struct {
	p      Params
	nodes  []string
	nodeIx map[string]int32
	jobs   []jobClass
	jobIx  map[string]int32
	// base job index per base class (-1: none in the history).
	base []int32
	// mu, sd and n per base class and node (n 0: no model).
	mu, sd [][]float64
	n      [][]int
	// alpha and baseOf per job class (baseOf −1: no base fits).
	alpha  []float64
	baseOf []int
	runs   int
}

// FitPaper fits the paper's models from runs (read with Detail).
func FitPaper(runs []*history.Run, p Params) (*Paper, error) {
	d := newData()
	d.add(runs, 0)
	if len(d.cells) == 0 {
		return nil, fmt.Errorf("%w: %d runs, none with a stage's tasks per host (index runs with clusterlens index)", ErrNoHistory, len(runs))
	}
	m := &Paper{p: p, nodes: d.nodes, nodeIx: d.nodeIdx, jobs: d.jobs, jobIx: d.jobIdx, runs: len(d.runs)}
	byJob := groupBy(d.cells, len(d.jobs), func(c *cell) int32 { return c.job })
	var missing []string
	for _, c := range baseClasses {
		b := m.pickBase(d, byJob, c)
		m.base = append(m.base, b)
		mu, sd, n := make([]float64, len(d.nodes)), make([]float64, len(d.nodes)), make([]int, len(d.nodes))
		if b < 0 {
			missing = append(missing, string(c))
		} else {
			m.baseModels(d, byJob[b], mu, sd, n)
		}
		m.mu, m.sd, m.n = append(m.mu, mu), append(m.sd, sd), append(m.n, n)
	}
	if len(missing) == len(baseClasses) {
		return nil, fmt.Errorf("%w: no stage of class %s to serve as a base class (PARC needs CPU- or IO-bound stages)", ErrNoHistory, strings.Join(missing, " or "))
	}
	m.complexity(d, byJob)
	return m, nil
}

// pickBase returns the base job class of resource class c: the named one,
// else the one of class c run on the most nodes (then with the most tasks).
func (m *Paper) pickBase(d *data, byJob [][]int32, c history.Class) int32 {
	best, bestNodes, bestTasks := int32(-1), 0, 0
	for j := range d.jobs {
		jc := &d.jobs[j]
		if name := m.p.BaseJobs[string(c)]; name != "" {
			if strings.Contains(jc.name, name) || strings.Contains(jc.signature, name) {
				return int32(j)
			}
			continue
		}
		if jc.class != c {
			continue
		}
		nodes := map[int32]bool{}
		tasks := 0
		for _, i := range byJob[j] {
			nodes[d.cells[i].node] = true
			tasks += int(d.cells[i].nLin)
		}
		if len(nodes) > bestNodes || len(nodes) == bestNodes && tasks > bestTasks {
			best, bestNodes, bestTasks = int32(j), len(nodes), tasks
		}
	}
	return best
}

// baseModels fits N(μ, σ) per node (eq. 1–2) from the base job's cells,
// each run-stage's durations divided by its α against the models (eq.
// 3–4), three times over.
func (m *Paper) baseModels(d *data, cells []int32, mu, sd []float64, n []int) {
	scale := map[int32]float64{}
	for it := 0; it < 3; it++ {
		s1, s2 := make([]float64, len(mu)), make([]float64, len(mu))
		clear(n)
		for _, i := range cells {
			c := &d.cells[i]
			a := scale[c.rs]
			if a == 0 {
				a = 1
			}
			s1[c.node] += c.sum / a
			s2[c.node] += c.sumSq / (a * a)
			n[c.node] += int(c.nLin)
		}
		for v := range mu {
			if n[v] > 0 {
				mu[v] = s1[v] / float64(n[v])
				sd[v] = math.Sqrt(math.Max(s2[v]/float64(n[v])-mu[v]*mu[v], 0))
			}
		}
		ratio, count := map[int32]float64{}, map[int32]float64{}
		for _, i := range cells {
			c := &d.cells[i]
			ratio[c.rs] += c.sum / float64(c.nLin) / mu[c.node]
			count[c.rs]++
		}
		for rs, r := range ratio {
			scale[rs] = r / count[rs]
		}
	}
}

// complexity sets each job class's base and α (eq. 3–4): the base of its
// resource class, or for shuffle and unknown stages the base whose
// per-node ratio μ_job/μ_base varies least over the nodes (coefficient of
// variation).
func (m *Paper) complexity(d *data, byJob [][]int32) {
	m.alpha = make([]float64, len(d.jobs))
	m.baseOf = make([]int, len(d.jobs))
	for j := range d.jobs {
		s1, cnt := map[int32]float64{}, map[int32]float64{}
		for _, i := range byJob[j] {
			c := &d.cells[i]
			s1[c.node] += c.sum
			cnt[c.node] += float64(c.nLin)
		}
		m.baseOf[j] = -1
		bestCV := math.Inf(1)
		for b, c := range baseClasses {
			if m.base[b] < 0 {
				continue
			}
			var ratios []float64
			for v, s := range s1 {
				if m.n[b][v] > 0 && m.mu[b][v] > 0 {
					ratios = append(ratios, s/cnt[v]/m.mu[b][v])
				}
			}
			if len(ratios) == 0 {
				continue
			}
			mean, sq := 0.0, 0.0
			for _, r := range ratios {
				mean += r
				sq += r * r
			}
			mean /= float64(len(ratios))
			cv := math.Sqrt(math.Max(sq/float64(len(ratios))-mean*mean, 0)) / mean
			if d.jobs[j].class == c {
				cv = math.Inf(-1) // its own resource class's base
			}
			if cv < bestCV {
				bestCV, m.baseOf[j], m.alpha[j] = cv, b, mean
			}
		}
	}
}

// Judge returns a verdict per node that ran a task in runs, by the
// paper's §4.5 as written. For each run-stage of job class J (class C_R,
// base R) and each node M_k with a base model: t_{J,M_k} is its tasks'
// average duration (§4.3); α_{J,M_i} = t_{J,M_i}/μ_{R,M_i} (eq. 3–4); α* the
// mean of the other N − 1 nodes' α (eq. 5); μ* = α* μ_{R,M_k}, σ* = α*
// σ_{R,M_k} (eq. 6–7); f_k the normal density of t_{J,M_k} under N(μ*, σ*)
// (eq. 8). The node's relative likelihood is f_k over the average of the
// other nodes' f_i (§4.5: "significantly less than the average relative
// likelihood for the durations observed for tasks of J on all other
// machines"). The paper gives no number for "significantly": a node is
// degraded when, over its stages of some base class, the geometric mean of
// its relative likelihoods is below LikelihoodRatio and its tasks ran
// longer than μ* (the paper's figure shows the hogged nodes far below the
// others, not how far); the resource is the base class whose stages show
// it (both: the node), as §4.2 combines the classes' diagnoses.
func (m *Paper) Judge(runs []*history.Run) []Verdict {
	t := newData()
	t.add(runs, 0)
	seen, runsOf := t.nodeTasks()
	type acc struct {
		logRL, logRatio, stages [2]float64
	}
	accs := make([]acc, len(t.nodes))
	type obs struct {
		node       int32
		n          int32 // model index
		mean       float64
		alpha, ldf float64
	}
	var os []obs
	for s := range t.rs {
		rs := &t.rs[s]
		b := m.jobBase(t.jobs[rs.job])
		if b < 0 {
			continue
		}
		os = os[:0]
		var total float64
		for i := rs.first; i < rs.end; i++ {
			c := &t.cells[i]
			n, ok := m.nodeIx[t.nodes[c.node]]
			if !ok || m.n[b][n] < m.p.MinHistoryTasks || m.mu[b][n] <= 0 {
				continue
			}
			mean := c.sum / float64(c.nLin)
			o := obs{node: c.node, n: n, mean: mean, alpha: mean / m.mu[b][n]}
			total += o.alpha
			os = append(os, o)
		}
		if len(os) < 2 {
			continue
		}
		for i := range os {
			o := &os[i]
			alpha := (total - o.alpha) / float64(len(os)-1)
			mu, sd := alpha*m.mu[b][o.n], math.Max(alpha*m.sd[b][o.n], 1)
			o.ldf = -math.Log(sd*math.Sqrt(2*math.Pi)) - (o.mean-mu)*(o.mean-mu)/(2*sd*sd)
			o.alpha = o.mean / mu // now the slowdown against μ*
		}
		for i, o := range os {
			// log of the average of the other nodes' densities.
			top := math.Inf(-1)
			for j, p := range os {
				if j != i {
					top = math.Max(top, p.ldf)
				}
			}
			var sum float64
			for j, p := range os {
				if j != i {
					sum += math.Exp(p.ldf - top)
				}
			}
			others := top + math.Log(sum/float64(len(os)-1))
			a := &accs[o.node]
			a.logRL[b] += o.ldf - others
			a.logRatio[b] += math.Log(math.Max(o.alpha, 1e-9))
			a.stages[b]++
		}
	}
	out := make([]Verdict, 0, len(t.nodes))
	for i, host := range t.nodes {
		vd := Verdict{Host: host, Tasks: seen[i], Runs: len(runsOf[i])}
		if n, ok := m.nodeIx[host]; ok {
			vd.HistoryTasks = m.n[0][n] + m.n[1][n]
		}
		a := &accs[i]
		stages := a.stages[0] + a.stages[1]
		switch {
		case vd.HistoryTasks == 0:
			vd.Status, vd.Why = StatusUnknown, fmt.Sprintf("no history: the node ran no base-class task in the %d runs the model was fitted on", m.runs)
		case stages == 0:
			vd.Status, vd.Why = StatusUnknown, "no stage with a base model shared with a peer that has one"
		default:
			lrl := (a.logRL[0] + a.logRL[1]) / stages
			slow := math.Exp((a.logRatio[0] + a.logRatio[1]) / stages)
			vd.Slowdown = &Factor{Value: round3(slow), Low: round3(slow), High: round3(slow)}
			vd.Z = round3(lrl)
			vd.Status = StatusNormal
			vd.Why = fmt.Sprintf("relative likelihood %.3g of its average task durations against the other nodes' (geometric mean over %.0f stages); ran %.2fx its expected μ* (no interval: the paper gives none)",
				math.Exp(lrl), stages, slow)
			var res []string
			for b := range baseClasses {
				if a.stages[b] > 0 && a.logRL[b]/a.stages[b] < math.Log(m.p.LikelihoodRatio) && a.logRatio[b] > 0 {
					res = append(res, [2]string{ResourceCPU, ResourceIO}[b])
				}
			}
			if len(res) > 0 {
				vd.Status, vd.Resource = StatusDegraded, ResourceNode
				if len(res) == 1 {
					vd.Resource = res[0]
				}
			}
		}
		out = append(out, vd)
	}
	slices.SortFunc(out, func(a, b Verdict) int { return cmp.Compare(a.Host, b.Host) })
	return out
}

// jobBase is a judged job class's base: the history's, else its resource
// class's (−1: none).
func (m *Paper) jobBase(jc jobClass) int {
	if j, ok := m.jobIx[jc.key]; ok {
		return m.baseOf[j]
	}
	for b, c := range baseClasses {
		if c == jc.class && m.base[b] >= 0 {
			return b
		}
	}
	return -1
}
