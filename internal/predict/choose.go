package predict

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Candidates are the models the choice tries, by name.
var Candidates = []string{"ernest", "kernel", "optimistic", "power", "amdahl", "pchip", "flat"}

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
	case "amdahl":
		return &Amdahl{}, nil
	case "pchip":
		return &Pchip{}, nil
	case "gboost":
		return &GBoost{}, nil
	case "flat":
		return &Flat{}, nil
	}
	return nil, fmt.Errorf("unknown model %q: want %s or gboost", name, strings.Join(Candidates, ", "))
}

// ChoiceOptions tune Choose. Zero fields take the defaults.
type ChoiceOptions struct {
	// Models are the candidates (default Candidates); one model is fitted
	// without a choice.
	Models []string
	// Level is the interval's coverage (default 0.9).
	Level float64
	// MinTrainKeys is the fewest scale-outs (or data sizes) the first
	// forward-chaining split trains on (default 4, Ernest's parameters;
	// fewer when the runs have fewer).
	MinTrainKeys int
	// Mean fits the models on each configuration's mean runtime, as the
	// papers do (Ernest's predictor.py fits every run); by default on its
	// median, which a run far off its configuration's others does not
	// move (docs/PREDICT.md: on Ellis's runs, where a job sometimes takes
	// ten times its usual time, the median's errors are lower).
	Mean bool
	// Pool are other groups' runs (other jobs of the application, other
	// machine types), by group: with it, Pooled is a candidate.
	Pool map[string][]Point
	// Class is the class of the run asked for (Point.Class): the interval
	// is calibrated on the held-out runs of that class when there are
	// enough (MinResiduals) and floored by that class's spread (Mondrian
	// conformal prediction; Calibration).
	Class string
	// Noise, when set, floors the interval instead of the spread of the
	// class's runs given, in ln units (Calibration.Noise): the caller
	// knows it better (RescaleNoise pools every job of an application).
	Noise float64
	// FallbackNoise floors the interval, in ln units, when neither Noise
	// is set nor the runs have a configuration with three runs of the
	// class to measure their own spread: a spread measured on related
	// runs (SteadyNoise pools every job of an application).
	FallbackNoise float64
	// Rivals bounds the candidates whose residuals calibrate an interval
	// beyond the runs: those whose cross-validated error is at most Rivals
	// times the chosen one's (0: every candidate).
	Rivals float64
}

// Split kinds of the cross-validation.
const (
	SplitInterpolation = "interpolation" // leave each interior scale-out out (Bell)
	SplitExtrapolation = "extrapolation" // forward chaining: fit on the smaller (larger), score the larger (smaller)
	SplitKFold         = "k-fold"        // five folds over configurations, when neither fits
	SplitNone          = "none"          // too few configurations to hold any out
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
	// Axis is what the splits hold out: "machines" or "data".
	Axis string `json:"axis"`
	// Calibration is how the interval was calibrated, with its coverage.
	Calibration *Calibration `json:"calibration"`
	Range       Range        `json:"range"`
	Runs        int          `json:"runs"`
	// Configurations is the number of distinct (machines, data size)
	// configurations the runs cover.
	Configurations int `json:"configurations"`
	// fitted are the candidates fitted on every run, by name; residuals
	// their cross-validation residuals.
	fitted    map[string]Model
	residuals map[string][]residual
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
// interior scale-out out); beyond them it is forward chaining in the
// asked direction: fit on the runs up to each scale-out (or data size)
// from the MinTrainKeys-th on and score every run above it (below, for a
// question below the runs), since a model that interpolates well may
// extrapolate badly (the papers score interpolation only). The residuals
// calibrate the interval (Calibrate). Gradient boosting is not among the
// candidates: C3O's collaborative setting has hundreds of runs of many
// contexts, one recurring job's history rarely has.
func Choose(pts []Point, machines, data float64, opt ChoiceOptions) (*Choice, error) {
	if err := checkPoints(pts); err != nil {
		return nil, err
	}
	if opt.Models == nil {
		opt.Models = Candidates
		if len(opt.Pool) > 0 {
			opt.Models = append(slices.Clone(Candidates), "pooled")
		}
	}
	if opt.Level <= 0 || opt.Level >= 1 {
		opt.Level = 0.9
	}
	if opt.MinTrainKeys <= 0 {
		opt.MinTrainKeys = 4
	}
	agg := aggregateBy(pts, !opt.Mean)
	c := &Choice{Scores: map[string]float64{}, Unfit: map[string]string{}, Range: rangeOf(agg),
		fitted: map[string]Model{}, residuals: map[string][]residual{}, Configurations: len(agg)}
	for _, p := range agg {
		c.Runs += int(p.weight())
	}
	splits, kind, ax := splitsFor(pts, c.Range, machines, data, opt.MinTrainKeys, !opt.Mean)
	c.Split, c.Axis = kind, ax.String()
	var fitErrs []error
	best := math.Inf(1)
	var unscored []string
	for _, name := range opt.Models {
		m, err := newModel(name, opt.Pool, nil)
		if err != nil {
			return nil, err
		}
		if err := m.Fit(agg); err != nil {
			c.Unfit[name] = err.Error()
			fitErrs = append(fitErrs, err)
			continue
		}
		c.fitted[name] = m
		score, res := cvScore(name, opt.Pool, splits)
		if math.IsInf(score, 1) {
			unscored = append(unscored, name)
			continue
		}
		c.Scores[name] = score
		c.residuals[name] = res
		if score < best || c.Model == nil {
			best, c.Model, c.Name = score, m, name
		}
	}
	if c.Model == nil && len(unscored) > 0 {
		// Fitted, but no split could score any: of those with an answer,
		// the one resting on most evidence (the pool's), else the physical
		// shape with fewest parameters, uncalibrated; flat, the null
		// model, last (alone with one configuration).
		for _, name := range []string{"pooled", "amdahl", "power", "kernel", "ernest", "optimistic", "gboost", "flat"} {
			if m, ok := c.fitted[name]; ok && c.Model == nil {
				if _, answers := m.Predict(machines, data); answers {
					c.Name, c.Model = name, m
				}
			}
		}
	}
	if len(splits) > 0 {
		for _, name := range unscored {
			c.Unfit[name] = "could not be scored on the " + c.Split + " splits"
			if _, ok := c.fitted[name].Predict(machines, data); !ok && c.Range.Outside(machines, data) > 0 {
				c.Unfit[name] = "gives no answer outside the runs"
			}
		}
	}
	if c.Model == nil {
		return nil, tooFew(agg, fitErrs, machines, data)
	}
	c.Calibration = c.calibrate(splits, opt.Level, opt.Rivals, opt.Class, cmp.Or(opt.Noise, runNoise(pts, opt.Class, opt.Level), opt.FallbackNoise))
	return c, nil
}

// split is one cross-validation split: the aggregated training points,
// the held-out runs, and per held-out run its distance from the training
// runs along the split's axis (ln units; 0 for interpolation).
type split struct {
	train []Point
	test  []Point
	reach []float64
	// keep says which of a pool's runs the split may train on.
	keep func(Point) bool
}

// axis is the dimension a split holds runs out along.
type axis bool

const (
	alongMachines axis = false
	alongData     axis = true
)

func (a axis) String() string {
	if a == alongData {
		return "data"
	}
	return "machines"
}

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

// splitsFor builds the splits the target calls for over the runs pts, their
// kind and axis. Beyond the runs (up or down the axis) they chain forward:
// for each scale-out from the minTrain-th (fewer when there are fewer, at
// least one held out), fit on those up to it and hold out every run beyond
// it. Inside the runs they leave each interior scale-out out (Bell).
func splitsFor(pts []Point, r Range, machines, data float64, minTrain int, median bool) ([]split, string, axis) {
	agg := aggregateBy(pts, median)
	ms, ds := distinct(agg, alongMachines.key), distinct(agg, alongData.key)
	ax, keys := alongMachines, ms
	up, down := machines > r.MaxMachines, machines < r.MinMachines
	if !up && !down && len(ds) >= 2 && (data > r.MaxData*(1+dataTol) || data < r.MinData*(1-dataTol)) {
		ax, keys = alongData, ds
		up, down = data > r.MaxData, data < r.MinData
	}
	if len(keys) < 2 && len(ds) >= 2 {
		ax, keys = alongData, ds
	}
	if (up || down) && len(keys) >= 3 {
		first := min(minTrain, len(keys)-1)
		var out []split
		for n := first; n < len(keys); n++ {
			edge := keys[n-1]
			if down {
				edge = keys[len(keys)-n]
			}
			s := split{keep: func(p Point) bool { a := ax.key(p); return up && a <= edge || down && a >= edge }}
			near := math.NaN()
			for _, p := range agg {
				if a := ax.key(p); up && a <= edge || down && a >= edge {
					s.train = append(s.train, p)
					if x := ax.value(p); math.IsNaN(near) || up && x > near || down && x < near {
						near = x
					}
				}
			}
			for _, p := range pts {
				if a := ax.key(p); up && a > edge || down && a < edge {
					s.test = append(s.test, p)
					s.reach = append(s.reach, math.Abs(math.Log(ax.value(p)/near)))
				}
			}
			out = append(out, s)
		}
		return out, SplitExtrapolation, ax
	}
	if len(keys) >= 3 {
		var out []split
		for _, v := range keys[1 : len(keys)-1] {
			s := split{keep: func(p Point) bool { return ax.key(p) != v }}
			for _, p := range agg {
				if ax.key(p) != v {
					s.train = append(s.train, p)
				}
			}
			for _, p := range pts {
				if ax.key(p) == v {
					s.test = append(s.test, p)
					s.reach = append(s.reach, 0)
				}
			}
			out = append(out, s)
		}
		return out, SplitInterpolation, ax
	}
	if len(agg) < 3 {
		return nil, SplitNone, ax
	}
	var out []split
	folds := min(5, len(agg))
	for f := range folds {
		var s split
		for i, p := range agg {
			if i%folds == f {
				for _, q := range pts {
					if sameConfig(p, q) {
						s.test = append(s.test, q)
						s.reach = append(s.reach, 0)
					}
				}
			} else {
				s.train = append(s.train, p)
			}
		}
		out = append(out, s)
	}
	return out, SplitKFold, ax
}

// sameConfig reports whether run q is of configuration p (aggregate's bins).
func sameConfig(p, q Point) bool {
	return p.Machines == q.Machines && alongData.key(p) == alongData.key(q)
}

// residual is one held-out run's ln(measured/predicted), its reach, the
// split it was held out in, the run's class, and the candidate and
// configuration: the runs of one configuration held out in one split
// share the candidate's error there (their cluster, effectiveSize).
type residual struct {
	r, reach float64
	split    int
	class    string
	model    string
	config   [2]float64
}

// cvScore fits a fresh model of the name on each split's training runs and
// returns the mean relative error over the held-out runs and their
// residuals; +Inf when there are no splits or one cannot be fitted or
// predicted.
func cvScore(name string, pool map[string][]Point, splits []split) (float64, []residual) {
	var sum, n float64
	var res []residual
	for i, s := range splits {
		m, _ := newModel(name, pool, s.keep)
		if len(s.train) == 0 || m.Fit(s.train) != nil {
			return math.Inf(1), nil
		}
		r := rangeOf(s.train)
		for j, p := range s.test {
			pred, ok := m.Predict(p.Machines, p.Data)
			if !ok {
				return math.Inf(1), nil
			}
			pred = linearBound(m, r, p.Machines, p.Data, pred)
			sum += p.weight() * math.Abs(pred-p.Runtime) / p.Runtime
			n += p.weight()
			res = append(res, residual{math.Log(p.Runtime / pred), s.reach[j], i, p.Class, name, [2]float64{p.Machines, alongData.key(p)}})
		}
	}
	if n == 0 {
		return math.Inf(1), nil
	}
	return sum / n, res
}

// newModel is NewModel, with the pool (filtered by keep) for "pooled".
func newModel(name string, pool map[string][]Point, keep func(Point) bool) (Model, error) {
	if name == "pooled" {
		return &Pooled{Pool: pool, Keep: keep}, nil
	}
	return NewModel(name)
}

// tooFew turns the candidates' fit errors into one message naming how many
// more runs would let the least demanding model fit, and the run that
// would help most (NextRun).
func tooFew(agg []Point, errs []error, machines, data float64) error {
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
		return fmt.Errorf("no model could be fitted on the %d runs at %s machines: run the job at more cluster sizes", runsOf(agg), joinFloats(ms))
	}
	hint := fmt.Sprintf("the %d runs are at %s machines", runsOf(agg), joinFloats(ms))
	if dataVaries(agg) {
		r := rangeOf(agg)
		hint += fmt.Sprintf(" with data sizes %s to %s", Plain(r.MinData), Plain(r.MaxData))
	}
	more := least.Need - least.Have
	hint += fmt.Sprintf("; run the job %d more time(s) at other cluster sizes", more)
	if next := NextRun(agg, machines, data); next != nil {
		hint += fmt.Sprintf(", first at %s machines (%s)", Plain(next.Machines), next.Why)
	}
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
		s[i] = Plain(x)
	}
	if len(s) > 1 {
		return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
	}
	return strings.Join(s, "")
}
