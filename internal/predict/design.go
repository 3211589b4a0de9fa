package predict

import (
	"fmt"
	"math"
	"slices"
)

// Suggestion is a run that would help a question most.
type Suggestion struct {
	Machines float64 `json:"machines"`
	Data     float64 `json:"data"`
	Why      string  `json:"why"`
}

// NextRun names the configuration whose run would most lower the variance
// of Ernest's prediction at the question (machines, data): Ernest's
// experiment design (Venkataraman et al., NSDI'16, §4: choose the runs
// that make the fit of its features [1, s/m, log m, m] most informative),
// here in its c-optimal form for one question — minimize xᵀ(Σ wᵢxᵢxᵢᵀ +
// x_c x_cᵀ)⁻¹x over the candidates x_c, x the question's features — over
// cluster sizes cheaper than the question's (up to its machines, at its
// data size, and at half of it when the data sizes vary), each new run
// counting once: between the question and the fitted cluster sizes
// nearest it (beyond the largest: up to the question). Nil when no
// candidate is new.
func NextRun(pts []Point, machines, data float64) *Suggestion {
	agg := aggregate(pts)
	r := rangeOf(agg)
	var g [4][4]float64
	for _, p := range agg {
		addOuter(&g, ernestFeatures(p.Machines, p.Data), p.weight())
	}
	target := ernestFeatures(machines, data)
	// Between the question and the nearest fitted cluster sizes around it.
	ms0 := distinct(agg, machinesOf)
	lo, hi := 1.0, machines
	for _, m := range ms0 {
		if m < machines {
			lo = m
		} else if m > machines {
			hi = min(hi, m)
			if hi == machines {
				hi = m
			}
			break
		}
	}
	if machines > r.MaxMachines {
		lo, hi = r.MaxMachines, machines
	}
	var ms []float64
	for _, m := range geomGrid(max(lo, 1), hi, 24) {
		ms = append(ms, math.Round(m))
	}
	slices.Sort(ms)
	ms = slices.Compact(ms)
	datas := []float64{data}
	if dataVaries(agg) {
		datas = append(datas, data/2)
	}
	var best *Suggestion
	bestVar := math.Inf(1)
	for _, d := range datas {
		for _, m := range ms {
			if m < 1 || m <= lo && lo > 1 || m >= hi || m == machines && d >= data*(1-dataTol) {
				continue // fitted already, or the question itself
			}
			if slices.ContainsFunc(agg, func(p Point) bool { return sameConfig(p, Point{Machines: m, Data: d}) }) {
				continue
			}
			h := g
			addOuter(&h, ernestFeatures(m, d), 1)
			if v := quadInverse(h, target); v < bestVar*(1-1e-9) {
				bestVar = v
				best = &Suggestion{Machines: m, Data: d}
			}
		}
	}
	if best != nil {
		best.Why = fmt.Sprintf("of the cluster sizes between %s and %s machines, the run that most narrows Ernest's fit at the question (Ernest's experiment design, c-optimal)", Plain(lo), Plain(hi))
	}
	return best
}

func addOuter(g *[4][4]float64, x [4]float64, w float64) {
	for i := range 4 {
		for j := range 4 {
			g[i][j] += w * x[i] * x[j]
		}
	}
}

// quadInverse is xᵀ(G + εI)⁻¹x, with a small ridge ε relative to G's
// trace so that a singular G (fewer runs than features) still ranks the
// candidates: the one completing the design comes first.
func quadInverse(g [4][4]float64, x [4]float64) float64 {
	tr := 0.0
	for i := range 4 {
		tr += g[i][i]
	}
	eps := 1e-9*tr + 1e-12
	var a [4][5]float64
	for i := range 4 {
		copy(a[i][:4], g[i][:])
		a[i][i] += eps
		a[i][4] = x[i]
	}
	for col := range 4 {
		piv := col
		for row := col + 1; row < 4; row++ {
			if math.Abs(a[row][col]) > math.Abs(a[piv][col]) {
				piv = row
			}
		}
		a[col], a[piv] = a[piv], a[col]
		if a[col][col] == 0 {
			return math.Inf(1)
		}
		for row := range 4 {
			if row == col {
				continue
			}
			f := a[row][col] / a[col][col]
			for k := col; k < 5; k++ {
				a[row][k] -= f * a[col][k]
			}
		}
	}
	v := 0.0
	for i := range 4 {
		v += x[i] * a[i][4] / a[i][i]
	}
	return v
}
