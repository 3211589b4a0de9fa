package stats

import (
	"fmt"
	"math"
	"slices"
)

// Norm is the robust criterion whose weights IRLS uses.
type Norm uint8

// Norms.
const (
	// Bisquare is Tukey's biweight, w(r) = (1 − (r/c)²)² for |r| < c, else
	// 0 (default c = 4.685, 95% efficiency under normal errors).
	Bisquare Norm = iota
	// Huber is Huber's T, w(r) = 1 for |r| ≤ c, else c/|r| (default c =
	// 1.345).
	Huber
)

// RobustOptions tune IRLS. Zero fields take the defaults.
type RobustOptions struct {
	Norm Norm
	// Tuning is the norm's constant c (4.685 bisquare, 1.345 Huber).
	Tuning float64
	// MaxIter caps the reweighting steps (default 50).
	MaxIter int
	// Tol stops the iteration when no coefficient moves by more than Tol
	// times its magnitude (default 1e-10).
	Tol float64
}

// RobustFit is a robust linear fit.
type RobustFit struct {
	// Coef are the coefficients, one per column of the design matrix.
	Coef []float64
	// Scale is the residual scale the weights were computed with: the
	// median absolute residual over 0.6745 (MAD about 0).
	Scale float64
	// Weights are the final observation weights in [0, 1].
	Weights    []float64
	Iterations int
	Converged  bool
}

// IRLS fits y ≈ x·β robustly by iteratively reweighted least squares
// (Holland and Welsch, "Robust regression using iteratively reweighted
// least-squares", Communications in Statistics 6(9), 1977): start from
// ordinary least squares, then repeat — scale the residuals by their MAD
// about zero, weight each observation by the norm, solve the weighted least
// squares — until the coefficients settle. It is the iteration of
// statsmodels' RLM(M=TukeyBiweight()).fit(scale_est="mad") (or HuberT), to
// which TestIRLSAgainstStatsmodels compares it. Include a column of ones in
// x for an intercept. A perfect fit (zero scale) stops with the current
// coefficients.
func IRLS(x *Dense, y []float64, opt RobustOptions) (*RobustFit, error) {
	if opt.Tuning <= 0 {
		opt.Tuning = 4.685
		if opt.Norm == Huber {
			opt.Tuning = 1.345
		}
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 50
	}
	if opt.Tol <= 0 {
		opt.Tol = 1e-10
	}
	for i, v := range y {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("robust regression: response %d is %v, want a finite number", i, v)
		}
	}
	coef, err := LeastSquares(x, y, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("robust regression: %w", err)
	}
	fit := &RobustFit{Coef: coef, Weights: make([]float64, x.N)}
	resid := make([]float64, x.N)
	abs := make([]float64, x.N)
	for it := 1; it <= opt.MaxIter; it++ {
		residuals(x, y, fit.Coef, resid)
		fit.Scale = madZero(resid, abs)
		if fit.Scale == 0 {
			fit.Converged = true
			for i := range fit.Weights {
				fit.Weights[i] = 1
			}
			return fit, nil
		}
		for i, r := range resid {
			fit.Weights[i] = opt.Norm.weight(r/fit.Scale, opt.Tuning)
		}
		next, err := LeastSquares(x, y, fit.Weights, nil)
		if err != nil {
			return nil, fmt.Errorf("robust regression, step %d: %w", it, err)
		}
		fit.Iterations = it
		moved := false
		for j := range next {
			if math.Abs(next[j]-fit.Coef[j]) > opt.Tol*max(math.Abs(next[j]), 1e-300) {
				moved = true
			}
		}
		fit.Coef = next
		if !moved {
			fit.Converged = true
			break
		}
	}
	residuals(x, y, fit.Coef, resid)
	if s := madZero(resid, abs); s > 0 {
		fit.Scale = s
	}
	return fit, nil
}

func (n Norm) weight(r, c float64) float64 {
	a := math.Abs(r)
	if n == Huber {
		if a <= c {
			return 1
		}
		return c / a
	}
	if a >= c {
		return 0
	}
	u := 1 - (r/c)*(r/c)
	return u * u
}

func residuals(x *Dense, y, coef, out []float64) {
	for i := range x.N {
		row := x.Row(i)
		s := 0.0
		for j, b := range coef {
			s += row[j] * b
		}
		out[i] = y[i] - s
	}
}

// madZero is median(|r|)/Φ⁻¹(3/4), the MAD about zero statsmodels' RLM
// scales residuals with; buf is scratch of len(r).
func madZero(r, buf []float64) float64 {
	for i, v := range r {
		buf[i] = math.Abs(v)
	}
	slices.Sort(buf)
	n := len(buf)
	var med float64
	if n%2 == 1 {
		med = buf[n/2]
	} else {
		med = (buf[n/2-1] + buf[n/2]) / 2
	}
	return med / 0.6744897501960817
}
