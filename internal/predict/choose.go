package predict

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// Candidates are the models the choice tries, by name.
var Candidates = []string{"ernest", "kernel", "optimistic", "power"}

// NewModel returns an unfitted model by name.
func NewModel(name string) (Model, error) {
	switch name {
	case "ernest":
		return &Ernest{}, nil
	case "kernel":
		return &Kernel{}, nil
	case "optimistic":
		return &Optimistic{}, nil
	case "power":
		return &Power{}, nil
	case "gboost":
		return &GBoost{}, nil
	}
	return nil, fmt.Errorf("unknown model %q: want %s or gboost", name, strings.Join(Candidates, ", "))
}

// ChoiceOptions tune Choose. Zero fields take the defaults.
type ChoiceOptions struct {
	// Models are the candidates (default Candidates); one model is fitted
	// without a choice.
	Models []string
	// Level is the share of cross-validation errors the interval covers
	// (default 0.9).
	Level float64
	// Holdouts is how many of the largest (or smallest) scale-outs or data
	// sizes the extrapolation splits predict, one split each (default 3).
	Holdouts int
	// Rivals is how much larger than the chosen model's a candidate's
	// cross-validated error may be for its estimate to count when the
	// question lies beyond the runs (default 2; negative: none counts):
	// the interval then reaches every such rival's estimate.
	Rivals float64
}

// Split kinds of the cross-validation.
const (
	SplitInterpolation = "interpolation" // leave each interior scale-out out (Bell)
	SplitExtrapolation = "extrapolation" // predict each of the largest (smallest) from those below (above)
	SplitKFold         = "k-fold"        // five folds over configurations, when neither fits
)

// Choice is the model chosen for a question, with what the choice rests on.
type Choice struct {
	Model Model  `json:"-"`
	Name  string `json:"model"`
	// Scores are each candidate's cross-validated mean relative error;
	// Unfit says why a candidate could not be fitted or scored.
	Scores map[string]float64 `json:"cvMeanRelativeError"`
	Unfit  map[string]string  `json:"unfit,omitempty"`
	Split  string             `json:"split"`
	// Errors are the chosen model's signed relative errors (predicted −
	// measured) / measured over the held-out runs.
	Errors []float64 `json:"-"`
	// Reach is the mean extrapolation distance of the extrapolation
	// splits (ln of held-out over nearest fitted), 0 otherwise.
	Reach float64 `json:"-"`
	Range Range   `json:"range"`
	Runs  int     `json:"runs"`
	// fitted are the candidates fitted on every run, by name.
	fitted map[string]Model
}

// Choose picks, among the candidate models, the one with the least mean
// relative error under cross-validation of the kind the question asks
// for, and fits it on every run: Bell's allocation assistant (Thamsen et
// al., IPCCC'16; AllocationAssistant in runtime-prediction-analysis.ipynb:
// kernel regressions and Ernest scored on InterpolationSplits) and C3O's
// predictor (Will et al., IC2E'21; dos-group/c3o, Predict.py: the model of
// least cross-validated error among BasicOptimisticModel, gradient
// boosting and Ernest) choose the same way. The split follows the target:
// inside the fitted machines and data sizes it is Bell's (leave each
// interior scale-out out); beyond them it predicts each of the Holdouts
// largest scale-outs (or data sizes, or smallest ones) from the runs below
// it, since a model that interpolates well may extrapolate badly (the
// papers score interpolation only). Gradient boosting is not among the
// candidates: C3O's collaborative setting has hundreds of runs of many
// contexts, one recurring job's history rarely has.
func Choose(pts []Point, machines, data float64, opt ChoiceOptions) (*Choice, error) {
	if err := checkPoints(pts); err != nil {
		return nil, err
	}
	if opt.Models == nil {
		opt.Models = Candidates
	}
	if opt.Level <= 0 || opt.Level >= 1 {
		opt.Level = 0.9
	}
	if opt.Holdouts <= 0 {
		opt.Holdouts = 3
	}
	agg := aggregate(pts)
	c := &Choice{Scores: map[string]float64{}, Unfit: map[string]string{}, Range: rangeOf(agg), fitted: map[string]Model{}}
	for _, p := range agg {
		c.Runs += int(p.weight())
	}
	var splits []split
	splits, c.Split, c.Reach = splitsFor(agg, c.Range, machines, data, opt.Holdouts)
	var fitErrs []error
	best := math.Inf(1)
	for _, name := range opt.Models {
		m, err := NewModel(name)
		if err != nil {
			return nil, err
		}
		if err := m.Fit(agg); err != nil {
			c.Unfit[name] = err.Error()
			fitErrs = append(fitErrs, err)
			continue
		}
		score, errs := cvScore(name, agg, splits)
		if len(opt.Models) > 1 && math.IsInf(score, 1) {
			c.Unfit[name] = "could not be scored on the " + c.Split + " splits"
			continue
		}
		c.Scores[name] = score
		c.fitted[name] = m
		if score < best || c.Model == nil {
			best, c.Model, c.Name, c.Errors = score, m, name, errs
		}
	}
	if c.Model == nil {
		return nil, tooFew(agg, fitErrs)
	}
	return c, nil
}

// split is one cross-validation split over aggregated points.
type split struct{ train, test []Point }

// minExtrapolationKeys is the fewest distinct scale-outs (or data sizes)
// an extrapolation split trains on: Ernest's four parameters.
const minExtrapolationKeys = 4

// axis is the dimension a split holds runs out along.
type axis bool

const (
	alongMachines axis = false
	alongData     axis = true
)

// key groups points along the axis (data sizes by their dataTol bin).
func (a axis) key(p Point) float64 {
	if a == alongData {
		return math.Round(math.Log(p.Data) / math.Log1p(dataTol))
	}
	return p.Machines
}

// value is the point's machines or data size.
func (a axis) value(p Point) float64 {
	if a == alongData {
		return p.Data
	}
	return p.Machines
}

// splitsFor builds the splits the target calls for, their kind and, for
// extrapolation, their mean reach (ln of the held-out value over the
// nearest fitted one).
func splitsFor(agg []Point, r Range, machines, data float64, holdouts int) ([]split, string, float64) {
	ms, ds := distinct(agg, alongMachines.key), distinct(agg, alongData.key)
	ax, keys := alongMachines, ms
	up, down := machines > r.MaxMachines, machines < r.MinMachines
	if !up && !down && len(ds) >= 3 && (data > r.MaxData*(1+dataTol) || data < r.MinData*(1-dataTol)) {
		ax, keys = alongData, ds
		up, down = data > r.MaxData, data < r.MinData
	}
	if len(keys) < 3 && len(ds) >= 3 {
		ax, keys = alongData, ds
	}
	if (up || down) && len(keys) >= minExtrapolationKeys+1 {
		var out []split
		reach := 0.0
		n := min(holdouts, len(keys)-minExtrapolationKeys)
		for k := range n {
			v := keys[len(keys)-1-k]
			if down {
				v = keys[k]
			}
			var s split
			near := math.NaN()
			for _, p := range agg {
				switch a := ax.key(p); {
				case a == v:
					s.test = append(s.test, p)
				case up && a < v || down && a > v:
					s.train = append(s.train, p)
					if x := ax.value(p); math.IsNaN(near) || up && x > near || down && x < near {
						near = x
					}
				}
			}
			out = append(out, s)
			reach += math.Abs(math.Log(ax.value(s.test[0]) / near))
		}
		return out, SplitExtrapolation, reach / float64(n)
	}
	if len(keys) >= 3 {
		var out []split
		for _, v := range keys[1 : len(keys)-1] {
			var s split
			for _, p := range agg {
				if ax.key(p) == v {
					s.test = append(s.test, p)
				} else {
					s.train = append(s.train, p)
				}
			}
			out = append(out, s)
		}
		return out, SplitInterpolation, 0
	}
	var out []split
	folds := min(5, len(agg))
	for f := range folds {
		var s split
		for i, p := range agg {
			if i%folds == f {
				s.test = append(s.test, p)
			} else {
				s.train = append(s.train, p)
			}
		}
		out = append(out, s)
	}
	return out, SplitKFold, 0
}

// cvScore fits a fresh model of the name on each split's training runs and
// returns the mean relative error over the held-out runs (weighted by
// runs) and the signed errors; +Inf when a split cannot be fitted or
// predicted.
func cvScore(name string, agg []Point, splits []split) (float64, []float64) {
	var sum, n float64
	var errs []float64
	for _, s := range splits {
		m, _ := NewModel(name)
		if len(s.train) == 0 || m.Fit(s.train) != nil {
			return math.Inf(1), nil
		}
		for _, p := range s.test {
			pred, ok := m.Predict(p.Machines, p.Data)
			if !ok {
				return math.Inf(1), nil
			}
			e := (pred - p.Runtime) / p.Runtime
			sum += p.weight() * math.Abs(e)
			n += p.weight()
			errs = append(errs, e)
		}
	}
	if n == 0 {
		return math.Inf(1), nil
	}
	return sum / n, errs
}

// Interval is the estimate's range at the choice's level: the level
// quantile q of the absolute cross-validation errors, est/(1 + q) to
// est·(1 + q) (symmetric in ratio, so it never reaches zero); beyond
// the fitted runs q grows in proportion to how far (Range.Outside) against
// how far the cross-validation reached (Reach), or doubles per doubling
// when it did not extrapolate, and is at least DefaultWidening per doubling.
func (c *Choice) Interval(est, machines, data, level float64) (lo, hi float64, extrapolated bool) {
	abs := make([]float64, len(c.Errors))
	for i, e := range c.Errors {
		abs[i] = math.Abs(e)
	}
	q := 0.0
	if len(abs) > 0 {
		q = stats.Quantiles(abs, []float64{level})[0]
	}
	if d := c.Range.Outside(machines, data); d > 0 {
		extrapolated = true
		if c.Reach > 0 {
			q *= max(1, d/c.Reach)
		} else {
			q *= 1 + d/math.Ln2
		}
		// At least the widening of the per-byte models (DefaultWidening per
		// doubling), for a model the cross-validation found exact.
		q = max(q, widening(d, 0)-1)
	}
	return est / (1 + q), est * (1 + q), extrapolated
}

// tooFew turns the candidates' fit errors into one message naming how many
// more runs, at which machines or data sizes, would let the least
// demanding model fit.
func tooFew(agg []Point, errs []error) error {
	var least *TooFewError
	for _, err := range errs {
		var tf *TooFewError
		if errors.As(err, &tf) && (least == nil || tf.Need-tf.Have < least.Need-least.Have) {
			least = tf
		}
	}
	if least == nil && len(errs) > 0 {
		return fmt.Errorf("no model could be fitted: %w", errors.Join(errs...))
	}
	ms := distinct(agg, machinesOf)
	if least == nil {
		return fmt.Errorf("no model could be cross-validated on the %d runs at %s machines: run the job at more cluster sizes", runsOf(agg), joinFloats(ms))
	}
	hint := fmt.Sprintf("the %d runs are at %s machines", runsOf(agg), joinFloats(ms))
	if dataVaries(agg) {
		r := rangeOf(agg)
		hint += fmt.Sprintf(" with data sizes %.4g to %.4g", r.MinData, r.MaxData)
	}
	more := least.Need - least.Have
	next := ms[len(ms)-1]
	var want []float64
	for range more {
		next *= 2
		want = append(want, next)
	}
	hint += fmt.Sprintf("; run the job %d more time(s) at other cluster sizes, for example at %s machines", more, joinFloats(want))
	return &TooFewError{Model: least.Model, Have: least.Have, Need: least.Need, What: least.What, Hint: hint}
}

func runsOf(agg []Point) int {
	n := 0.0
	for _, p := range agg {
		n += p.weight()
	}
	return int(n)
}

func joinFloats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%g", x)
	}
	if len(s) > 1 {
		return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
	}
	return strings.Join(s, "")
}
