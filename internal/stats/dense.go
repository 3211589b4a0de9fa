package stats

import (
	"fmt"
	"math"
)

// Dense is a row-major N×D matrix: row i is X[i*D : (i+1)*D].
type Dense struct {
	N, D int
	X    []float64
}

// NewDense returns a zeroed n×d matrix.
func NewDense(n, d int) *Dense {
	return &Dense{N: n, D: d, X: make([]float64, n*d)}
}

// Row returns row i as a slice sharing the matrix's storage.
func (m *Dense) Row(i int) []float64 {
	return m.X[i*m.D : (i+1)*m.D : (i+1)*m.D]
}

// check reports whether m is a well-formed matrix with at least one row
// and one column and only finite values, naming what in an error.
func (m *Dense) check(what string) error {
	if m == nil {
		return fmt.Errorf("%s: nil matrix", what)
	}
	if m.N < 1 || m.D < 1 {
		return fmt.Errorf("%s: matrix is %d×%d, want at least 1×1", what, m.N, m.D)
	}
	if len(m.X) != m.N*m.D {
		return fmt.Errorf("%s: matrix %d×%d holds %d values, want %d", what, m.N, m.D, len(m.X), m.N*m.D)
	}
	for i, v := range m.X {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: row %d, column %d is %v, want a finite number", what, i/m.D, i%m.D, v)
		}
	}
	return nil
}
