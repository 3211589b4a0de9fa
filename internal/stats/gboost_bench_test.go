package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkGradientBoosting fits C3O's setting (1000 trees of depth 3 at
// 0.1) on 200 runs (machines, data size): what a recurring job's history
// aggregates to (docs/PERFORMANCE.md).
func BenchmarkGradientBoosting(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 200
	x := NewDense(n, 2)
	y := make([]float64, n)
	for i := range n {
		m, d := float64(2+rng.IntN(62)), 50+rng.Float64()*100
		x.X[2*i], x.X[2*i+1] = m, d
		y[i] = 20 + 300*d/m + 2*math.Log(m) + rng.NormFloat64()
	}
	b.ReportAllocs()
	b.SetBytes(n * 3 * 8)
	for b.Loop() {
		if _, err := GradientBoosting(x, y, nil, BoostOptions{LearningRate: 0.1, Trees: 1000}); err != nil {
			b.Fatal(err)
		}
	}
}
