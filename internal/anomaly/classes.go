package anomaly

import (
	"math"
	"sort"
)

// Rep is the representative point of a class in Algorithm 5's distance
// test (Ren et al., HybridTune, §3.3.4, Algorithm 5, lines 23 and 28:
// "the max/min value of larger class" or its median; the paper measures
// both in §5.3.3).
type Rep uint8

const (
	// RepMaxMin represents the lower class by its maximum and the upper
	// class by its minimum (their nearest points), so the distance is the
	// gap between the classes.
	RepMaxMin Rep = iota
	// RepMedian represents each class by its median.
	RepMedian
	// RepFar is the other reading of the paper's "max/min": the lower
	// class by its minimum and the upper by its maximum (their farthest
	// points). The paper reports max/min with a higher recall and a lower
	// precision than the median (§5.3.3), which only this reading can
	// give; docs/PAPERS.md measures the three.
	RepFar
)

// String names the representative as the flags and docs do.
func (r Rep) String() string {
	switch r {
	case RepMedian:
		return "median"
	case RepFar:
		return "far"
	}
	return "maxmin"
}

// twoClasses is Algorithm 5's distance test as DetectGap reads it: it
// splits values (normalised, any order) into a lower and an upper class at
// the largest gap between consecutive sorted values (the single-linkage
// two-clustering of a line) and returns the members of the
// smaller class, as indexes into values, and the distance between the
// classes' representative points. It returns no members when the classes
// are the same size (no minority to call an outlier) or fewer than two
// values differ.
func twoClasses(values []float64, rep Rep) (minority []int, dist float64) {
	n := len(values)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return values[order[a]] < values[order[b]] })
	k, gap := 0, 0.0
	for i := 1; i < n; i++ {
		if g := values[order[i]] - values[order[i-1]]; g > gap {
			k, gap = i, g
		}
	}
	if k == 0 || 2*k == n {
		return nil, 0
	}
	dist = gap
	if rep == RepFar {
		dist = values[order[n-1]] - values[order[0]]
	}
	if rep == RepMedian {
		lo := make([]float64, 0, k)
		hi := make([]float64, 0, n-k)
		for i, o := range order {
			if i < k {
				lo = append(lo, values[o])
			} else {
				hi = append(hi, values[o])
			}
		}
		dist = math.Abs(median(hi) - median(lo))
	}
	if 2*k < n {
		return order[:k], dist
	}
	return order[k:], dist
}

// decades is Algorithm 5's magnitude test as DetectGap reads it: how many
// orders of magnitude v is off ref, |log10(v/ref)|,
// with magnitudes below floor raised to floor (floor > 0) so that a zero
// is not infinitely far from a small number.
func decades(v, ref, floor float64) float64 {
	a := max(math.Abs(v), floor)
	b := max(math.Abs(ref), floor)
	if a == 0 || b == 0 {
		return 0
	}
	return math.Abs(math.Log10(a / b))
}
