package predict

import (
	"math"
	"testing"
)

// TestPowerSpeedUpLaw: runs on the law t = 1000·m^−0.7·s give back its
// exponents; runs that grow with the machines are fitted at b = 0, the
// rest by least squares on logarithms (checked by the closed form of a
// simple regression).
func TestPowerSpeedUpLaw(t *testing.T) {
	var falling, growing, growingData []Point
	for _, m := range []float64{4, 8, 16, 32} {
		for _, s := range []float64{1, 2, 4} {
			falling = append(falling, Point{Machines: m, Data: s, Runtime: 1000 * math.Pow(m, -0.7) * s})
			growingData = append(growingData, Point{Machines: m, Data: s, Runtime: math.Sqrt(m) * s * (1 + 0.1*s)})
		}
		growing = append(growing, Point{Machines: m, Data: 1, Runtime: 3 * math.Pow(m, 1.5), Weight: m})
	}
	var p Power
	if err := p.Fit(falling); err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.Coef[0]-math.Log(1000)) > 1e-9 || math.Abs(p.Coef[1]+0.7) > 1e-9 || math.Abs(p.Coef[2]-1) > 1e-9 {
		t.Errorf("falling: coefficients %v, want ln 1000, −0.7, 1", p.Coef)
	}
	// Growing, one data size: the weighted mean of ln t, flat.
	if err := p.Fit(growing); err != nil {
		t.Fatal(err)
	}
	var sw, swy float64
	for _, q := range growing {
		sw += q.Weight
		swy += q.Weight * math.Log(q.Runtime)
	}
	if p.Coef[1] != 0 || math.Abs(p.Coef[0]-swy/sw) > 1e-9 {
		t.Errorf("growing: coefficients %v, want b = 0 and a = %g", p.Coef, swy/sw)
	}
	// Growing, data varying: ln t on ln s alone.
	if err := p.Fit(growingData); err != nil {
		t.Fatal(err)
	}
	var n, sx, sy, sxx, sxy float64
	for _, q := range growingData {
		x, y := math.Log(q.Data), math.Log(q.Runtime)
		n, sx, sy, sxx, sxy = n+1, sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	c := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	if p.Coef[1] != 0 || math.Abs(p.Coef[2]-c) > 1e-9 || math.Abs(p.Coef[0]-(sy-c*sx)/n) > 1e-9 {
		t.Errorf("growing with data: coefficients %v, want 0 for machines and %g, %g", p.Coef, (sy-c*sx)/n, c)
	}
}

// TestPooledSharesTheShape: groups on t = L_g·m^−0.5·s, each its own level,
// give back the shared exponents and the target's level, the target having
// one scale-out only; groups that grow with the machines are fitted at b = 0.
func TestPooledSharesTheShape(t *testing.T) {
	law := func(level, b, m, s float64) Point {
		return Point{Machines: m, Data: s, Runtime: level * math.Pow(m, b) * s}
	}
	pool := map[string][]Point{}
	for g, level := range map[string]float64{"a": 50, "b": 400} {
		for _, m := range []float64{4, 8, 16} {
			for _, s := range []float64{1, 3} {
				pool[g] = append(pool[g], law(level, -0.5, m, s))
			}
		}
	}
	target := []Point{law(120, -0.5, 8, 1), law(120, -0.5, 8, 3)}
	p := Pooled{Pool: pool}
	if err := p.Fit(target); err != nil {
		t.Fatal(err)
	}
	if math.Abs(p.B+0.5) > 1e-9 || math.Abs(p.C-1) > 1e-9 || math.Abs(p.Level-math.Log(120)) > 1e-9 {
		t.Errorf("level %g, exponents %g %g; want ln 120, −0.5, 1", p.Level, p.B, p.C)
	}
	for g := range pool {
		for i, q := range pool[g] {
			pool[g][i] = law(q.Runtime/math.Pow(q.Machines, -0.5)/q.Data, 0.8, q.Machines, q.Data)
		}
	}
	if err := p.Fit([]Point{law(120, 0.8, 8, 1), law(120, 0.8, 16, 1)}); err != nil || p.B != 0 {
		t.Errorf("growing with the machines: exponent %g (%v), want 0", p.B, err)
	}
}
