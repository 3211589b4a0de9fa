package predict

import (
	"math"
	"slices"
)

// Kernel is Bell's non-parametric model (Thamsen et al., "Selecting
// Resources for Distributed Dataflow Systems According to Runtime Targets",
// IPCCC'16; dos-group/runtime-prediction-experiments,
// analysis/runtime-prediction-analysis.ipynb, KernelReg): local linear
// regression of runtime on machines with a Gaussian kernel
// exp(−Δm²/(2h²)), the bandwidth h chosen by leave-one-scale-out
// cross-validation over the interior scale-outs (InterpolationSplits)
// minimizing the mean relative error. Bell's grid is h = 1..100 machines;
// this one is 16 bandwidths spaced geometrically from half the smallest gap
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
	pts   []kernelPoint
	rng   Range
}

// kernelPoint is a point with its data size's logarithm, computed once,
// and the index of its machine count among the distinct ones.
type kernelPoint struct {
	Point
	lnData float64
	mi     int
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
	k.rng = rangeOf(agg)
	k.pts = make([]kernelPoint, len(agg))
	for i, p := range agg {
		mi, _ := slices.BinarySearch(ms, p.Machines)
		k.pts[i] = kernelPoint{p, math.Log(p.Data), mi}
	}
	gap := math.Inf(1)
	for i := 1; i < len(ms); i++ {
		gap = min(gap, ms[i]-ms[i-1])
	}
	span := ms[len(ms)-1] - ms[0]
	hs := geomGrid(gap/2, 2*span, 16)
	hds := []float64{0}
	if dataVaries(agg) {
		hds = []float64{0.05, 0.1, 0.2, 0.4, 0.8}
	}
	score := k.interpolationScores(ms, hs, hds)
	best := math.Inf(1)
	for a, h := range hs {
		for b, hd := range hds {
			if score[a][b] < best {
				best, k.H, k.HData = score[a][b], h, hd
			}
		}
	}
	if math.IsInf(best, 1) {
		k.H, k.HData = hs[len(hs)/2], hds[len(hds)-1]
	}
	return nil
}

// interpolationScores are, per machine and data bandwidth, the mean
// relative error of predicting each interior scale-out's runs from the
// other scale-outs (Bell's InterpolationSplits and loss_func). The kernel
// is a product, so each held-out point's weights are computed once per
// bandwidth of each axis and multiplied for every pair: the search costs
// one exponential per point and data bandwidth, not per pair.
func (k *Kernel) interpolationScores(ms, hs, hds []float64) [][]float64 {
	sum := make([][]float64, len(hs))
	for a := range sum {
		sum[a] = make([]float64, len(hds))
	}
	var n float64
	dw := make([][]float64, len(hds))
	for b := range dw {
		dw[b] = make([]float64, len(k.pts))
	}
	mw := make([]float64, len(hs)*len(ms))
	for _, m := range ms[1 : len(ms)-1] {
		for a, h := range hs {
			for i, mj := range ms {
				mw[a*len(ms)+i] = math.Exp(-(mj - m) * (mj - m) / (2 * h * h))
			}
		}
		for _, p := range k.pts {
			if p.Machines != m {
				continue
			}
			for b, hd := range hds {
				for j, q := range k.pts {
					dw[b][j] = 1
					if hd > 0 {
						dl := q.lnData - p.lnData
						dw[b][j] = math.Exp(-dl * dl / (2 * hd * hd))
					}
				}
			}
			for a := range hs {
				for b, hd := range hds {
					var g [3][3]float64
					var r [3]float64
					for j, q := range k.pts {
						if q.Machines == m {
							continue
						}
						w := q.weight() * mw[a*len(ms)+q.mi] * dw[b][j]
						x := [3]float64{1, q.Machines - m, q.lnData - p.lnData}
						for u := range 3 {
							r[u] += w * x[u] * q.Runtime
							for v := range 3 {
								g[u][v] += w * x[u] * x[v]
							}
						}
					}
					pred, ok := solveNormal(g, r, hd > 0)
					if !ok {
						sum[a][b] = math.Inf(1)
						continue
					}
					sum[a][b] += p.weight() * math.Abs(pred-p.Runtime) / p.Runtime
				}
			}
			n += p.weight()
		}
	}
	for a := range sum {
		for b := range sum[a] {
			if n == 0 {
				sum[a][b] = math.Inf(1)
			} else {
				sum[a][b] /= n
			}
		}
	}
	return sum
}

// Predict implements Model.
func (k *Kernel) Predict(m, s float64) (float64, bool) {
	m = min(max(m, k.rng.MinMachines), k.rng.MaxMachines)
	if k.HData > 0 {
		s = min(max(s, k.rng.MinData), k.rng.MaxData)
	}
	t, ok := localLinear(k.pts, m, s, k.H, k.HData)
	return t, ok && t > 0
}

// localLinear is the local linear fit at (m, s) over pts; hd = 0 fits in m
// alone.
func localLinear(pts []kernelPoint, m, s, h, hd float64) (float64, bool) {
	// Weighted normal equations of [1, Δm, Δln s]; with hd = 0, [1, Δm].
	var g [3][3]float64
	var r [3]float64
	ls := math.Log(s)
	for _, p := range pts {
		dm := p.Machines - m
		e := dm * dm / (2 * h * h)
		x := [3]float64{1, dm, 0}
		if hd > 0 {
			dl := p.lnData - ls
			e += dl * dl / (2 * hd * hd)
			x[2] = dl
		}
		if e > 40 {
			continue // a weight under e⁻⁴⁰ changes no sum
		}
		w := p.weight() * math.Exp(-e)
		for a := range 3 {
			r[a] += w * x[a] * p.Runtime
			for b := range 3 {
				g[a][b] += w * x[a] * x[b]
			}
		}
	}
	return solveNormal(g, r, hd > 0)
}

// solveNormal solves the local linear fit's normal equations (over [1,
// Δm] or, withData, [1, Δm, Δln s]) and returns its intercept: the fit at
// the point itself.
func solveNormal(g [3][3]float64, r [3]float64, withData bool) (float64, bool) {
	n := 2
	if withData {
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
