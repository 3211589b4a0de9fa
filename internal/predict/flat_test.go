package predict

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestFlatLeastRelativeError checks Flat's value against a brute-force
// search: the summed relative error Σ wᵢ|T−yᵢ|/yᵢ is piecewise linear in T,
// so its least is at one of the runtimes, and no runtime may do better.
func TestFlatLeastRelativeError(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	loss := func(pts []Point, v float64) float64 {
		s := 0.0
		for _, p := range pts {
			s += p.weight() * math.Abs(v-p.Runtime) / p.Runtime
		}
		return s
	}
	for trial := range 500 {
		var pts []Point
		for range 1 + rng.IntN(12) {
			// Runtimes over three orders of magnitude, as Ellis's k-means.
			pts = append(pts, Point{Machines: float64(1 + rng.IntN(40)), Data: 5, Runtime: math.Exp(7 * rng.Float64()), Weight: float64(rng.IntN(4))})
		}
		var f Flat
		if err := f.Fit(pts); err != nil {
			t.Fatal(err)
		}
		agg := aggregate(pts)
		best := math.Inf(1)
		for _, p := range agg {
			best = min(best, loss(agg, p.Runtime))
		}
		if got := loss(agg, f.T); got > best*(1+1e-9) {
			t.Fatalf("trial %d: flat %g has summed relative error %g, a runtime has %g", trial, f.T, got, best)
		}
		if v, ok := f.Predict(1000, 5); !ok || v != f.T {
			t.Fatalf("trial %d: predicted %g (ok %v), want %g everywhere", trial, v, ok, f.T)
		}
	}
	// A job of 3 s that twice took 200 s: the value stays at 3 s.
	var f Flat
	if err := f.Fit([]Point{{Machines: 4, Data: 1, Runtime: 3}, {Machines: 8, Data: 1, Runtime: 200}, {Machines: 12, Data: 1, Runtime: 3.2}, {Machines: 16, Data: 1, Runtime: 200}}); err != nil || f.T < 3 || f.T > 3.2 {
		t.Fatalf("flat %g (%v), want 3 to 3.2", f.T, err)
	}
	if err := f.Fit([]Point{{Machines: 4, Data: 1, Runtime: 3}, {Machines: 4, Data: 2, Runtime: 6}}); !errors.Is(err, errFlatDataVaries) {
		t.Fatalf("two data sizes: %v, want a refusal", err)
	}
}
