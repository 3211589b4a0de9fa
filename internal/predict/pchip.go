package predict

import (
	"errors"
	"math"
	"slices"
)

// Pchip interpolates the runtime between the fitted scale-outs with the
// shape-preserving piecewise cubic Hermite interpolant of Fritsch and
// Carlson ("Monotone Piecewise Cubic Interpolation", SIAM J. Numer. Anal.
// 17(2), 1980), with the derivatives of Fritsch and Butland (SIAM J. Sci.
// Stat. Comput. 5(2), 1984: the weighted harmonic mean of the neighbouring
// secants, 0 where they change sign; at the ends the one-sided three-point
// formula, kept to the end secant's sign and three times its size), as
// MATLAB's and SciPy's pchip compute them. It runs through each scale-out's
// runtime on logarithms of both axes, so a job that stops speeding up
// stays flat where its runs are flat and a steep drop stays between the
// scale-outs it was measured at, where a smooth curve (Ernest's, Bell's
// kernel) carries the drop over to its flat neighbours (Bell's PageRank:
// 1,486 s at 4 nodes, 287 s at 12 and flat beyond). Its knots are the
// scale-outs measured three times or more when some were (through a single
// run it would interpolate that run's noise: Ellis's k-means), every one
// otherwise. Beyond its knots it gives no answer, so the forward-chaining
// splits never choose it. It models the machines alone: it cannot be
// fitted where the data size varies.
type Pchip struct {
	x, y, d []float64 // ln machines, ln runtime, dy/dx at each
}

// Name implements Model.
func (*Pchip) Name() string { return "pchip" }

// errDataVaries is Pchip's refusal of runs of several data sizes.
var errDataVaries = errors.New("pchip interpolates along the machines alone, and the runs' data sizes vary")

// Fit implements Model: at least two distinct scale-outs of one data size.
func (p *Pchip) Fit(pts []Point) error {
	if err := checkPoints(pts); err != nil {
		return err
	}
	if dataVaries(pts) {
		return errDataVaries
	}
	agg := aggregate(pts)
	most := 0.0
	for _, q := range agg {
		most = max(most, q.weight())
	}
	agg = slices.DeleteFunc(agg, func(q Point) bool { return q.weight() < min(3, most) })
	if len(agg) < 2 {
		return &TooFewError{Model: "pchip", Have: len(agg), Need: 2, What: "distinct machine counts"}
	}
	p.x, p.y = make([]float64, len(agg)), make([]float64, len(agg))
	for i, q := range agg {
		p.x[i], p.y[i] = math.Log(q.Machines), math.Log(q.Runtime)
	}
	p.d = pchipSlopes(p.x, p.y)
	return nil
}

// pchipSlopes are the Fritsch–Butland derivatives at each knot (x
// increasing, at least two knots).
func pchipSlopes(x, y []float64) []float64 {
	n := len(x)
	d := make([]float64, n)
	h := make([]float64, n-1)
	s := make([]float64, n-1)
	for k := range h {
		h[k] = x[k+1] - x[k]
		s[k] = (y[k+1] - y[k]) / h[k]
	}
	if n == 2 {
		d[0], d[1] = s[0], s[0]
		return d
	}
	for k := 1; k < n-1; k++ {
		if s[k-1]*s[k] <= 0 {
			continue
		}
		w1, w2 := 2*h[k]+h[k-1], h[k]+2*h[k-1]
		d[k] = (w1 + w2) / (w1/s[k-1] + w2/s[k])
	}
	d[0] = pchipEnd(h[0], h[1], s[0], s[1])
	d[n-1] = pchipEnd(h[n-2], h[n-3], s[n-2], s[n-3])
	return d
}

// pchipEnd is the one-sided three-point derivative at an end, h0 and s0
// the end interval's width and secant, h1 and s1 the next one's.
func pchipEnd(h0, h1, s0, s1 float64) float64 {
	d := ((2*h0+h1)*s0 - h0*s1) / (h0 + h1)
	switch {
	case math.Signbit(d) != math.Signbit(s0) || d == 0:
		return 0
	case math.Signbit(s0) != math.Signbit(s1) && math.Abs(d) > 3*math.Abs(s0):
		return 3 * s0
	}
	return d
}

// Predict implements Model.
func (p *Pchip) Predict(m, _ float64) (float64, bool) {
	if len(p.x) == 0 {
		return 0, false
	}
	x := math.Log(m)
	if x < p.x[0]-1e-12 || x > p.x[len(p.x)-1]+1e-12 {
		return 0, false
	}
	x = min(max(x, p.x[0]), p.x[len(p.x)-1])
	k, found := slices.BinarySearch(p.x, x)
	if found {
		return math.Exp(p.y[k]), true
	}
	k-- // x lies in (p.x[k], p.x[k+1])
	h := p.x[k+1] - p.x[k]
	t := (x - p.x[k]) / h
	t2, t3 := t*t, t*t*t
	y := (2*t3-3*t2+1)*p.y[k] + (t3-2*t2+t)*h*p.d[k] + (-2*t3+3*t2)*p.y[k+1] + (t3-t2)*h*p.d[k+1]
	return math.Exp(y), true
}
