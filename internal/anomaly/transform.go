package anomaly

import (
	"math"
	"math/cmplx"
	"slices"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// Transform is HybridTune's Algorithm 4, the time-series transformation
// (Ren et al., §3.3.4): it turns a metric's series over a stage into the
// one value Algorithm 5 compares across nodes.
type Transform uint8

const (
	// TransformMean is the series' mean (Formula 6): the level of the metric.
	TransformMean Transform = iota
	// TransformFFT reduces the series' discrete Fourier transform (Formula
	// 7) to one value, as Algorithm 4's reduction data set needs (the paper
	// does not say which; this is ours): the amplitude of its dominant frequency,
	// max over 1 ≤ k ≤ n/2 of |X[k]|/n with X = stats.FFTReal(series) (the
	// zero-frequency term, which is the mean, is left out): how strongly
	// the metric oscillates, whatever its level.
	TransformFFT
)

// String names the transform as the flags and docs do.
func (t Transform) String() string {
	if t == TransformFFT {
		return "fft"
	}
	return "mean"
}

// value applies t to series, skipping NaNs (0 for an empty series).
func (t Transform) value(series []float64) float64 {
	if slices.ContainsFunc(series, math.IsNaN) {
		series = slices.DeleteFunc(slices.Clone(series), math.IsNaN)
	}
	n := len(series)
	if n == 0 {
		return 0
	}
	if t == TransformFFT {
		if n < 2 {
			return 0
		}
		x := stats.FFTReal(series)
		best := 0.0
		for k := 1; k <= n/2; k++ {
			best = max(best, cmplx.Abs(x[k]))
		}
		return best / float64(n)
	}
	var s float64
	for _, v := range series {
		s += v
	}
	return s / float64(n)
}
