package sim

import (
	"math"
	"math/rand/v2"
)

// newRNG returns the generator of one stream of the simulation. Streams are
// separate so that, for example, adding metrics does not change task times.
func newRNG(seed uint64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15^stream))
}

// lognormal returns exp(N(0, sigma)), a multiplicative noise of median 1.
func lognormal(rng *rand.Rand, sigma float64) float64 {
	return math.Exp(rng.NormFloat64() * sigma)
}

// zipfWeights returns n weights proportional to 1/rank^s, in random order,
// scaled so that they sum to n (a mean of 1).
func zipfWeights(rng *rand.Rand, n int, s float64) []float64 {
	w := make([]float64, n)
	var sum float64
	for i := range w {
		w[i] = 1 / math.Pow(float64(i+1), s)
		sum += w[i]
	}
	for i := range w {
		w[i] *= float64(n) / sum
	}
	rng.Shuffle(n, func(i, j int) { w[i], w[j] = w[j], w[i] })
	return w
}

// jitterWeights returns n weights near 1 (sigma log-normal), summing to n.
func jitterWeights(rng *rand.Rand, n int, sigma float64) []float64 {
	w := make([]float64, n)
	var sum float64
	for i := range w {
		w[i] = lognormal(rng, sigma)
		sum += w[i]
	}
	for i := range w {
		w[i] *= float64(n) / sum
	}
	return w
}
