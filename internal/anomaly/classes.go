package anomaly

import (
	"math"
	"sort"
)

// Rep is the representative point of a class in the two-class distance
// test (Ren et al., Algorithm 5, step 4).
type Rep uint8

const (
	// RepMaxMin represents the lower class by its maximum and the upper
	// class by its minimum (their nearest points), so the distance is the
	// gap between the classes.
	RepMaxMin Rep = iota
	// RepMedian represents each class by its median.
	RepMedian
)

// String names the representative as the flags and docs do.
func (r Rep) String() string {
	if r == RepMedian {
		return "median"
	}
	return "maxmin"
}

// twoClasses splits values (normalised, any order) into a lower and an
// upper class at the largest gap between consecutive sorted values (the
// single-linkage two-clustering of a line) and returns the members of the
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

// decades is how many orders of magnitude v is off ref, |log10(v/ref)|,
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
