package predict

import (
	"math"
)

// Kernel is Bell's non-parametric model (Thamsen et al., "Selecting
// Resources for Distributed Dataflow Systems According to Runtime Targets",
// IPCCC'16; dos-group/runtime-prediction-experiments,
// analysis/runtime-prediction-analysis.ipynb, KernelReg): local linear
// regression of runtime on machines with a Gaussian kernel
// exp(−Δm²/(2h²)), the bandwidth h chosen by leave-one-scale-out
// cross-validation over the interior scale-outs (InterpolationSplits)
// minimizing the mean relative error. Bell's grid is h = 1..100 machines;
// this one is 24 bandwidths spaced geometrically from half the smallest gap
// between scale-outs to twice their range, which covers the same span for
// Bell's clusters and scales with other ones. Where data sizes differ the
// regression is local linear in (m, ln s) with a product kernel whose data
// bandwidth is chosen from 0.05–0.8 in ln s (clusterlens's extension; Bell
// keeps the input fixed). Outside the machines it was fitted on it answers
// the value at the nearest fitted scale-out, as C3O's scale-out model does
// (dos-group/c3o, CustomModels.py, SSModel.predict), rather than carry a
// local line on.
type Kernel struct {
	// H and HData are the chosen bandwidths (machines; ln data, 0 when the
	// data size does not vary).
	H     float64 `json:"bandwidth"`
	HData float64 `json:"dataBandwidth,omitempty"`
	pts   []Point
	rng   Range
}

// Name implements Model.
func (*Kernel) Name() string { return "kernel" }

// Fit implements Model: at least three distinct scale-outs, so that one
// interior scale-out can be left out to choose the bandwidth.
func (k *Kernel) Fit(pts []Point) error {
	if err := checkPoints(pts); err != nil {
		return err
	}
	agg := aggregate(pts)
	ms := distinct(agg, machinesOf)
	if len(ms) < 3 {
		return &TooFewError{Model: "kernel", Have: len(ms), Need: 3, What: "distinct machine counts"}
	}
	k.pts, k.rng = agg, rangeOf(agg)
	gap := math.Inf(1)
	for i := 1; i < len(ms); i++ {
		gap = min(gap, ms[i]-ms[i-1])
	}
	span := ms[len(ms)-1] - ms[0]
	hs := geomGrid(gap/2, 2*span, 24)
	hds := []float64{0}
	if dataVaries(agg) {
		hds = []float64{0.05, 0.1, 0.2, 0.4, 0.8}
	}
	best := math.Inf(1)
	for _, h := range hs {
		for _, hd := range hds {
			score := k.interpolationScore(ms, h, hd)
			if score < best {
				best, k.H, k.HData = score, h, hd
			}
		}
	}
	if math.IsInf(best, 1) {
		k.H, k.HData = hs[len(hs)/2], hds[len(hds)-1]
	}
	return nil
}

// interpolationScore is the mean relative error of predicting each
// interior scale-out's runs from the other scale-outs (Bell's
// InterpolationSplits and loss_func).
func (k *Kernel) interpolationScore(ms []float64, h, hd float64) float64 {
	var sum, n float64
	for _, m := range ms[1 : len(ms)-1] {
		for _, p := range k.pts {
			if p.Machines != m {
				continue
			}
			pred, ok := localLinear(k.pts, m, p.Data, h, hd, m)
			if !ok {
				return math.Inf(1)
			}
			sum += p.weight() * math.Abs(pred-p.Runtime) / p.Runtime
			n += p.weight()
		}
	}
	if n == 0 {
		return math.Inf(1)
	}
	return sum / n
}

// Predict implements Model.
func (k *Kernel) Predict(m, s float64) (float64, bool) {
	m = min(max(m, k.rng.MinMachines), k.rng.MaxMachines)
	if k.HData > 0 {
		s = min(max(s, k.rng.MinData), k.rng.MaxData)
	}
	t, ok := localLinear(k.pts, m, s, k.H, k.HData, math.NaN())
	return t, ok && t > 0
}

// localLinear is the local linear fit at (m, s) over pts, leaving out the
// points at machines skip (NaN: none). hd = 0 fits in m alone.
func localLinear(pts []Point, m, s, h, hd, skip float64) (float64, bool) {
	// Weighted normal equations of [1, Δm, Δln s]; with hd = 0, [1, Δm].
	var g [3][3]float64
	var r [3]float64
	ls := math.Log(s)
	for _, p := range pts {
		if p.Machines == skip {
			continue
		}
		dm := p.Machines - m
		e := dm * dm / (2 * h * h)
		x := [3]float64{1, dm, 0}
		if hd > 0 {
			dl := math.Log(p.Data) - ls
			e += dl * dl / (2 * hd * hd)
			x[2] = dl
		}
		w := p.weight() * math.Exp(-e)
		if w == 0 {
			continue
		}
		for a := range 3 {
			r[a] += w * x[a] * p.Runtime
			for b := range 3 {
				g[a][b] += w * x[a] * x[b]
			}
		}
	}
	n := 2
	if hd > 0 {
		n = 3
	}
	// Bell adds the machine epsilon to the diagonal; a relative ridge keeps
	// far-away, nearly weightless neighbourhoods solvable too.
	for a := range n {
		g[a][a] += 1e-12*g[a][a] + 1e-300
	}
	c, ok := solveSmall(g, r, n)
	if !ok {
		return 0, false
	}
	return c[0], !math.IsNaN(c[0])
}

// solveSmall solves the n×n (n ≤ 3) system g·c = r by Gaussian elimination
// with partial pivoting.
func solveSmall(g [3][3]float64, r [3]float64, n int) ([3]float64, bool) {
	var c [3]float64
	for col := range n {
		piv := col
		for row := col + 1; row < n; row++ {
			if math.Abs(g[row][col]) > math.Abs(g[piv][col]) {
				piv = row
			}
		}
		if g[piv][col] == 0 {
			return c, false
		}
		g[col], g[piv] = g[piv], g[col]
		r[col], r[piv] = r[piv], r[col]
		for row := col + 1; row < n; row++ {
			f := g[row][col] / g[col][col]
			for k := col; k < n; k++ {
				g[row][k] -= f * g[col][k]
			}
			r[row] -= f * r[col]
		}
	}
	for row := n - 1; row >= 0; row-- {
		v := r[row]
		for k := row + 1; k < n; k++ {
			v -= g[row][k] * c[k]
		}
		c[row] = v / g[row][row]
	}
	return c, true
}

// geomGrid is n values spaced geometrically from lo to hi.
func geomGrid(lo, hi float64, n int) []float64 {
	if !(lo > 0) || hi <= lo {
		return []float64{max(lo, hi, 1)}
	}
	out := make([]float64, n)
	f := math.Pow(hi/lo, 1/float64(n-1))
	v := lo
	for i := range out {
		out[i] = v
		v *= f
	}
	return out
}
