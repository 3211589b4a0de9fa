package predict

import (
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// Calibration is how an estimate's interval was calibrated: split
// conformal prediction (Vovk, Gammerman and Shafer, "Algorithmic Learning
// in a Random World", 2005; Lei et al., "Distribution-Free Predictive
// Inference for Regression", JASA 2018, §2.2 for the split version and
// §5.2 for scores normalized by a spread) on the cross-validation
// residuals of the direction asked (Choose's splits), each a held-out
// run's ln(measured/predicted).
//
//   - Inside the runs (interpolation, k-fold): the chosen model's
//     residuals; the interval is est·e^(±q) with q the ⌈(n+1)·Level⌉-th
//     smallest |residual| (standard split conformal), n counted as the
//     residuals are worth (effectiveSize: a configuration's runs err
//     together).
//   - Beyond them (forward chaining): the residuals of every candidate
//     that could be scored, normalized by a spread a + b·reach fitted to
//     them (non-negative least squares of |residual| on 1 and the reach),
//     so the interval grows with the distance beyond the runs: est·e^(±q·
//     (a + b·d)) at the question's distance d. Every candidate's, not
//     only the chosen one's: beyond the runs the choice itself is
//     uncertain, and the chosen model's own residuals understate it (on
//     Bell's runs, fit up to 32 nodes and asked for 36–60, the chosen
//     model's residuals held 68% of the runs at 90%, every candidate's
//     92.5%; docs/PREDICT.md).
//
// Where the runs carry a class (Point.Class: Ellis's jobs right after a
// rescale) the residuals are those of the held-out runs of the asked
// class (ChoiceOptions.Class) when there are MinResiduals of them, else
// all: Mondrian conformal prediction (Vovk, Gammerman and Shafer 2005,
// §4.5), since runs right after a rescale stray far more than the others
// and a pool of both is too wide for one and too narrow for the other.
//
// Two floors keep it honest where the residuals are few:
//
//   - The runs' own spread (Noise, runNoise): the interval's half-width is
//     at least the Level quantile of the class's runs' |ln(runtime /
//     their configuration's median)|, over every configuration with three
//     such runs or more — a future run strays from its configuration's
//     typical time at least as past ones did, a spread measured on every
//     run where the held-out residuals may be a handful (on Ellis's GBT and
//     k-means, forward chaining leaves some jobs with 2–5 residuals), or
//     the caller's (ChoiceOptions.Noise: RescaleNoise); with no
//     configuration of three such runs, the spread of related runs
//     (ChoiceOptions.FallbackNoise: SteadyNoise over an application's
//     jobs). The floor holds for an uncalibrated interval too.
//   - Too few residuals (Few): split conformal prediction at Level needs
//     ⌈Level/(1−Level)⌉ of them (9 at 90%) for its quantile to exist; with
//     fewer the interval also spans every fitted candidate's estimate,
//     widened as an uncalibrated one is.
//
// Coverage is the interval method's own check (cross-conformal): each
// split's runs against the interval calibrated on the other splits.
type Calibration struct {
	// Method is "conformal" or "uncalibrated" (too few configurations to
	// hold any out: the interval is the candidates' spread widened by
	// DefaultWidening per doubling, and the estimate is labelled so).
	Method string  `json:"method"`
	Level  float64 `json:"level"`
	// Models are the candidates whose residuals calibrate it.
	Models []string `json:"models,omitempty"`
	// Residuals and Splits count what it rests on; Effective is what the
	// residuals are worth as independent ones (effectiveSize).
	Residuals int     `json:"residuals"`
	Effective float64 `json:"effectiveResiduals"`
	Splits    int     `json:"splits"`
	// Q is the conformal quantile of the (normalized) |residuals|; A and
	// B the spread a + b·reach (A = 1, B = 0 when not normalized).
	Q float64 `json:"q"`
	A float64 `json:"a"`
	B float64 `json:"b"`
	// Class is the class of the run asked for, ByClass set when the
	// residuals are that class's runs' only; Noise the least half-width
	// (ln units): the class's runs' spread at the level, or
	// ChoiceOptions.Noise.
	Class   string  `json:"class,omitempty"`
	ByClass bool    `json:"byClass,omitempty"`
	Noise   float64 `json:"noise"`
	// Few is set when the residuals are fewer than the level needs
	// (MinResiduals): the interval then also spans the candidates.
	Few bool `json:"fewResiduals,omitempty"`
	// Coverage is the share of held-out runs inside the interval
	// calibrated without their split (NaN-free: 0 when not measurable),
	// over CoverageRuns runs.
	Coverage     float64 `json:"coverage"`
	CoverageRuns int     `json:"coverageRuns"`
}

// MinResiduals is the fewest residuals whose ⌈(n+1)·level⌉-th smallest
// exists: ⌈level/(1−level)⌉, 9 at 90%.
func MinResiduals(level float64) int {
	return int(math.Ceil(level/(1-level) - 1e-9))
}

// calibrate builds the choice's calibration from the splits' residuals;
// noise is the least half-width.
func (c *Choice) calibrate(splits []split, level, rivals float64, class string, noise float64) *Calibration {
	cal := &Calibration{Method: "uncalibrated", Level: level, A: 1, Splits: len(splits), Noise: noise, Class: class}
	var pool []residual
	if c.Split == SplitExtrapolation {
		for _, name := range append(slices.Clone(Candidates), "pooled") {
			if res, ok := c.residuals[name]; ok && (rivals <= 0 || c.Scores[name] <= rivals*c.Scores[c.Name]) {
				cal.Models = append(cal.Models, name)
				pool = append(pool, res...)
			}
		}
	} else if res, ok := c.residuals[c.Name]; ok {
		cal.Models, pool = []string{c.Name}, res
	}
	all := len(pool)
	pool = ofClass(pool, class, level)
	cal.ByClass = len(pool) < all
	if len(pool) == 0 {
		return cal
	}
	cal.Method, cal.Residuals, cal.Few = "conformal", len(pool), len(pool) < MinResiduals(level)
	normalize := c.Split == SplitExtrapolation
	cal.Q, cal.A, cal.B, cal.Effective = conformalQ(pool, level, normalize)
	// Cross-conformal check on the chosen model's residuals.
	own := ofClass(c.residuals[c.Name], class, level)
	held := 0
	for i := range splits {
		rest := make([]residual, 0, len(pool))
		for _, r := range pool {
			if r.split != i {
				rest = append(rest, r)
			}
		}
		if len(rest) == 0 {
			continue
		}
		q, a, b, _ := conformalQ(rest, level, normalize)
		for _, r := range own {
			if r.split != i {
				continue
			}
			cal.CoverageRuns++
			if math.Abs(r.r) <= max(q*(a+b*r.reach), noise) {
				held++
			}
		}
	}
	if cal.CoverageRuns > 0 {
		cal.Coverage = float64(held) / float64(cal.CoverageRuns)
	}
	return cal
}

// conformalQ is the split-conformal quantile of the residuals at level,
// normalized by the spread a + b·reach when normalize is set: the
// level·(n′+1)/n′ quantile of the n scores |r|, n′ = effectiveSize (the
// largest when the level asks beyond them). With n′ = n it is the
// textbook ⌈(n+1)·level⌉-th smallest.
func conformalQ(res []residual, level float64, normalize bool) (q, a, b, ne float64) {
	a, b = 1, 0
	if normalize {
		a, b = spreadFit(res)
	}
	scores := make([]float64, len(res))
	for i, r := range res {
		scores[i] = math.Abs(r.r) / (a + b*r.reach)
	}
	n := float64(len(scores))
	ne = effectiveSize(res, scores)
	k := int(math.Ceil(n*level*(ne+1)/ne-1e-9)) - 1
	slices.Sort(scores)
	return scores[min(max(k, 0), len(scores)-1)], a, b, ne
}

// effectiveSize is the number of independent residuals the scores are
// worth (stats.EffectiveSize, Kish's design effect): a held-out
// configuration's runs share the candidate's error there, so on
// repeatable runs (Bell's, a spread within a configuration under 2%)
// sixty residuals of twelve configurations are worth about twelve, and
// conformal prediction's finite-sample correction, (n+1)/n, must count
// twelve — as hierarchical conformal prediction counts groups (Lee,
// Barber and Willett, "Distribution-free inference with hierarchical
// data", 2023; Dunn, Wasserman and Ramdas, JASA 2023). On noisy runs
// (Ellis's) they are worth nearly n.
func effectiveSize(res []residual, scores []float64) float64 {
	type cluster struct {
		model  string
		split  int
		config [2]float64
	}
	groups := make([]cluster, len(res))
	for i, r := range res {
		groups[i] = cluster{r.model, r.split, r.config}
	}
	return stats.EffectiveSize(scores, groups)
}

// minSpread is the least spread a + b·reach (in ln units, 1%): runs that
// a model fits exactly would otherwise give a zero-width interval.
const minSpread = 0.01

// spreadFit fits |r| ≈ a + b·reach by non-negative least squares.
func spreadFit(res []residual) (a, b float64) {
	x := stats.NewDense(len(res), 2)
	y := make([]float64, len(res))
	for i, r := range res {
		x.X[2*i], x.X[2*i+1] = 1, r.reach
		y[i] = math.Abs(r.r)
	}
	th, _, err := stats.NNLS(x, y)
	if err != nil {
		return 1, 0
	}
	return max(th[0], minSpread), th[1]
}

// Interval is the estimate's range: est·e^(±max(q·(a + b·d), noise)) at
// the question's distance d beyond the runs (Calibration), with too few
// residuals also spanning the candidates (span). Uncalibrated, it is span,
// floored by the runs' spread too (on Ellis's k-means, a design set, one
// job's uncalibrated span held 3 of its 7 steady runs beyond the cut where
// its spread of 0.63 would have held them all).
func (c *Choice) Interval(est, machines, data float64) (lo, hi float64, extrapolated bool) {
	d := c.Range.Outside(machines, data)
	extrapolated = d > 0
	cal := c.Calibration
	if cal.Method == "conformal" {
		reach := 0.0
		if c.Split == SplitExtrapolation {
			reach = d
		}
		h := max(cal.Q*(cal.A+cal.B*reach), cal.Noise)
		lo, hi = est*math.Exp(-h), est*math.Exp(h)
		if cal.Few {
			slo, shi := c.span(est, machines, data, d)
			lo, hi = min(lo, slo), max(hi, shi)
		}
		return lo, hi, extrapolated
	}
	lo, hi = c.span(est, machines, data, d)
	return min(lo, est*math.Exp(-cal.Noise)), max(hi, est*math.Exp(cal.Noise)), extrapolated
}

// span is the uncalibrated interval: every fitted candidate's estimate and
// est, beyond the runs' machines also the chosen model's value at the
// nearest fitted scale-out scaled linearly (the fastest the job can go on
// more machines, the slowest on fewer: ARIA's bound), widened by
// DefaultWidening per doubling of the distance d beyond the runs and at
// least by DefaultWidening.
func (c *Choice) span(est, machines, data, d float64) (lo, hi float64) {
	lo, hi = est, est
	for _, m := range c.fitted {
		if v, ok := m.Predict(machines, data); ok {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if v, ok := linearScaled(c.Model, c.Range, machines, data); ok {
		lo, hi = min(lo, v), max(hi, v)
	}
	w := max(widening(d, 0), 1+DefaultWidening)
	return lo / w, hi * w
}

// ofClass keeps the residuals of held-out runs of the class when there are
// enough for the level (MinResiduals), else all of them.
func ofClass(res []residual, class string, level float64) []residual {
	n := 0
	for _, r := range res {
		if r.class == class {
			n++
		}
	}
	if n == len(res) || n < MinResiduals(level) {
		return res
	}
	out := make([]residual, 0, n)
	for _, r := range res {
		if r.class == class {
			out = append(out, r)
		}
	}
	return out
}

// runNoise is the split-conformal quantile at level of the class's runs'
// |ln(runtime / their configuration's median)| over the configurations
// with three such runs or more (0 when none has): how far one run strays
// from its configuration's typical time.
func runNoise(pts []Point, class string, level float64) float64 {
	type key struct {
		m   float64
		bin float64
	}
	groups := map[key][]Point{}
	for _, p := range pts {
		if p.Class == class {
			k := key{p.Machines, alongData.key(p)}
			groups[k] = append(groups[k], p)
		}
	}
	var dev []float64
	for _, g := range groups {
		if len(g) < 3 {
			continue
		}
		med := weightedMedian(g)
		for _, p := range g {
			dev = append(dev, math.Abs(math.Log(p.Runtime/med)))
		}
	}
	if len(dev) == 0 {
		return 0
	}
	slices.Sort(dev)
	k := int(math.Ceil(float64(len(dev)+1)*level)) - 1
	return dev[min(max(k, 0), len(dev)-1)]
}

// linearBound keeps a prediction beyond the fitted machines within linear
// scaling of the model's own value at the nearest fitted scale-out: on m
// machines above the most fitted M, at least t(M)·M/m (the work divided
// among more machines can go no faster than that: ARIA's makespan lower
// bound n·avg/k, §3, for the whole job); below the fewest fitted M, at most
// t(M)·M/m. Without it a power law fitted to noisy runs at 15–36 nodes
// predicted a job at 7 nodes 1,500 times its measured time (Ellis's
// k-means, a design set).
func linearBound(m Model, r Range, machines, data, v float64) float64 {
	lin, ok := linearScaled(m, r, machines, data)
	switch {
	case !ok:
		return v
	case machines > r.MaxMachines:
		return max(v, lin)
	default:
		return min(v, lin)
	}
}

// linearScaled is the model's value at the fitted scale-out nearest to
// machines scaled linearly to machines, t(M)·M/m; false inside the fitted
// machines or where the model has no answer at M.
func linearScaled(m Model, r Range, machines, data float64) (float64, bool) {
	edge := machines
	switch {
	case machines > r.MaxMachines:
		edge = r.MaxMachines
	case machines < r.MinMachines:
		edge = r.MinMachines
	}
	if edge == machines {
		return 0, false
	}
	v, ok := m.Predict(edge, data)
	return v * edge / machines, ok
}
