package peer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMeanWindow checks the incremental decayed window mean against the
// sum written out, before and after the window fills and wraps.
func TestMeanWindow(t *testing.T) {
	const window, decay, d = 7, 0.9, 3
	rng := rand.New(rand.NewPCG(1, 2))
	m := newMeanWindow(d, window, decay)
	var seen [][]float64
	for i := range 40 {
		z := []float64{rng.NormFloat64(), 100 * rng.Float64(), float64(i)}
		m.add(z)
		for j := range z {
			z[j] = float64(float32(z[j])) // as the window keeps them
		}
		seen = append(seen, z)
		for j := range d {
			num, den, w := 0.0, 0.0, 1.0
			for a := 0; a < min(window, len(seen)); a++ {
				num += w * seen[len(seen)-1-a][j]
				den += w
				w *= decay
			}
			if want, got := num/den, m.mean(j); math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Fatalf("after %d samples, metric %d: mean %g, want %g", i+1, j, got, want)
			}
		}
	}
	if m.n != window {
		t.Errorf("n %d, want %d", m.n, window)
	}
	if e := newMeanWindow(d, window, decay); e.mean(0) != 0 {
		t.Errorf("empty window's mean %g, want 0", e.mean(0))
	}
}
