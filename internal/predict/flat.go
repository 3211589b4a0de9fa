package predict

import (
	"errors"
	"math"
)

// Flat is the null model: the scale-out does not change the runtime. Its
// value is the constant of least summed relative error to the runs, the
// median of the runs each weighted by 1/runtime (Σ wᵢ|T−yᵢ|/yᵢ falls while
// less than half the weights wᵢ/yᵢ lie below T), so that the value the
// cross-validation scores by mean relative error is the best it can be. It
// is the baseline Ellis's rule uses below three scale-outs (its mean:
// enel-experiments' EllisUtils.computePredictions) and the run history's
// naive answer (the job's median duration), offered to the choice so that
// a job whose time does not follow its scale-out — Ellis's GBT, whose long
// jobs do not speed up, and k-means, whose jobs take 2 s or 200 s at any
// scale-out — is not given a trend its runs' noise drew. It models the
// machines alone at the runs' one data size: it cannot be fitted where the
// data size varies and has no answer at another. With a single
// configuration it is the one model that fits, and the choice answers
// with it, uncalibrated, between no speed-up and linear scaling.
type Flat struct {
	T    float64 `json:"t"`
	Data float64 `json:"data"`
}

// Name implements Model.
func (*Flat) Name() string { return "flat" }

// errFlatDataVaries is Flat's refusal of runs of several data sizes.
var errFlatDataVaries = errors.New("flat takes the runtime as one number, and the runs' data sizes vary")

// Fit implements Model: runs of one data size.
func (f *Flat) Fit(pts []Point) error {
	if err := checkPoints(pts); err != nil {
		return err
	}
	if dataVaries(pts) {
		return errFlatDataVaries
	}
	agg := aggregate(pts)
	f.T, f.Data = relativeMedian(agg), agg[0].Data
	return nil
}

// Predict implements Model: the runs' typical time at their data size.
func (f *Flat) Predict(m, s float64) (float64, bool) {
	return f.T, math.Abs(math.Log(s/f.Data)) <= math.Log1p(dataTol)
}

// relativeMedian is the runtime T of least Σ wᵢ|T−yᵢ|/yᵢ over the points
// (wᵢ their weights): their median weighted by wᵢ/yᵢ.
func relativeMedian(pts []Point) float64 {
	w := make([]Point, len(pts))
	for i, p := range pts {
		w[i] = Point{Runtime: p.Runtime, Weight: p.weight() / p.Runtime}
	}
	return weightedMedian(w)
}
