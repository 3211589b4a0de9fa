package hetero

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/history"
)

// ErrNoHistory is wrapped by Fit's error when the runs hold no per-host
// task durations to learn from.
var ErrNoHistory = errors.New("no per-host task durations in the run history")

// Joint is the joint low-rank model of the run history (beyond PARC, its
// future work): for a run-stage s of job class j, the mean log duration of
// the tasks node n ran is
//
//	y = a_s + u_n · v_j + e,   Var(e) = τ_j² / tasks + ω²,
//
// with a_s the run-stage's offset (its data and code: PARC's complexity
// coefficient α in log space, eq. 3–4), u_n the node's log slowness on
// Rank latent resources, v_j the job class's loadings on them (its
// resource mix), τ_j² the spread of one task's log duration within a cell
// and ω² what varies between cells beyond it. Node speeds and job mixes
// are learned together from ordinary runs by alternating least squares,
// each cell weighted by the inverse of its variance, so no base jobs are
// needed and a node with few tasks stays near the average node with a wide
// interval (Cov of u_n).
type Joint struct {
	p      Params
	nodes  []string
	nodeIx map[string]int32
	jobs   []jobClass
	jobIx  map[string]int32
	// looseIx finds a job class by its stage's name without the
	// signature's data flags (−1: more than one).
	looseIx map[string]int32
	u       []float64 // nodes × Rank
	cov     []float64 // nodes × Rank²
	tasks   []int     // history tasks per node
	v, v0   []float64 // jobs × Rank
	tau2    []float64 // per job
	omega2  float64
	// prior is, per job class, what its history runs' offsets say of a
	// new run's (runExpect.go).
	prior []offsetPrior
	// tail is the noise of a judged cell beyond the Gaussian (tail.go).
	tail tailModel
	// cells and runs fitted, for the report.
	cells, runs int
	// classOf is the node classes by host, computed once.
	classOf map[string]*Class
	// facts are what the history's logs say of each node.
	facts map[string]NodeFacts
}

// prior loadings of a resource class on the Rank latent resources: cpu on
// the first, io on the second, shuffle and unknown half on each.
func priorLoading(c history.Class, k int) []float64 {
	v := make([]float64, k)
	if k == 1 {
		v[0] = 1
		return v
	}
	switch c {
	case history.ClassCPU:
		v[0] = 1
	case history.ClassIO:
		v[1] = 1
	default:
		v[0], v[1] = 0.5, 0.5
	}
	return v
}

// resourceName names latent resource k.
func resourceName(k int) string {
	switch k {
	case 0:
		return ResourceCPU
	case 1:
		return ResourceIO
	}
	return fmt.Sprintf("latent%d", k+1)
}

// Fit learns the joint model from runs (read with Detail).
func Fit(runs []*history.Run, p Params) (*Joint, error) {
	if p.Rank <= 0 {
		p.Rank = DefaultParams.Rank
	}
	d := newData()
	d.add(runs, p.Trim)
	if len(d.cells) == 0 {
		return nil, fmt.Errorf("%w: %d runs, none with a stage's tasks per host (index runs with clusterlens index)", ErrNoHistory, len(runs))
	}
	k := p.Rank
	m := &Joint{p: p, nodes: d.nodes, nodeIx: d.nodeIdx, jobs: d.jobs, jobIx: d.jobIdx,
		u: make([]float64, len(d.nodes)*k), cov: make([]float64, len(d.nodes)*k*k), tasks: make([]int, len(d.nodes)),
		v: make([]float64, len(d.jobs)*k), v0: make([]float64, len(d.jobs)*k), tau2: make([]float64, len(d.jobs)),
		cells: len(d.cells), runs: len(d.runs), facts: nodeFacts(runs)}
	m.looseIx = map[string]int32{}
	for j := range d.jobs {
		copy(m.v0[j*k:], priorLoading(d.jobs[j].class, k))
		lk := looseKey(d.jobs[j].key)
		if _, dup := m.looseIx[lk]; dup {
			m.looseIx[lk] = -1
		} else {
			m.looseIx[lk] = int32(j)
		}
	}
	copy(m.v, m.v0)
	m.spread(d)
	a := m.als(d)
	m.prior = m.offsetPriors(d, a)
	m.tail = gaussianTail
	if !p.calibrated {
		m.tail = m.calibrate(runs)
	}
	// Pooling a class's nodes counts on each node's factor error being
	// right; it is checked only where the residuals' tail is calibrated
	// (with fewer runs the innocents' window z-scores are already too
	// wide, and pooling widened them: on seeds 100–199 of
	// TestDetectableSlowdown, innocent culprits in 6.2% of the windows
	// with 10 past runs against 2.2%).
	if p.calibrated || m.tail.Strata[2].Sorted != nil {
		m.poolClasses()
	}
	return m, nil
}

// spread sets τ_j² (pooled within-cell variance of log durations per job
// class, the cluster's pooled value for a class with no cell of 2 tasks)
// and a first ω².
func (m *Joint) spread(d *data) {
	ss := make([]float64, len(m.jobs))
	df := make([]float64, len(m.jobs))
	var all, allDF float64
	for i := range d.cells {
		c := &d.cells[i]
		ss[c.job] += c.ss
		df[c.job] += float64(c.n - 1)
		all += c.ss
		allDF += float64(c.n - 1)
		m.tasks[c.node] += int(c.nLin)
	}
	pooled := 0.16 // a Spark stage's typical log spread (σ 0.4) when nothing tells
	if allDF > 0 {
		pooled = math.Max(all/allDF, 1e-4)
	}
	for j := range m.jobs {
		m.tau2[j] = pooled
		if df[j] >= 5 {
			m.tau2[j] = math.Max(ss[j]/df[j], 1e-4)
		}
	}
	m.omega2 = 0.01
}

// als alternates offsets, node factors and job loadings, and returns the
// run-stages' offsets fitted with the final factors.
func (m *Joint) als(d *data) []float64 {
	k := m.p.Rank
	nc := len(d.cells)
	a := make([]float64, len(d.rs))
	w := make([]float64, nc)
	byNode := groupBy(d.cells, len(m.nodes), func(c *cell) int32 { return c.node })
	byJob := groupBy(d.cells, len(m.jobs), func(c *cell) int32 { return c.job })
	A := make([]float64, k*k)
	b := make([]float64, k)
	for it := 0; it < max(1, m.p.Iterations); it++ {
		m.cellWeights(d, w)
		m.offsets(d, w, a)
		// Node factors: ridge regression of the residuals on the loadings.
		for n := range m.nodes {
			clear(A)
			clear(b)
			for q := 0; q < k; q++ {
				A[q*k+q] = m.p.NodePrior
			}
			for _, i := range byNode[n] {
				c := &d.cells[i]
				vj := m.v[int(c.job)*k : int(c.job)*k+k]
				r := c.y - a[c.rs]
				for p := 0; p < k; p++ {
					b[p] += w[i] * vj[p] * r
					for q := 0; q < k; q++ {
						A[p*k+q] += w[i] * vj[p] * vj[q]
					}
				}
			}
			cov := inverseSPD(A, k)
			if cov == nil || !solveSPD(A, b, k) {
				continue
			}
			copy(m.u[n*k:], b)
			copy(m.cov[n*k*k:], cov)
		}
		m.center(byNode)
		// Job loadings: ridge towards the resource class's.
		for j := range m.jobs {
			clear(A)
			for q := 0; q < k; q++ {
				A[q*k+q] = m.p.JobPrior
				b[q] = m.p.JobPrior * m.v0[j*k+q]
			}
			for _, i := range byJob[j] {
				c := &d.cells[i]
				un := m.u[int(c.node)*k : int(c.node)*k+k]
				r := c.y - a[c.rs]
				for p := 0; p < k; p++ {
					b[p] += w[i] * un[p] * r
					for q := 0; q < k; q++ {
						A[p*k+q] += w[i] * un[p] * un[q]
					}
				}
			}
			if solveSPD(A, b, k) {
				copy(m.v[j*k:], b)
			}
		}
		m.omega2 = m.betweenCells(d, a)
	}
	m.cellWeights(d, w)
	m.offsets(d, w, a)
	return a
}

// cellWeights sets each cell's inverse variance.
func (m *Joint) cellWeights(d *data, w []float64) {
	for i := range d.cells {
		c := &d.cells[i]
		w[i] = 1 / (m.tau2[c.job]/float64(c.n) + m.omega2)
	}
}

// offsets sets each run-stage's offset: the weighted mean of what the
// factors leave of its cells.
func (m *Joint) offsets(d *data, w, a []float64) {
	k := m.p.Rank
	for s := range d.rs {
		rs := &d.rs[s]
		num, den := 0.0, 0.0
		for i := rs.first; i < rs.end; i++ {
			c := &d.cells[i]
			num += w[i] * (c.y - dot(m.u[int(c.node)*k:int(c.node)*k+k], m.v[int(c.job)*k:int(c.job)*k+k]))
			den += w[i]
		}
		a[s] = num / den
	}
}

// center moves the node factors' task-weighted mean to zero (the offsets
// absorb it), so that a factor is relative to the average node.
func (m *Joint) center(byNode [][]int32) {
	k := m.p.Rank
	mean := make([]float64, k)
	tot := 0.0
	for n := range m.nodes {
		wn := float64(len(byNode[n]))
		tot += wn
		for q := 0; q < k; q++ {
			mean[q] += wn * m.u[n*k+q]
		}
	}
	if tot == 0 {
		return
	}
	for n := range m.nodes {
		for q := 0; q < k; q++ {
			m.u[n*k+q] -= mean[q] / tot
		}
	}
}

// betweenCells estimates ω²: the mean squared residual beyond the
// within-cell part, over run-stages with at least two cells (at least
// 0.0025: 5%).
func (m *Joint) betweenCells(d *data, a []float64) float64 {
	k := m.p.Rank
	var sum, n float64
	for s := range d.rs {
		rs := &d.rs[s]
		cells := float64(rs.end - rs.first)
		if cells < 2 {
			continue
		}
		for i := rs.first; i < rs.end; i++ {
			c := &d.cells[i]
			r := c.y - a[s] - dot(m.u[int(c.node)*k:int(c.node)*k+k], m.v[int(c.job)*k:int(c.job)*k+k])
			// The offset is fitted from the same cells: scale by cells/(cells-1).
			sum += r*r*cells/(cells-1) - m.tau2[c.job]/float64(c.n)
			n++
		}
	}
	if n == 0 {
		return 0.0025
	}
	return math.Max(sum/n, 0.0025)
}

// groupBy lists cell indexes per key.
func groupBy(cells []cell, n int, key func(*cell) int32) [][]int32 {
	count := make([]int32, n+1)
	for i := range cells {
		count[key(&cells[i])+1]++
	}
	for i := 1; i <= n; i++ {
		count[i] += count[i-1]
	}
	flat := make([]int32, len(cells))
	pos := append([]int32(nil), count[:n]...)
	for i := range cells {
		kk := key(&cells[i])
		flat[pos[kk]] = int32(i)
		pos[kk]++
	}
	out := make([][]int32, n)
	for i := 0; i < n; i++ {
		out[i] = flat[count[i]:count[i+1]]
	}
	return out
}

// maxTailCells bounds the cells the tail model is fitted on;
// minCalibrationRuns is the fewest history runs it is fitted from (fewer:
// the Gaussian).
const (
	maxTailCells          = 20000
	minCalibrationRuns    = 30
	calibrationIterations = 10
)

// calibrate fits the tail model as Judge will meet it: the model is fitted
// again on the oldest two thirds of the history runs, which then judges
// the newest third (with their history expectation, as later runs are
// judged), and the t is fitted on those cells' standardized residuals —
// out of sample, drift between the runs included.
func (m *Joint) calibrate(runs []*history.Run) tailModel {
	if len(runs) < minCalibrationRuns {
		return gaussianTail
	}
	sorted := slices.Clone(runs)
	slices.SortStableFunc(sorted, func(a, b *history.Run) int { return cmp.Compare(a.Start, b.Start) })
	cut := len(sorted) * 2 / 3
	p := m.p
	p.calibrated = true
	// The residuals' distribution needs the factors roughly, not to the
	// last iteration: 10 sweeps (of 25) cost less than half a fit.
	p.Iterations = min(p.Iterations, calibrationIterations)
	cal, err := Fit(sorted[:cut], p)
	if err != nil {
		return gaussianTail
	}
	// Judge enough of the newest third's runs for maxTailCells residuals
	// (every k-th run, so that they still span it).
	held := sorted[cut:]
	if cells := m.cells * len(held) / max(1, len(sorted)); cells > 2*maxTailCells {
		step := cells / (2 * maxTailCells)
		var sub []*history.Run
		for i := 0; i < len(held); i += step {
			sub = append(sub, held[i])
		}
		held = sub
	}
	t := newData()
	t.add(held, p.Trim)
	cells := cal.judgeCells(t, true)
	step := max(1, len(cells)/maxTailCells)
	var z []float64
	var tasks []int
	for i := 0; i < len(cells); i += step {
		z = append(z, cells[i].e/math.Sqrt(cells[i].ve))
		tasks = append(tasks, cells[i].tasks)
	}
	return fitTail(z, tasks)
}

// job returns the model's job class for a judged one: the same class, or
// else the one class of the same recurring job whose stage has the same
// name and parents: a stage's signature flags what data it read and wrote,
// and a log that counts no bytes for some of a run's tasks (or none)
// changes them without changing the stage.
func (m *Joint) job(key string) (int32, bool) {
	if j, ok := m.jobIx[key]; ok {
		return j, true
	}
	j, ok := m.looseIx[looseKey(key)]
	return j, ok && j >= 0
}

// looseKey is a job class key without its signature's data flags.
func looseKey(key string) string {
	i := strings.LastIndexByte(key, '|')
	if i < 0 || len(key)-i != 6 {
		return key
	}
	return key[:i] + key[len(key)-1:]
}
