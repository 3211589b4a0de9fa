package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ErrRankDeficient is returned when a least-squares problem has fewer
// independent rows than unknowns (too few distinct points for the model).
var ErrRankDeficient = errors.New("least squares: rank deficient")

// LeastSquares solves min Σ wᵢ (yᵢ − xᵢ·β)² for β over the columns cols of
// x (nil: all), with w nil for equal weights. Columns are scaled to unit
// largest magnitude before a Householder QR (gonum), so byte counts beside
// an intercept column solve as accurately as small numbers.
func LeastSquares(x *Dense, y, w []float64, cols []int) ([]float64, error) {
	if err := x.check("least squares"); err != nil {
		return nil, err
	}
	if len(y) != x.N || w != nil && len(w) != x.N {
		return nil, fmt.Errorf("least squares: %d rows, %d responses, %d weights", x.N, len(y), len(w))
	}
	if cols == nil {
		cols = make([]int, x.D)
		for j := range cols {
			cols[j] = j
		}
	}
	p := len(cols)
	rows := 0
	for i := range x.N {
		if w == nil || w[i] > 0 {
			rows++
		}
	}
	if rows < p || p == 0 {
		return nil, fmt.Errorf("%w: %d weighted rows for %d unknowns", ErrRankDeficient, rows, p)
	}
	scale := make([]float64, p)
	for k, j := range cols {
		for i := range x.N {
			scale[k] = max(scale[k], math.Abs(x.X[i*x.D+j]))
		}
		if scale[k] == 0 {
			return nil, fmt.Errorf("%w: column %d is all zero", ErrRankDeficient, j)
		}
	}
	a := mat.NewDense(rows, p, nil)
	b := mat.NewDense(rows, 1, nil)
	r := 0
	for i := range x.N {
		sw := 1.0
		if w != nil {
			if w[i] <= 0 {
				continue
			}
			sw = math.Sqrt(w[i])
		}
		for k, j := range cols {
			a.Set(r, k, sw*x.X[i*x.D+j]/scale[k])
		}
		b.Set(r, 0, sw*y[i])
		r++
	}
	var qr mat.QR
	qr.Factorize(a)
	if c := qr.Cond(); math.IsInf(c, 1) || c > 1e13 {
		return nil, fmt.Errorf("%w: condition number %.3g", ErrRankDeficient, c)
	}
	var beta mat.Dense
	if err := qr.SolveTo(&beta, false, b); err != nil {
		return nil, fmt.Errorf("least squares: %w", err)
	}
	out := make([]float64, p)
	for k := range out {
		out[k] = beta.At(k, 0) / scale[k]
	}
	return out, nil
}
