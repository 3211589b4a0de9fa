package predict

import (
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// Pooled is C3O's collaborative idea (Will, Bader and Thamsen, "Towards
// Collaborative Optimization of Cluster Configurations for Distributed
// Dataflow Jobs", BigData'20; Will et al., C3O, IC2E'21: one model over
// the runs of many contexts with the context as features) in its simplest
// physical form: a power law whose exponents in machines and data size
// are shared by every group of runs (other jobs of the application, other
// machine types) and whose level is each group's own, ln t = α_g + b·ln m
// + c·ln s, fitted by least squares on logarithms over the target's runs
// and the pool's, b at most 0 (a speed-up law, as Power's). A group with
// few scale-outs borrows the shape of the others'. It is a candidate only
// when a pool is given, and chosen only when it validates better than the
// target's own models on the same splits.
type Pooled struct {
	// Pool are the other groups' runs; Keep, when set, filters them for
	// a cross-validation split (the split's held-out scale-outs must not
	// leak in through another group).
	Pool map[string][]Point `json:"-"`
	Keep func(Point) bool   `json:"-"`
	// Level is the target's α; B and C the shared exponents.
	Level float64 `json:"level"`
	B     float64 `json:"machinesExponent"`
	C     float64 `json:"dataExponent"`
}

// Name implements Model.
func (*Pooled) Name() string { return "pooled" }

// Fit implements Model: the target's runs (group 0) and the pool's; at
// least one configuration of the target and two machine counts overall.
func (pm *Pooled) Fit(pts []Point) error {
	if err := checkPoints(pts); err != nil {
		return err
	}
	groups := [][]Point{aggregate(pts)}
	for _, name := range slices.Sorted(mapKeysOf(pm.Pool)) {
		var g []Point
		for _, p := range pm.Pool[name] {
			if pm.Keep == nil || pm.Keep(p) {
				g = append(g, p)
			}
		}
		if len(g) > 0 {
			groups = append(groups, aggregate(g))
		}
	}
	var all []Point
	for _, g := range groups {
		all = append(all, g...)
	}
	if len(groups) < 2 || len(distinct(all, machinesOf)) < 2 {
		return &TooFewError{Model: "pooled", Have: len(groups) - 1, Need: 1, What: "other groups of runs at two or more machine counts"}
	}
	nd := len(groups) + 1
	withData := dataVaries(all)
	if withData {
		nd++
	}
	x := stats.NewDense(len(all), nd)
	y, w := make([]float64, len(all)), make([]float64, len(all))
	i := 0
	for gi, g := range groups {
		for _, p := range g {
			row := x.Row(i)
			row[gi] = 1
			row[len(groups)] = math.Log(p.Machines)
			if withData {
				row[len(groups)+1] = math.Log(p.Data)
			}
			y[i], w[i] = math.Log(p.Runtime), p.weight()
			i++
		}
	}
	c, err := stats.LeastSquares(x, y, w, nil)
	if err != nil {
		return err
	}
	if c[len(groups)] > 0 {
		// A speed-up law, as Power: refitted at b = 0.
		var cols []int
		for j := range nd {
			if j != len(groups) {
				cols = append(cols, j)
			}
		}
		if c, err = stats.LeastSquares(x, y, w, cols); err != nil {
			return err
		}
		c = slices.Insert(c, len(groups), 0)
	}
	pm.Level, pm.B, pm.C = c[0], c[len(groups)], 0
	if withData {
		pm.C = c[len(groups)+1]
	}
	return nil
}

// Predict implements Model.
func (pm *Pooled) Predict(m, s float64) (float64, bool) {
	return math.Exp(pm.Level + pm.B*math.Log(m) + pm.C*math.Log(s)), true
}

func mapKeysOf[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
