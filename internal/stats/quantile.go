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
		out[i] = values[max(QuantileIndex(q, int64(n)), 0)]
	}
	return out
}

// QuantileIndex is the position of quantile q among n sorted values as
// Spark's AppStatusStore computes it: min((q * n).toLong, n - 1), with
// Java's double-to-long conversion (truncation, NaN to 0, saturation).
func QuantileIndex(q float64, n int64) int64 {
	f := q * float64(n)
	var idx int64
	switch {
	case math.IsNaN(f):
		idx = 0
	case f >= math.MaxInt64:
		idx = math.MaxInt64
	case f <= math.MinInt64:
		idx = math.MinInt64
	default:
		idx = int64(f)
	}
	return min(idx, n-1)
}

// FiveNumber are the quantiles a summary shows: min, 25th, median, 75th, max.
var FiveNumber = []float64{0, 0.25, 0.5, 0.75, 1}
