package predict

import (
	"fmt"
	"math"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// Model is a completion-time model fitted from past runs alone.
type Model interface {
	// Name is the model's short name (ernest, kernel, optimistic, power, amdahl, pchip, flat).
	Name() string
	// Fit fits the model to the points; an error says why it cannot.
	Fit(pts []Point) error
	// Predict is the runtime on machines for data; ok is false where the
	// model has no answer (a non-positive value).
	Predict(machines, data float64) (runtime float64, ok bool)
}

// Ernest is the model of Venkataraman et al., "Ernest: Efficient
// Performance Prediction for Large-Scale Advanced Analytics" (NSDI'16,
// §3.2, eq. 1): t = θ0 + θ1·s/m + θ2·log m + θ3·m, a fixed cost, the
// parallel work of data scale s over m machines, tree-shaped aggregation
// and all-to-one communication, fitted by non-negative least squares so
// that every term keeps its meaning. The features and the NNLS fit are
// amplab/ernest's predictor.py (_get_features, scipy.optimize.nnls), which
// TestErnestReproducesPredictorPy checks on its own example.
type Ernest struct {
	// Theta are θ0..θ3 after Fit.
	Theta [4]float64 `json:"theta"`
}

// Name implements Model.
func (*Ernest) Name() string { return "ernest" }

func ernestFeatures(m, s float64) [4]float64 { return [4]float64{1, s / m, math.Log(m), m} }

// Fit implements Model. It needs runs at four or more distinct
// (machines, data) configurations, one per parameter.
func (e *Ernest) Fit(pts []Point) error {
	if err := checkPoints(pts); err != nil {
		return err
	}
	agg := aggregate(pts)
	if len(agg) < 4 {
		return &TooFewError{Model: "ernest", Have: len(agg), Need: 4, What: "distinct (machines, data size) configurations"}
	}
	a := stats.NewDense(len(agg), 4)
	b := make([]float64, len(agg))
	for i, p := range agg {
		f := ernestFeatures(p.Machines, p.Data)
		// Each configuration counts as many times as it ran: NNLS of the
		// rows scaled by √weight is NNLS over the runs.
		w := math.Sqrt(p.Weight)
		for j := range f {
			a.X[i*4+j] = f[j] * w
		}
		b[i] = p.Runtime * w
	}
	x, _, err := stats.NNLS(a, b)
	if err != nil {
		return fmt.Errorf("ernest: %w", err)
	}
	copy(e.Theta[:], x)
	return nil
}

// Predict implements Model.
func (e *Ernest) Predict(m, s float64) (float64, bool) {
	f := ernestFeatures(m, s)
	t := 0.0
	for j := range f {
		t += e.Theta[j] * f[j]
	}
	return t, t > 0
}

// TooFewError says a model cannot be fitted from the runs it was given:
// how many it has and how many it needs, of what kind.
type TooFewError struct {
	Model      string
	Have, Need int
	What       string
	// Hint says which runs would help (sizes, machines), when known.
	Hint string
}

func (e *TooFewError) Error() string {
	s := fmt.Sprintf("%s: %d %s, need %d (%d more)", e.Model, e.Have, e.What, e.Need, e.Need-e.Have)
	if e.Hint != "" {
		s += ": " + e.Hint
	}
	return s
}
