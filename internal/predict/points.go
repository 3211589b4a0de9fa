package predict

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Point is one past run as the models fitted from history alone see it: the
// machines it ran on, the data it processed and how long it took. Data and
// Runtime are in the caller's units (bytes or an input fraction; ms or s);
// Weight is how many runs the point stands for (0 counts as 1).
type Point struct {
	Machines float64 `json:"machines"`
	Data     float64 `json:"data"`
	Runtime  float64 `json:"runtime"`
	Weight   float64 `json:"weight,omitempty"`
	// Group is the run's job or machine type when a table holds several
	// (a CSV's group columns, joined by "/"); "" otherwise.
	Group string `json:"group,omitempty"`
	// Class is a known condition of the run that changes how far it strays
	// from its configuration's typical time ("" for none; ClassRescaled);
	// intervals are calibrated per class (ChoiceOptions.Class).
	Class string `json:"class,omitempty"`
}

func (p Point) weight() float64 {
	if p.Weight > 0 {
		return p.Weight
	}
	return 1
}

// checkPoints rejects points no model can use, naming the first.
func checkPoints(pts []Point) error {
	for i, p := range pts {
		for _, v := range []float64{p.Machines, p.Data, p.Runtime} {
			if !(v > 0) || math.IsInf(v, 0) {
				return fmt.Errorf("run %d: machines %g, data %g, runtime %g: each must be a positive number", i+1, p.Machines, p.Data, p.Runtime)
			}
		}
	}
	return nil
}

// Range is the span of the runs a model was fitted on.
type Range struct {
	MinMachines float64 `json:"minMachines"`
	MaxMachines float64 `json:"maxMachines"`
	MinData     float64 `json:"minData"`
	MaxData     float64 `json:"maxData"`
}

func rangeOf(pts []Point) Range {
	r := Range{MinMachines: math.Inf(1), MinData: math.Inf(1)}
	for _, p := range pts {
		r.MinMachines, r.MaxMachines = min(r.MinMachines, p.Machines), max(r.MaxMachines, p.Machines)
		r.MinData, r.MaxData = min(r.MinData, p.Data), max(r.MaxData, p.Data)
	}
	return r
}

// Outside is how far (machines, data) lies outside the range, in natural
// logarithms summed over the two axes: 0 inside it, ln 2 for twice the
// largest machines fitted.
func (r Range) Outside(machines, data float64) float64 {
	d := 0.0
	if machines > r.MaxMachines {
		d += math.Log(machines / r.MaxMachines)
	} else if machines < r.MinMachines {
		d += math.Log(r.MinMachines / machines)
	}
	if data > r.MaxData*(1+dataTol) {
		d += math.Log(data / r.MaxData)
	} else if data < r.MinData*(1-dataTol) {
		d += math.Log(r.MinData / data)
	}
	return d
}

// dataTol is how much data sizes may differ and still count as one size
// (recurring jobs rarely read exactly the same bytes twice).
const dataTol = 0.02

// dataVaries reports whether the points' data sizes differ by more than dataTol.
func dataVaries(pts []Point) bool {
	r := rangeOf(pts)
	return r.MaxData > r.MinData*(1+dataTol)
}

// aggregate merges points of the same machines and (within dataTol in
// logarithm, binned) data size into one weighted point of their weighted
// mean runtime, so that models cost per distinct configuration, not per
// run. The order is by machines, then data.
func aggregate(pts []Point) []Point { return aggregateBy(pts, false) }

// aggregateBy is aggregate with the weighted median runtime instead of the
// mean when median is set: one run three times its configuration's others
// (a retried stage, a busy cluster) then moves no model.
func aggregateBy(pts []Point, median bool) []Point {
	type key struct {
		m   float64
		bin int64
	}
	groups := map[key][]Point{}
	var keys []key
	for _, p := range pts {
		k := key{p.Machines, int64(math.Round(math.Log(p.Data) / math.Log1p(dataTol)))}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], p)
	}
	out := make([]Point, 0, len(keys))
	for _, k := range keys {
		g := groups[k]
		s := Point{Machines: k.m}
		for _, p := range g {
			w := p.weight()
			s.Data += w * p.Data
			s.Runtime += w * p.Runtime
			s.Weight += w
		}
		s.Data /= s.Weight
		s.Runtime /= s.Weight
		if median && len(g) > 2 {
			s.Runtime = weightedMedian(g)
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Point) int {
		return cmp.Or(cmp.Compare(a.Machines, b.Machines), cmp.Compare(a.Data, b.Data))
	})
	return out
}

// weightedMedian is the runtime at half the points' total weight.
func weightedMedian(g []Point) float64 {
	s := slices.Clone(g)
	slices.SortFunc(s, func(a, b Point) int { return cmp.Compare(a.Runtime, b.Runtime) })
	total := 0.0
	for _, p := range s {
		total += p.weight()
	}
	acc := 0.0
	for i, p := range s {
		acc += p.weight()
		if acc > total/2 {
			return p.Runtime
		}
		if acc == total/2 && i+1 < len(s) {
			return (p.Runtime + s[i+1].Runtime) / 2
		}
	}
	return s[len(s)-1].Runtime
}

// distinct returns the sorted distinct values of f over the points.
func distinct(pts []Point, f func(Point) float64) []float64 {
	var v []float64
	for _, p := range pts {
		v = append(v, f(p))
	}
	slices.Sort(v)
	return slices.Compact(v)
}

func machinesOf(p Point) float64 { return p.Machines }
