package predict

import "errors"

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
// scale-out — is not given a trend its runs' noise drew. It cannot be
// fitted where the data size varies.
type Flat struct {
	T float64 `json:"t"`
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
	f.T = relativeMedian(aggregate(pts))
	return nil
}

// Predict implements Model.
func (f *Flat) Predict(m, s float64) (float64, bool) { return f.T, true }

// relativeMedian is the runtime T of least Σ wᵢ|T−yᵢ|/yᵢ over the points
// (wᵢ their weights): their median weighted by wᵢ/yᵢ.
func relativeMedian(pts []Point) float64 {
	w := make([]Point, len(pts))
	for i, p := range pts {
		w[i] = Point{Runtime: p.Runtime, Weight: p.weight() / p.Runtime}
	}
	return weightedMedian(w)
}
