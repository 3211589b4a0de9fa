package predict

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPchipMatchesSciPy checks the interpolant against SciPy's
// PchipInterpolator (1.10.1) on ln runtime over ln machines, computed
// independently:
//
//	f = scipy.interpolate.PchipInterpolator(np.log(m), np.log(t))
//	np.exp(f(np.log(q)))
//
// The first table is shaped like Bell's PageRank (a steep drop from 4 to
// 12 nodes, flat beyond), the second has a peak (both secants' signs
// change) and the third two knots.
func TestPchipMatchesSciPy(t *testing.T) {
	cases := []struct {
		m, t []float64
		want map[float64]float64
	}{
		{[]float64{4, 12, 16, 20, 24, 28, 32}, []float64{1500, 290, 280, 265, 275, 260, 250},
			map[float64]float64{5: 878.4157026344502, 8: 388.92817037456797, 10: 314.1774284934924, 14: 284.3979931085661,
				18: 270.59261093378416, 22: 270.2950405746523, 30: 254.51621717282626}},
		{[]float64{2, 3, 7}, []float64{10, 30, 12}, map[float64]float64{2.5: 22.469840151891315, 4: 28.943133726554077, 6: 18.165910133670412}},
		{[]float64{2, 5}, []float64{10, 4}, map[float64]float64{3: 6.666666666666667}},
	}
	for _, c := range cases {
		var pts []Point
		for i := range c.m {
			pts = append(pts, Point{Machines: c.m[i], Data: 1, Runtime: c.t[i]})
		}
		var p Pchip
		if err := p.Fit(pts); err != nil {
			t.Fatal(err)
		}
		for q, want := range c.want {
			got, ok := p.Predict(q, 1)
			if !ok || math.Abs(got-want) > 1e-9*want {
				t.Errorf("%v at %g machines: %g, %v; SciPy %g", c.m, q, got, ok, want)
			}
		}
		for i, m := range c.m {
			if got, _ := p.Predict(m, 1); math.Abs(got-c.t[i]) > 1e-9*c.t[i] {
				t.Errorf("%v at knot %g: %g, want %g", c.m, m, got, c.t[i])
			}
		}
	}
}

// TestPchipShape checks what the model is for: between runs that fall
// monotonically it falls monotonically, never beyond the neighbours'
// values, and beyond the runs it gives no answer.
func TestPchipShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := 3 + rng.IntN(8)
		var pts []Point
		m, y := 1.0, 1000.0
		for range n {
			m += 1 + float64(rng.IntN(6))
			y *= 0.3 + 0.7*rng.Float64()
			pts = append(pts, Point{Machines: m, Data: 1, Runtime: y})
		}
		var p Pchip
		if err := p.Fit(pts); err != nil {
			t.Fatal(err)
		}
		prev := math.Inf(1)
		for q := pts[0].Machines; q <= m; q += 0.05 {
			v, ok := p.Predict(q, 1)
			if !ok || v > prev*(1+1e-12) || v > pts[0].Runtime*(1+1e-12) || v < y*(1-1e-12) {
				t.Fatalf("trial %d: at %g machines %g (ok %v) after %g: not monotone within [%g, %g]", trial, q, v, ok, prev, y, pts[0].Runtime)
			}
			prev = v
		}
		if _, ok := p.Predict(m+1, 1); ok {
			t.Fatalf("trial %d: answered beyond the runs", trial)
		}
	}
}

// TestPchipKnots checks that a configuration measured fewer than three
// times, where others were measured three times or more, is no knot (one
// stray run, Ellis's k-means job at 22 nodes taking 35 s among runs of
// 3–6 s, would otherwise bend the curve through it), that single runs
// everywhere all are, and that varying data sizes are refused.
func TestPchipKnots(t *testing.T) {
	runs := func(m, v float64, n int) []Point {
		var out []Point
		for range n {
			out = append(out, Point{Machines: m, Data: 1, Runtime: v})
		}
		return out
	}
	var pts []Point
	pts = append(pts, runs(8, 4000, 3)...)
	pts = append(pts, runs(22, 35000, 1)...)
	pts = append(pts, runs(36, 6000, 4)...)
	var p Pchip
	if err := p.Fit(pts); err != nil {
		t.Fatal(err)
	}
	if v, _ := p.Predict(22, 1); v > 6000 {
		t.Errorf("a single stray run bent the curve: %g at 22 machines", v)
	}
	single := append(runs(8, 4000, 1), append(runs(22, 35000, 1), runs(36, 6000, 1)...)...)
	if err := p.Fit(single); err != nil {
		t.Fatal(err)
	}
	if v, _ := p.Predict(22, 1); math.Abs(v-35000) > 1e-6 {
		t.Errorf("single runs everywhere: %g at 22 machines, want the run's 35000", v)
	}
	if err := p.Fit([]Point{{Machines: 2, Data: 1, Runtime: 5}, {Machines: 4, Data: 10, Runtime: 5}}); !errors.Is(err, errDataVaries) {
		t.Errorf("varying data: %v, want %v", err, errDataVaries)
	}
	var tf *TooFewError
	if err := p.Fit(runs(4, 10, 3)); !errors.As(err, &tf) {
		t.Errorf("one scale-out: %v, want too few", err)
	}
}

// FuzzPchip: on any table, between two neighbouring knots the interpolant
// stays within their values (pchip is monotone on every interval), and it
// answers nothing beyond its knots.
func FuzzPchip(f *testing.F) {
	f.Add([]byte{4, 200, 12, 30, 16, 29, 20, 31})
	f.Add([]byte{2, 10, 3, 30, 7, 12})
	f.Add([]byte{1, 1, 2, 255, 3, 1, 4, 255, 5, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		var pts []Point
		for i := 0; i+1 < len(b) && len(pts) < 12; i += 2 {
			pts = append(pts, Point{Machines: float64(b[i]) + 1, Data: 1, Runtime: float64(b[i+1]) + 1})
		}
		var p Pchip
		if p.Fit(pts) != nil {
			return
		}
		for i := 1; i < len(p.x); i++ {
			a, b := math.Exp(p.y[i-1]), math.Exp(p.y[i])
			lo, hi := min(a, b), max(a, b)
			for k := range 21 {
				m := math.Exp(p.x[i-1] + (p.x[i]-p.x[i-1])*float64(k)/20)
				v, ok := p.Predict(m, 1)
				if !ok || v < lo*(1-1e-9) || v > hi*(1+1e-9) {
					t.Fatalf("%v: at %g machines %g (ok %v), outside its knots' [%g, %g]", pts, m, v, ok, lo, hi)
				}
			}
		}
		if _, ok := p.Predict(math.Exp(p.x[len(p.x)-1])*1.01, 1); ok {
			t.Fatalf("%v: answered beyond the runs", pts)
		}
	})
}
