package predict

import (
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// Optimistic is C3O's basic optimistic model (Will et al., "C3O:
// Collaborative Cluster Configuration Optimization for Distributed Data
// Processing in Public Clouds", IC2E'21; dos-group/c3o,
// RuntimePrediction/CustomModels.py, BasicOptimisticModel): a scale-out
// speed-up model — a cubic polynomial of runtime in machines, fitted on the
// largest group of runs that differ only in machines and divided by its
// value at the fewest machines — times an inputs-behaviour model, a linear
// regression on data size of the runtimes projected to the fewest machines
// (runtime ÷ speed-up). Outside the machines fitted the speed-up is the
// value at the nearest end (C3O does this above the largest; below the
// smallest too here, where the cubic is as unreliable).
type Optimistic struct {
	// Poly are the cubic's coefficients (constant first); Input the
	// inputs-behaviour line (intercept, slope per data unit).
	Poly  [4]float64 `json:"speedupCubic"`
	Input [2]float64 `json:"inputLine"`
	rng   Range
}

// Name implements Model.
func (*Optimistic) Name() string { return "optimistic" }

// Fit implements Model: the largest group of one data size needs four
// distinct machine counts for the cubic.
func (o *Optimistic) Fit(pts []Point) error {
	if err := checkPoints(pts); err != nil {
		return err
	}
	agg := aggregate(pts)
	o.rng = rangeOf(agg)
	// The largest group of one data size (aggregate bins sizes).
	groups := map[int64][]Point{}
	var bestKey int64
	for _, p := range agg {
		k := int64(math.Round(math.Log(p.Data) / math.Log1p(dataTol)))
		groups[k] = append(groups[k], p)
		if len(groups[k]) > len(groups[bestKey]) || len(groups[k]) == len(groups[bestKey]) && k < bestKey {
			bestKey = k
		}
	}
	g := groups[bestKey]
	if n := len(distinct(g, machinesOf)); n < 4 {
		return &TooFewError{Model: "optimistic", Have: n, Need: 4, What: "distinct machine counts at one data size"}
	}
	x := stats.NewDense(len(g), 4)
	y := make([]float64, len(g))
	w := make([]float64, len(g))
	for i, p := range g {
		copy(x.Row(i), []float64{1, p.Machines, p.Machines * p.Machines, p.Machines * p.Machines * p.Machines})
		y[i], w[i] = p.Runtime, p.weight()
	}
	c, err := stats.LeastSquares(x, y, w, nil)
	if err != nil {
		return err
	}
	copy(o.Poly[:], c)
	// Inputs behaviour on runtimes projected to the fewest machines.
	x = stats.NewDense(len(agg), 2)
	y, w = make([]float64, len(agg)), make([]float64, len(agg))
	for i, p := range agg {
		sp, ok := o.speedup(p.Machines)
		if !ok {
			return &TooFewError{Model: "optimistic", Have: len(g), Need: len(g) + 1, What: "runs for a positive speed-up curve"}
		}
		x.X[i*2], x.X[i*2+1] = 1, p.Data
		y[i], w[i] = p.Runtime/sp, p.weight()
	}
	if dataVaries(agg) {
		c, err = stats.LeastSquares(x, y, w, nil)
		if err != nil {
			return err
		}
		copy(o.Input[:], c)
	} else {
		var sum, n float64
		for i := range y {
			sum, n = sum+w[i]*y[i], n+w[i]
		}
		o.Input = [2]float64{sum / n, 0}
	}
	return nil
}

func (o *Optimistic) cubic(m float64) float64 {
	m = min(max(m, o.rng.MinMachines), o.rng.MaxMachines)
	return o.Poly[0] + m*(o.Poly[1]+m*(o.Poly[2]+m*o.Poly[3]))
}

// speedup is the runtime factor at m machines against the fewest fitted.
func (o *Optimistic) speedup(m float64) (float64, bool) {
	base := o.cubic(o.rng.MinMachines)
	v := o.cubic(m)
	if base <= 0 || v <= 0 {
		return 0, false
	}
	return v / base, true
}

// Predict implements Model.
func (o *Optimistic) Predict(m, s float64) (float64, bool) {
	sp, ok := o.speedup(m)
	if !ok {
		return 0, false
	}
	t := sp * (o.Input[0] + o.Input[1]*s)
	return t, t > 0
}

// Power is the scaling law t = e^a · m^b · s^c (c = 0 when the data size
// does not vary), fitted by least squares on logarithms. It is not from the
// papers above: it is the simplest parametric curve that keeps falling
// steadily with machines where Ernest's a + b/m flattens, and the choice
// keeps it only when cross-validation prefers it. It is a speed-up law: b
// is at most 0 (−1 scales linearly, 0 not at all), and a fit that would
// grow with the machines is refitted at b = 0, as Ernest's non-negative
// least squares keeps its terms physical: a job slowed by more machines is
// slowed by their overhead, which Ernest's θ2·log m + θ3·m describes, while
// m^b with b > 0 grows without bound (on Ellis's k-means a job of 3 s at 4
// nodes, with single runs of 6–180 s at 12–18, was extrapolated to 312 s
// at 36, where it took 2.1 s).
type Power struct {
	Coef [3]float64 `json:"coef"`
}

// Name implements Model.
func (*Power) Name() string { return "power" }

// Fit implements Model: as many configurations as the parameters fitted
// (of machines, data size or both, whichever vary), two at the least; with
// exactly that many the curve passes through them.
func (pw *Power) Fit(pts []Point) error {
	if err := checkPoints(pts); err != nil {
		return err
	}
	agg := aggregate(pts)
	// The exponents of what varies: machines, data size or both.
	cols := []int{0}
	if len(distinct(agg, machinesOf)) > 1 {
		cols = append(cols, 1)
	}
	if dataVaries(agg) {
		cols = append(cols, 2)
	}
	if need := len(cols); len(cols) == 1 || len(agg) < need {
		return &TooFewError{Model: "power", Have: len(agg), Need: max(need, 2), What: "distinct (machines, data size) configurations"}
	}
	x := stats.NewDense(len(agg), 3)
	y, w := make([]float64, len(agg)), make([]float64, len(agg))
	for i, p := range agg {
		copy(x.Row(i), []float64{1, math.Log(p.Machines), math.Log(p.Data)})
		y[i], w[i] = math.Log(p.Runtime), p.weight()
	}
	c, err := stats.LeastSquares(x, y, w, cols)
	if err != nil {
		return err
	}
	if c[1] > 0 && cols[1] == 1 {
		cols = slices.Delete(cols, 1, 2)
		if c, err = stats.LeastSquares(x, y, w, cols); err != nil {
			return err
		}
	}
	pw.Coef = [3]float64{}
	for k, j := range cols {
		pw.Coef[j] = c[k]
	}
	return nil
}

// Predict implements Model.
func (pw *Power) Predict(m, s float64) (float64, bool) {
	return math.Exp(pw.Coef[0] + pw.Coef[1]*math.Log(m) + pw.Coef[2]*math.Log(s)), true
}
