// Package stats holds the numerical methods clusterlens uses, one file per method.
package stats

import (
	"math"
	"slices"
)

// Quantiles returns the q-quantiles of values the way Spark's History Server
// computes task summaries (AppStatusStore.taskSummary): values sorted
// ascending, quantile q taken at index min(floor(q*n), n-1). values is
// sorted in place. With no values every quantile is NaN.
func Quantiles(values []float64, qs []float64) []float64 {
	out := make([]float64, len(qs))
	n := len(values)
	if n == 0 {
		for i := range out {
			out[i] = math.NaN()
		}
		return out
	}
	slices.Sort(values)
	for i, q := range qs {
		idx := int64(q * float64(n))
		if idx > int64(n-1) {
			idx = int64(n - 1)
		}
		if idx < 0 {
			idx = 0
		}
		out[i] = values[idx]
	}
	return out
}

// FiveNumber are the quantiles a summary shows: min, 25th, median, 75th, max.
var FiveNumber = []float64{0, 0.25, 0.5, 0.75, 1}
