package predict

import (
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
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

// TestFlatWithoutTrend: on runs whose time does not follow the machines
// (100 s ± 30% at 4–32 machines, seven runs each) flat validates as well as
// the best curve (Amdahl's law, fitted flat) and says what it means when
// used; on runs that halve with the machines it validates far worse and is
// not chosen.
func TestFlatWithoutTrend(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var noisy, scaling []Point
	for m := 4.0; m <= 32; m += 4 {
		for range 7 {
			noisy = append(noisy, Point{Machines: m, Data: 1, Runtime: 100 * (0.7 + 0.6*rng.Float64())})
			scaling = append(scaling, Point{Machines: m, Data: 1, Runtime: 4000 / m * (0.98 + 0.04*rng.Float64())})
		}
	}
	e, err := FromRuns(&RunTable{Points: noisy, Unit: "s"}, 40, 1, ChoiceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	best := slices.Min(slices.Collect(maps.Values(e.Choice.Scores)))
	if f := e.Choice.Scores["flat"]; f > best*1.01 || e.Value < 90 || e.Value > 110 {
		t.Fatalf("no trend: %s says %g s; flat's error %g against the best %g", e.Model, e.Value, f, best)
	}
	if e, err = FromRuns(&RunTable{Points: noisy, Unit: "s"}, 40, 1, ChoiceOptions{Models: []string{"flat"}}); err != nil || e.Model != "flat" ||
		!slices.ContainsFunc(e.Notes, func(n string) bool { return strings.HasPrefix(n, "flat: ") }) {
		t.Fatalf("flat: %v, %v: want its note", e, err)
	}
	e, err = FromRuns(&RunTable{Points: scaling, Unit: "s"}, 40, 1, ChoiceOptions{})
	if err != nil || e.Model == "flat" || e.Choice.Scores["flat"] < 10*e.Choice.Scores[e.Model] {
		t.Fatalf("runs halving with the machines: %v, %v", e, err)
	}
}
