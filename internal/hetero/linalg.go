package hetero

import "math"

// solveSPD solves A x = b for a small symmetric positive definite A (k×k,
// row-major), in place by Cholesky: b becomes x and A its factor. It
// reports false when A is not positive definite.
func solveSPD(a, b []float64, k int) bool {
	for j := 0; j < k; j++ {
		s := a[j*k+j]
		for p := 0; p < j; p++ {
			s -= a[j*k+p] * a[j*k+p]
		}
		if s <= 0 {
			return false
		}
		d := math.Sqrt(s)
		a[j*k+j] = d
		for i := j + 1; i < k; i++ {
			t := a[i*k+j]
			for p := 0; p < j; p++ {
				t -= a[i*k+p] * a[j*k+p]
			}
			a[i*k+j] = t / d
		}
	}
	for i := 0; i < k; i++ {
		t := b[i]
		for p := 0; p < i; p++ {
			t -= a[i*k+p] * b[p]
		}
		b[i] = t / a[i*k+i]
	}
	for i := k - 1; i >= 0; i-- {
		t := b[i]
		for p := i + 1; p < k; p++ {
			t -= a[p*k+i] * b[p]
		}
		b[i] = t / a[i*k+i]
	}
	return true
}

// inverseSPD returns the inverse of a small SPD matrix (k×k, row-major),
// nil when it is not positive definite.
func inverseSPD(a []float64, k int) []float64 {
	inv := make([]float64, k*k)
	col := make([]float64, k)
	f := make([]float64, k*k)
	for j := 0; j < k; j++ {
		copy(f, a)
		clear(col)
		col[j] = 1
		if !solveSPD(f, col, k) {
			return nil
		}
		for i := 0; i < k; i++ {
			inv[i*k+j] = col[i]
		}
	}
	return inv
}

// quad is xᵀ M y for k×k M.
func quad(x []float64, m []float64, y []float64) float64 {
	k := len(x)
	s := 0.0
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			s += x[i] * m[i*k+j] * y[j]
		}
	}
	return s
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
