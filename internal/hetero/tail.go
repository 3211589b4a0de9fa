package hetero

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// tailModel is the null distribution of a cell's standardized log
// residual as the history shows it, out of sample, per stratum of the
// cell's task count (one task, two, three or more): the calibration
// residuals' empirical distribution, and beyond its 95th percentile a
// power-law tail whose exponent is Hill's estimate from the residuals
// above it (peaks over a threshold). Task durations have a heavy tail
// (stragglers: the simulator's Pareto tail, real tasks' GC pauses and
// slow reads), so that one task several times its expectation is far
// likelier than a Gaussian says, and the mean of a few tasks inherits it;
// a cell then counts for what its tail probability allows, while many
// cells that agree add up without bound. PARC assumes a Gaussian (Gupta
// et al. §4.1, assumption 5, and eq. 8), which is what the model falls
// back to with too few residuals to calibrate on.
type tailModel struct {
	Strata [3]tailStratum
}

// tailStratum is one stratum's calibration: the sorted residuals (nil:
// the Gaussian), the threshold U (their 95th percentile) and the tail
// exponent Alpha above it.
type tailStratum struct {
	Sorted   []float64
	U, Alpha float64
}

// gaussianTail is a tail model that is the Gaussian.
var gaussianTail = tailModel{}

// tailShare is the share of the calibration residuals the power law is
// fitted on.
var tailShare = 0.05

// stratum is the tail stratum of a cell of n tasks.
func stratum(n int) int {
	return min(max(n, 1), 3) - 1
}

// minStratumCells is the fewest calibration cells a stratum is fitted on;
// a stratum with fewer takes the fit of all of them (below that many in
// all: the Gaussian).
const minStratumCells = 200

// fitTail fits the tail model to standardized residuals z of cells of
// tasks[i] tasks.
func fitTail(z []float64, tasks []int) tailModel {
	var by [3][]float64
	for i, x := range z {
		s := stratum(tasks[i])
		by[s] = append(by[s], x)
	}
	tm := gaussianTail
	if len(z) < minStratumCells {
		return tm
	}
	all := fitStratum(z)
	for s := range by {
		tm.Strata[s] = all
		if len(by[s]) >= minStratumCells {
			tm.Strata[s] = fitStratum(by[s])
		}
	}
	return tm
}

// fitStratum sorts the residuals and fits the tail above their 95th
// percentile (Hill's estimator of the exponent of P(Z > z) ∝ z^−α).
func fitStratum(z []float64) tailStratum {
	st := tailStratum{Sorted: slices.Clone(z)}
	slices.Sort(st.Sorted)
	n := len(st.Sorted)
	k := max(int(float64(n)*tailShare), 1)
	st.U = st.Sorted[n-k-1]
	if st.U <= 0 {
		return tailStratum{}
	}
	var sum float64
	for _, x := range st.Sorted[n-k:] {
		sum += math.Log(x / st.U)
	}
	st.Alpha = float64(k) / math.Max(sum, 1e-9)
	return st
}

// upper is P(Z ≥ x) under the stratum.
func (st *tailStratum) upper(x float64) float64 {
	n := len(st.Sorted)
	if x > st.U {
		return tailShare * math.Pow(x/st.U, -st.Alpha)
	}
	above := n - sort.SearchFloat64s(st.Sorted, x)
	return (float64(above) + 0.5) / float64(n+1)
}

// cellZ is a cell's residual e of Gaussian variance v over tasks tasks as
// a normal score under the tail model: the z of the same upper-tail
// probability.
func (tm tailModel) cellZ(e, v float64, tasks int) float64 {
	st := &tm.Strata[stratum(tasks)]
	x := e / math.Sqrt(v)
	if st.Sorted == nil {
		return x
	}
	return stats.NormalZ(st.upper(x))
}

// shift is what a set of cells (residuals e, Gaussian variances v) says
// of a node's slowdown: the inverse-variance weighted mean (unclipped)
// with its interval, and z, the cells' tail-calibrated normal scores
// combined as Stouffer's weighted sum (weights 1/√v: for Gaussian cells
// this is the mean over its standard error). Many cells that agree add
// up without bound; one far cell adds no more than its tail probability
// allows.
type shift struct {
	delta, lo, hi, z float64
}

// estimate is combine with the inverse-variance weights: the weighted
// mean of the cells' residuals.
func (tm tailModel) estimate(e, v []float64, tasks []int, indep []float64, shared float64) shift {
	var sw float64
	for i := range v {
		sw += 1 / v[i]
	}
	c := make([]float64, len(v))
	for i := range v {
		c[i] = 1 / v[i] / sw
	}
	return tm.combine(e, v, tasks, c, indep, shared)
}

// combine is what the linear combination d = Σ c_i e_i of cells' log
// residuals e (Gaussian variances v, of tasks tasks) says: d with its
// interval, and its z-score with each cell's residual scored under the
// tail model. indep is the part of each cell's variance that is its own,
// shared the variance of d that the cells have in common (Joint.shift: it
// does not shrink as cells add up). d's variance is Σ c² indep + shared.
// Its z: the cells' calibrated normal scores combined with the same
// weights (Stouffer's weighted sum, Σ c √v z_i / √Σ c² v: for Gaussian
// cells d over its standard error), so that many cells that agree add up
// without bound and one far cell adds no more than its tail probability
// allows; the standard error it implies (d / z) is scaled to the
// independent parts and the shared variance added.
func (tm tailModel) combine(e, v []float64, tasks []int, c, indep []float64, shared float64) shift {
	var d, g, sz, si float64
	for i := range e {
		d += c[i] * e[i]
		g += c[i] * c[i] * v[i]
		sz += c[i] * math.Sqrt(v[i]) * tm.cellZ(e[i], v[i], tasks[i])
		si += c[i] * c[i] * indep[i]
	}
	if g == 0 {
		return shift{}
	}
	// own is the independent parts' share of d's cell variance g.
	own := si / g
	sd := math.Sqrt(si + shared)
	z := sz / math.Sqrt(g)
	if se1 := d / z; z != 0 && se1 > 0 {
		z = d / math.Sqrt(se1*se1*own+shared)
	} else {
		z /= math.Sqrt(own + shared/g)
	}
	return shift{delta: d, lo: d - intervalZ*sd, hi: d + intervalZ*sd, z: z}
}

// factor is the shift's slowdown factor with its interval.
func (s shift) factor() Factor {
	return Factor{Value: round3(math.Exp(s.delta)), Low: round3(math.Exp(s.lo)), High: round3(math.Exp(s.hi))}
}

// describe says how the tail model was calibrated.
func (tm tailModel) describe() string {
	var parts []string
	for i, st := range tm.Strata {
		n := [3]string{"1 task", "2 tasks", "3+ tasks"}[i]
		if st.Sorted == nil {
			parts = append(parts, n+": Gaussian (too few held-out residuals to calibrate on)")
			continue
		}
		parts = append(parts, fmt.Sprintf("%s: %d held-out residuals, power-law tail above %.2f with exponent %.2f", n, len(st.Sorted), st.U, st.Alpha))
	}
	return strings.Join(parts, "; ")
}
