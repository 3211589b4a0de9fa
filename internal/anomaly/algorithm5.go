package anomaly

import (
	"math"
	"slices"
)

// Detect chooses how Algorithm 5 (Ren et al., HybridTune, §3.3.4,
// "An Outlier Detection Algorithm Based on Distance and Magnitude") splits
// one principal metric's values across the nodes and flags the outliers.
type Detect uint8

const (
	// DetectGap is clusterlens's reading, the default (docs/PAPERS.md
	// measures both): the magnitude test compares each node's value with
	// the other nodes' median in decades (|log10(v/median)| ≥ Orders);
	// the distance test splits the normalised values at their largest
	// gap and, when the two classes' representatives are more than DMin
	// apart, flags every node of the smaller class.
	DetectGap Detect = iota
	// DetectPaper is Algorithm 5 as written. Magnitude part (lines 1–12):
	// each value's order of magnitude, log10 truncated towards zero as the
	// paper's example has it (0.006838 → −2, 0.156 → 0), is compared with
	// the median order, the "center of mass"; a node at least Orders
	// orders from it is an outlier and leaves the distance part. Distance
	// part (lines 14–32) on the remaining nodes, normalised again (Formula
	// 8, or Scale): classes A and B are seeded with the maximum and the
	// minimum, each value joins the nearer seed (a tie joins B); each
	// point of the smaller class (B when they are equal) is an outlier
	// when its distance to the larger class's representative point (Rep)
	// exceeds DMin.
	DetectPaper
)

// String names the detector as the flags and docs do.
func (d Detect) String() string {
	if d == DetectPaper {
		return "paper"
	}
	return "gap"
}

// magnitudeOrder is Algorithm 5's order of magnitude of v: log10|v| truncated
// towards zero, magnitudes below floor raised to it (floor > 0), 0 for 0.
func magnitudeOrder(v, floor float64) float64 {
	a := max(math.Abs(v), floor)
	if a == 0 {
		return 0
	}
	return math.Trunc(math.Log10(a))
}

// paperOutliers runs DetectPaper on one metric: vals are the nodes'
// transformed values. It returns each node's distance from the median
// order and whether that made it a magnitude outlier, and each node's
// distance to the larger class's representative when it is in the smaller
// class (NaN otherwise).
func paperOutliers(vals []float64, p OutlierParams) (orders []float64, magnitude []bool, dist []float64) {
	n := len(vals)
	big := 0.0
	for _, v := range vals {
		big = max(big, math.Abs(v))
	}
	ord := make([]float64, n)
	for i, v := range vals {
		ord[i] = magnitudeOrder(v, p.Floor*big)
	}
	center := median(slices.Clone(ord))
	orders, magnitude, dist = make([]float64, n), make([]bool, n), make([]float64, n)
	var rest []int
	for i := range vals {
		orders[i] = math.Abs(ord[i] - center)
		magnitude[i] = p.Orders > 0 && orders[i] >= p.Orders
		dist[i] = math.NaN()
		if !magnitude[i] {
			rest = append(rest, i)
		}
	}
	if len(rest) < 2 {
		return orders, magnitude, dist
	}
	rv := make([]float64, len(rest))
	for k, i := range rest {
		rv[k] = vals[i]
	}
	u := p.Scale.apply(rv, 0)
	hi, lo := slices.Max(u), slices.Min(u)
	if hi == lo {
		return orders, magnitude, dist
	}
	var a, b []int // indexes into rest: nearer the maximum, nearer the minimum
	for k, x := range u {
		if hi-x < x-lo {
			a = append(a, k)
		} else {
			b = append(b, k)
		}
	}
	small, large, above := b, a, false // the smaller class lies below the larger one
	if len(a) < len(b) {
		small, large, above = a, b, true
	}
	lv := make([]float64, len(large))
	for k, j := range large {
		lv[k] = u[j]
	}
	var rep float64
	switch {
	case p.Rep == RepMedian:
		rep = median(lv)
	case (p.Rep == RepMaxMin) == above: // the larger class's point nearest the smaller class
		rep = slices.Max(lv)
	default:
		rep = slices.Min(lv)
	}
	for _, k := range small {
		dist[rest[k]] = math.Abs(u[k] - rep)
	}
	return orders, magnitude, dist
}
