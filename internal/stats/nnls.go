package stats

import (
	"fmt"
	"math"
)

// NNLS solves min ‖a·x − b‖₂ subject to x ≥ 0 by the active-set method of
// Lawson and Hanson (Solving Least Squares Problems, 1974, ch. 23, algorithm
// NNLS), the algorithm of scipy.optimize.nnls, to which TestNNLSAgainstScipy
// compares it. It returns x and the residual norm ‖a·x − b‖₂. Columns are
// scaled to unit largest magnitude first (the solution's signs, and so the
// problem, do not change), so mixed units solve accurately.
func NNLS(a *Dense, b []float64) ([]float64, float64, error) {
	if err := a.check("nnls"); err != nil {
		return nil, 0, err
	}
	if len(b) != a.N {
		return nil, 0, fmt.Errorf("nnls: %d rows, %d responses", a.N, len(b))
	}
	for i, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, fmt.Errorf("nnls: response %d is %v, want a finite number", i, v)
		}
	}
	n, p := a.N, a.D
	scale := make([]float64, p)
	s := NewDense(n, p)
	for j := range p {
		for i := range n {
			scale[j] = max(scale[j], math.Abs(a.X[i*p+j]))
		}
		if scale[j] == 0 {
			scale[j] = 1
		}
		for i := range n {
			s.X[i*p+j] = a.X[i*p+j] / scale[j]
		}
	}
	x := make([]float64, p)
	passive := make([]bool, p)
	resid := make([]float64, n)
	grad := make([]float64, p)
	tol := 10 * 2.220446049250313e-16 * float64(max(n, p)) * frobenius(s)
	for outer := 0; outer < 3*p+3; outer++ {
		residuals(s, b, x, resid)
		// w = sᵀ(b − s·x), the negative gradient.
		best, bestJ := tol, -1
		for j := range p {
			g := 0.0
			for i := range n {
				g += s.X[i*p+j] * resid[i]
			}
			grad[j] = g
			if !passive[j] && g > best {
				best, bestJ = g, j
			}
		}
		if bestJ < 0 {
			break
		}
		passive[bestJ] = true
		for inner := 0; inner < 3*p+3; inner++ {
			z, err := passiveSolve(s, b, passive)
			if err != nil {
				// The new column is dependent on the passive ones: drop it.
				passive[bestJ] = false
				break
			}
			feasible := true
			alpha := math.Inf(1)
			for j := range p {
				if passive[j] && z[j] <= 0 {
					feasible = false
					if d := x[j] - z[j]; d > 0 {
						alpha = min(alpha, x[j]/d)
					}
				}
			}
			if feasible {
				copy(x, z)
				break
			}
			if math.IsInf(alpha, 1) {
				alpha = 0
			}
			for j := range p {
				if passive[j] {
					x[j] += alpha * (z[j] - x[j])
					if x[j] <= tol {
						x[j] = 0
						passive[j] = false
					}
				}
			}
		}
	}
	residuals(s, b, x, resid)
	norm := 0.0
	for _, r := range resid {
		norm += r * r
	}
	for j := range x {
		x[j] /= scale[j]
	}
	return x, math.Sqrt(norm), nil
}

// passiveSolve is the unconstrained least-squares solution over the passive
// columns, zero elsewhere.
func passiveSolve(s *Dense, b []float64, passive []bool) ([]float64, error) {
	var cols []int
	for j, on := range passive {
		if on {
			cols = append(cols, j)
		}
	}
	sol, err := LeastSquares(s, b, nil, cols)
	if err != nil {
		return nil, err
	}
	z := make([]float64, s.D)
	for k, j := range cols {
		z[j] = sol[k]
	}
	return z, nil
}

func frobenius(m *Dense) float64 {
	s := 0.0
	for _, v := range m.X {
		s += v * v
	}
	return math.Sqrt(s)
}
