package predict

import (
	"fmt"
	"math"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// Amdahl is Amdahl's law as a runtime model: a serial part and a parallel
// part divided among the machines, t = θ0 + θp·s/m, with a serial data
// term θs·s kept apart when the data size varies (work such as the
// driver's that grows with the data but not with the machines). It is
// Ernest's model (NSDI'16, §3.2) without the communication terms, fitted
// the same way (non-negative least squares, so that every term keeps its
// meaning), and it needs only two configurations (three when the data
// size varies): the model of last resort when the runs are too few for
// Ernest, the kernel or C3O's.
type Amdahl struct {
	// Theta are θ0, θp and θs after Fit.
	Theta [3]float64 `json:"theta"`
}

// Name implements Model.
func (*Amdahl) Name() string { return "amdahl" }

// Fit implements Model.
func (a *Amdahl) Fit(pts []Point) error {
	if err := checkPoints(pts); err != nil {
		return err
	}
	agg := aggregate(pts)
	cols := 2
	if dataVaries(agg) {
		cols = 3
	}
	if len(agg) < cols || len(distinct(agg, machinesOf)) < 2 && cols == 2 {
		return &TooFewError{Model: "amdahl", Have: min(len(agg), len(distinct(agg, machinesOf))), Need: cols, What: "distinct (machines, data size) configurations"}
	}
	x := stats.NewDense(len(agg), cols)
	b := make([]float64, len(agg))
	for i, p := range agg {
		w := math.Sqrt(p.weight())
		f := []float64{1, p.Data / p.Machines, p.Data}
		for j := range cols {
			x.X[i*cols+j] = f[j] * w
		}
		b[i] = p.Runtime * w
	}
	th, _, err := stats.NNLS(x, b)
	if err != nil {
		return fmt.Errorf("amdahl: %w", err)
	}
	a.Theta = [3]float64{}
	copy(a.Theta[:], th)
	return nil
}

// Predict implements Model.
func (a *Amdahl) Predict(m, s float64) (float64, bool) {
	t := a.Theta[0] + a.Theta[1]*s/m + a.Theta[2]*s
	return t, t > 0
}
