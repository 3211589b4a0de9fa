package peer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// TestHistogramMatchesDefinition checks the incremental decayed window
// against its definition, Σ over the last W labels of decay^age.
func TestHistogramMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const bins, w, decay = 5, 7, 0.9
	h := newHistogram(bins, w, decay)
	var labels []int
	for step := range 40 {
		l := rng.IntN(bins)
		labels = append(labels, l)
		h.add(l)
		want := make([]float64, bins)
		for a := 0; a < w && a < len(labels); a++ {
			want[labels[len(labels)-1-a]] += math.Pow(decay, float64(a))
		}
		for i := range bins {
			if math.Abs(h.h[i]-want[i]) > 1e-9 {
				t.Fatalf("step %d bin %d: %g, want %g", step, i, h.h[i], want[i])
			}
		}
	}
}

// TestJSDistanceMatchesStats checks the entropy form against stats.JSDistance
// (the KL form, as scipy computes it).
func TestJSDistanceMatchesStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		n := 2 + rng.IntN(10)
		a, b := newHistogram(n, 20, 0.95), newHistogram(n, 20, 0.95)
		for range 1 + rng.IntN(30) {
			a.add(rng.IntN(n))
		}
		for range 1 + rng.IntN(30) {
			b.add(rng.IntN(min(n, 1+rng.IntN(n))))
		}
		p, q := make([]float64, n), make([]float64, n)
		hp, hq := a.normalize(p), b.normalize(q)
		got, want := jsDistance(p, q, hp, hq), stats.JSDistance(p, q)
		if math.Abs(got-want) > 1e-7 {
			t.Fatalf("p %v q %v: %g, want %g", p, q, got, want)
		}
	}
	p := []float64{1, 0}
	if d := jsDistance(p, []float64{0, 1}, 0, 0); math.Abs(d-math.Sqrt(math.Ln2)) > 1e-12 {
		t.Fatalf("disjoint: %g, want √ln2", d)
	}
}
