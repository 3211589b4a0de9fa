package sharedtest

import "math"

// StdErr is the standard error of the mean of xs (+Inf for fewer than two):
// the agreement tests' bound for instantaneous counts two readers take a
// few milliseconds apart.
func StdErr(xs []float64) float64 {
	if len(xs) < 2 {
		return math.Inf(1)
	}
	var m, v float64
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += (x - m) * (x - m)
	}
	return math.Sqrt(v / float64(len(xs)-1) / float64(len(xs)))
}
