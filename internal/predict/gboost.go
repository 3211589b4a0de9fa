package predict

import (
	"github.com/clusterlens/clusterlens/internal/stats"
)

// GBoost is C3O's gradient-boosting model (Will et al., IC2E'21;
// dos-group/c3o, RuntimePrediction/DefaultModels.py, GradientBoosting:
// scikit-learn's GradientBoostingRegressor with learning rate 0.1 and 1000
// trees, its other parameters the defaults — least squares, trees of depth
// 3 — on standardized features, which trees split alike unstandardized):
// runtime on machines and data size (stats.GradientBoosting). Trees are
// flat beyond the runs, so it answers a question outside them with the
// nearest runs' level, as the kernel model does.
type GBoost struct {
	fit *stats.Boosted
}

// C3O's gradient-boosting parameters.
const (
	gboostRate  = 0.1
	gboostTrees = 1000
)

// Name implements Model.
func (*GBoost) Name() string { return "gboost" }

// Fit implements Model: any two configurations (machines, data size).
func (g *GBoost) Fit(pts []Point) error {
	if err := checkPoints(pts); err != nil {
		return err
	}
	agg := aggregate(pts)
	if len(agg) < 2 {
		return &TooFewError{Model: "gboost", Have: len(agg), Need: 2, What: "distinct configurations"}
	}
	x := stats.NewDense(len(agg), 2)
	y := make([]float64, len(agg))
	w := make([]float64, len(agg))
	for i, p := range agg {
		x.X[2*i], x.X[2*i+1] = p.Machines, p.Data
		y[i], w[i] = p.Runtime, p.weight()
	}
	b, err := stats.GradientBoosting(x, y, w, stats.BoostOptions{LearningRate: gboostRate, Trees: gboostTrees})
	if err != nil {
		return err
	}
	g.fit = b
	return nil
}

// Predict implements Model.
func (g *GBoost) Predict(m, s float64) (float64, bool) {
	if g.fit == nil {
		return 0, false
	}
	t := g.fit.Predict([]float64{m, s})
	return t, t > 0
}
