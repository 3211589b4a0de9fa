package stats

// MinMax rescales x to [0, 1] as (x-min)/(max-min), like scikit-learn's
// MinMaxScaler on one feature. A constant series (max == min) maps to all
// zeros, as MinMaxScaler does. The result is a new slice; NaNs propagate.
func MinMax(x []float64) []float64 {
	out := make([]float64, len(x))
	if len(x) == 0 {
		return out
	}
	lo, hi := x[0], x[0]
	for _, v := range x[1:] {
		lo = min(lo, v)
		hi = max(hi, v)
	}
	span := hi - lo
	if span == 0 {
		return out
	}
	for i, v := range x {
		out[i] = (v - lo) / span
	}
	return out
}
