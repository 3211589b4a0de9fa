package predict

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// Part is one of the four parts of a MapReduce task the history times (see
// Task): a platform model is one fit per part.
type Part uint8

// Parts, with the generic phases of Zhang, Cherkasova and Loo (ICPE'13, §2)
// each holds.
const (
	MapFirst     Part = iota // read, map function, collect
	MapSecond                // spill, merge
	ReduceFirst              // shuffle (with the reduce's merge)
	ReduceSecond             // reduce function, write
	numParts
)

var partNames = [numParts]string{"read+collect", "spill+merge", "shuffle", "write"}

func (p Part) String() string { return partNames[p] }

// partVars are each part's regressors after the intercept: the first is
// the part's primary data size, on which the two-segment test splits.
var partVars = [numParts][]string{
	{"inputBytes", "outputBytes"},
	{"outputBytes", "mergeBytes"},
	{"shuffleBytes"},
	{"outputBytes", "shuffleBytes"},
}

// regressors are a task's values of a part's variables, intercept first.
func regressors(p Part, t *Task) []float64 {
	switch p {
	case MapFirst:
		return []float64{1, float64(t.In), float64(t.Out)}
	case MapSecond:
		return []float64{1, float64(t.Out), float64(t.Merge)}
	case ReduceFirst:
		return []float64{1, float64(t.In)}
	}
	return []float64{1, float64(t.Out), float64(t.In)}
}

// partMs is the length of a task's part.
func partMs(p Part, t *Task) int64 {
	if p == MapFirst || p == ReduceFirst {
		return t.FirstMs
	}
	return t.SecondMs()
}

func partOf(t *Task) (first, second Part) {
	if t.Reduce {
		return ReduceFirst, ReduceSecond
	}
	return MapFirst, MapSecond
}

// PlatformOptions tune FitPlatform. Zero fields take the defaults.
type PlatformOptions struct {
	// Robust are the IRLS options (default bisquare, c = 4.685).
	Robust stats.RobustOptions
	// Alpha is the two-segment test's significance level (default 0.01);
	// MinGain the least share by which two segments must lower the
	// residual sum of squares (default 0.2): with thousands of tasks a
	// slight curvature is significant without mattering.
	Alpha, MinGain float64
}

// Segment is one linear piece of a part's model: duration (ms) =
// Coef · (1, variables...).
type Segment struct {
	Coef []float64 `json:"coef"`
}

// PartModel is a fitted part: one segment, or two split at Break of the
// primary variable (ICPE'13 §4's piecewise model where one line does not
// fit, as the shuffle's does not once map outputs no longer fit in memory).
type PartModel struct {
	Part     string    `json:"part"`
	Vars     []string  `json:"vars"`
	Segments []Segment `json:"segments"`
	// Break is the primary variable's value ending the first segment (0:
	// one segment); ChowP the two-segment test's p-value and Gain its
	// relative reduction of the residual sum of squares.
	Break float64 `json:"break,omitempty"`
	ChowP float64 `json:"chowP"`
	Gain  float64 `json:"gain"`
	Tasks int     `json:"tasks"`
	// Min and Max are the primary variable's range in the benchmarks.
	Min float64 `json:"min"`
	Max float64 `json:"max"`
}

// Platform is ICPE'13's platform performance model of one cluster (§4): the
// durations of the generic phases as linear functions of the data they
// process, fitted on microbenchmark runs by robust regression.
type Platform struct {
	Parts [numParts]PartModel `json:"parts"`
	// Tails are the spread of the benchmark tasks' durations about their
	// job's mean, and the mean against the model's prediction: whole maps,
	// reduce shuffles, reduce phases (TailMap, TailShuffle, TailReduce).
	Tails [numTails]Tail `json:"tails"`
	// LaunchGapMs is the mean time a slot stood idle before a task that
	// reused it (Tail and ARIA assume none; YARN's container allocation
	// and locality waits make some).
	LaunchGapMs float64 `json:"launchGapMs"`
	// Spreads are, per benchmark, how its whole map and reduce attempts
	// (SpreadMap, SpreadReduce) scatter about the model's prediction for
	// its average task, killed attempts censored (attemptRatios): what a
	// replay draws from, with the job's own (spreadFor).
	Spreads [2][]Spread `json:"spreads"`
	// Benchmarks and Tasks count what it was fitted on.
	Benchmarks int `json:"benchmarks"`
	Tasks      int `json:"tasks"`
}

// FitPlatform fits the platform model on the benchmark jobs' tasks
// (Tasks of each benchmark job): per part, robust linear regression of
// the part's length on its data sizes — ICPE'13 §4, eq. (1), A_i + B_i ·
// Data_i^j = Dur_i^j, solved by "robust linear regression [7]" (Holland
// and Welsch, 1977: iteratively reweighted least squares; here Tukey's
// bisquare, c = 4.685, stats.IRLS) — per part of the job history rather
// than per phase (the paper's six phases need its modified Hadoop's
// counters; a part holding two phases has both data sizes as
// regressors). Then the paper's two-segment test (§4: "whether two linear
// functions may provide a better fit ... of training data ordered by the
// increasing data amount", with no test statistic given): at each 5%
// quantile of the primary data size that leaves enough tasks on both
// sides, fit each side on its own; the best split is kept when Chow's
// F-test rejects one line at Alpha and the split lowers the (robustly
// weighted) residual sum of squares by MinGain. Tasks without a phase
// boundary count in no part.
func FitPlatform(jobs [][]Task, opt PlatformOptions) (*Platform, error) {
	if opt.Alpha <= 0 {
		opt.Alpha = 0.01
	}
	if opt.MinGain <= 0 {
		opt.MinGain = 0.2
	}
	pl := &Platform{Benchmarks: len(jobs)}
	var by [numParts][]*Task
	for _, job := range jobs {
		for i := range job {
			t := &job[i]
			if t.Killed {
				continue
			}
			pl.Tasks++
			if t.Source == SourceCounters {
				continue
			}
			a, b := partOf(t)
			by[a] = append(by[a], t)
			by[b] = append(by[b], t)
		}
	}
	for p := range numParts {
		pm, err := fitPart(Part(p), by[p], opt)
		if err != nil {
			return nil, fmt.Errorf("platform model, %s: %w", Part(p), err)
		}
		pl.Parts[p] = *pm
	}
	// Per benchmark and kind of task: each task over the job's mean (the
	// spread the longest of n tasks comes from) and the job's mean over
	// the model's (how the mean sits against the robust fit of the bulk).
	var ratios [numTails][]float64
	var bias [numTails]struct{ measured, predicted float64 }
	var gaps []float64
	for _, job := range jobs {
		var ms [numTails][]float64
		for i := range job {
			t := &job[i]
			if t.Source == SourceCounters {
				continue
			}
			a, b := partOf(t)
			pa := pl.Parts[a].Ms(regressors(a, t))
			pb := pl.Parts[b].Ms(regressors(b, t))
			add := func(k int, measured, predicted float64) {
				ms[k] = append(ms[k], measured)
				bias[k].measured += measured
				bias[k].predicted += predicted
			}
			if t.Reduce {
				add(TailShuffle, float64(t.FirstMs), pa)
				add(TailReduce, float64(t.SecondMs()), pb)
			} else {
				add(TailMap, float64(t.TotalMs()), pa+pb)
			}
		}
		for k := range numTails {
			ratios[k] = appendSpread(ratios[k], ms[k])
		}
		gaps = append(gaps, launchGaps(job)...)
	}
	for k := range numTails {
		pl.Tails[k] = newTail(ratios[k])
		pl.Tails[k].Mean = max(ratio(bias[k].measured, bias[k].predicted), 1e-9)
	}
	for _, g := range gaps {
		pl.LaunchGapMs += g / float64(len(gaps))
	}
	for _, job := range jobs {
		obs, vs := attemptRatios(job, func(t *Task) (float64, float64) {
			fixed, total := pl.genericMs(nil, t, true)
			return fixed, total - fixed
		})
		for kind := range obs {
			if s := newSpread(obs[kind]); !s.Empty() {
				s.VariableMs = vs[kind]
				pl.Spreads[kind] = append(pl.Spreads[kind], s)
			}
		}
	}
	return pl, nil
}

// Tails of a platform.
const (
	TailMap     = iota // whole map tasks
	TailShuffle        // reduce shuffles (launch to sort end)
	TailReduce         // reduce phases (sort end to finish)
	numTails
)

// appendSpread appends each duration over their mean.
func appendSpread(r, durations []float64) []float64 {
	mean := 0.0
	for _, v := range durations {
		mean += v / float64(len(durations))
	}
	for _, v := range durations {
		r = appendRatio(r, v, mean)
	}
	return r
}

// taskSpreads are a job's tasks over their kind's mean in the job: whole
// maps, reduce shuffles, reduce phases (tasks without a phase boundary
// count in the whole maps only).
func taskSpreads(job []Task) [numTails][]float64 {
	var ms, out [numTails][]float64
	for i := range job {
		t := &job[i]
		switch {
		case t.Killed:
		case !t.Reduce:
			ms[TailMap] = append(ms[TailMap], float64(t.TotalMs()))
		case t.Source != SourceCounters:
			ms[TailShuffle] = append(ms[TailShuffle], float64(t.FirstMs))
			ms[TailReduce] = append(ms[TailReduce], float64(t.SecondMs()))
		}
	}
	for k := range numTails {
		out[k] = appendSpread(nil, ms[k])
	}
	return out
}

func appendRatio(r []float64, measured, predicted float64) []float64 {
	if predicted > 0 && measured > 0 {
		r = append(r, measured/predicted)
	}
	return r
}

// minPartTasks is the fewest timed tasks a part is fitted from;
// breakCandidates−1 breakpoints are tried.
const (
	minPartTasks    = 8
	breakCandidates = 20
)

func fitPart(p Part, tasks []*Task, opt PlatformOptions) (*PartModel, error) {
	nv := len(partVars[p]) + 1
	pm := &PartModel{Part: p.String(), Vars: partVars[p], Tasks: len(tasks), ChowP: 1}
	if len(tasks) < minPartTasks {
		return nil, &TooFewError{Model: "platform " + p.String(), Have: len(tasks), Need: minPartTasks,
			What: "timed tasks", Hint: "run the microbenchmarks (clusterlens predict bench) and give their histories"}
	}
	slices.SortFunc(tasks, func(a, b *Task) int { return cmp.Compare(regressors(p, a)[1], regressors(p, b)[1]) })
	x := stats.NewDense(len(tasks), nv)
	y := make([]float64, len(tasks))
	for i, t := range tasks {
		copy(x.Row(i), regressors(p, t))
		y[i] = float64(partMs(p, t))
	}
	pm.Min, pm.Max = x.X[1], x.X[(len(tasks)-1)*nv+1]
	cols := usableCols(x)
	one, rss1, err := robustSegment(x, y, cols, opt.Robust)
	if errors.Is(err, stats.ErrRankDeficient) && len(cols) > 2 {
		// The second variable moves with the first in every benchmark
		// (one reduce selectivity): fit the primary alone.
		cols = cols[:2]
		one, rss1, err = robustSegment(x, y, cols, opt.Robust)
	}
	if err != nil {
		return nil, err
	}
	pm.Segments = []Segment{{Coef: one}}
	// Two-segment test at the 5%, 10%, ..., 95% quantiles of the primary
	// data size (between distinct values, with enough tasks each side).
	need := 2 * len(cols)
	bestRSS, bestAt := math.Inf(1), -1
	var bestA, bestB []float64
	prev := -1
	for q := 1; q < breakCandidates; q++ {
		i := q * len(tasks) / breakCandidates
		for i < len(tasks) && i > 0 && x.X[i*nv+1] == x.X[(i-1)*nv+1] {
			i++ // split between distinct values only
		}
		if i == prev || i < need || i > len(tasks)-need {
			continue
		}
		prev = i
		lo, hi := rowsOf(x, 0, i), rowsOf(x, i, len(tasks))
		ca, ra, errA := robustSegment(lo, y[:i], within(cols, usableCols(lo)), opt.Robust)
		cb, rb, errB := robustSegment(hi, y[i:], within(cols, usableCols(hi)), opt.Robust)
		if errA != nil || errB != nil {
			continue
		}
		if ra+rb < bestRSS {
			bestRSS, bestAt, bestA, bestB = ra+rb, i, ca, cb
		}
	}
	if bestAt > 0 && rss1 > 0 {
		k := float64(len(cols))
		df := float64(len(tasks)) - 2*k
		pm.Gain = 1 - bestRSS/rss1
		if f := ((rss1 - bestRSS) / k) / (bestRSS / df); f > 0 && df > 0 && !math.IsInf(f, 0) {
			pm.ChowP = 1 - distuv.F{D1: k, D2: df}.CDF(f)
		}
		if pm.ChowP < opt.Alpha && pm.Gain >= opt.MinGain {
			pm.Segments = []Segment{{Coef: bestA}, {Coef: bestB}}
			pm.Break = x.X[(bestAt-1)*nv+1]
		}
	}
	return pm, nil
}

// within keeps the columns of b that are in a.
func within(a, b []int) []int {
	var out []int
	for _, c := range b {
		if slices.Contains(a, c) {
			out = append(out, c)
		}
	}
	return out
}

// usableCols are the columns of x that vary (the intercept always): a
// regressor constant over the tasks (no merge in any benchmark) cannot be
// told from the intercept.
func usableCols(x *stats.Dense) []int {
	cols := []int{0}
	for j := 1; j < x.D; j++ {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range x.N {
			lo, hi = min(lo, x.X[i*x.D+j]), max(hi, x.X[i*x.D+j])
		}
		if hi > lo {
			cols = append(cols, j)
		}
	}
	return cols
}

// robustSegment fits y on the columns cols of x by IRLS and returns the
// full coefficient vector (zeros for columns left out) and the weighted
// residual sum of squares Σ wᵢrᵢ².
func robustSegment(x *stats.Dense, y []float64, cols []int, opt stats.RobustOptions) ([]float64, float64, error) {
	sub := stats.NewDense(x.N, len(cols))
	for i := range x.N {
		for k, j := range cols {
			sub.X[i*len(cols)+k] = x.X[i*x.D+j]
		}
	}
	fit, err := stats.IRLS(sub, y, opt)
	if err != nil {
		return nil, 0, err
	}
	coef := make([]float64, x.D)
	for k, j := range cols {
		coef[j] = fit.Coef[k]
	}
	rss := 0.0
	for i := range x.N {
		r := y[i] - dot(coef, x.Row(i))
		rss += fit.Weights[i] * r * r
	}
	return coef, rss, nil
}

func rowsOf(x *stats.Dense, from, to int) *stats.Dense {
	return &stats.Dense{N: to - from, D: x.D, X: x.X[from*x.D : to*x.D]}
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// genericMs is the platform's prediction of a task's generic phases on
// class sp (nil: its own): the fixed part (the parts' intercepts, at least
// 0) and the whole. The write part's second term is the benchmarks'
// trivial reduce function: kept with benchReduce, left out for a job
// whose own reduce function replaces it.
func (pl *Platform) genericMs(sp *ClassChange, t *Task, benchReduce bool) (fixed, total float64) {
	first, second := partOf(t)
	for _, part := range []Part{first, second} {
		fx, _, _ := pl.Parts[part].Phases(regressors(part, t))
		fixed += fx
		total += pl.partMs(sp, part, t, benchReduce)
	}
	return max(0, fixed), total
}

// partMs is a part's predicted length for a task on class sp (genericMs).
func (pl *Platform) partMs(sp *ClassChange, part Part, t *Task, benchReduce bool) float64 {
	fx, f, s := pl.Parts[part].Phases(regressors(part, t))
	if part == ReduceSecond && !benchReduce {
		s = 0
	}
	return sp.part(part, fx, f, s)
}

// Ms is the part's predicted length for a task's data.
func (pm *PartModel) Ms(v []float64) float64 {
	seg := pm.Segments[0]
	if len(pm.Segments) == 2 && v[1] > pm.Break {
		seg = pm.Segments[1]
	}
	return max(0, dot(seg.Coef, v))
}

// Phases splits a part's predicted length into the fixed time (the
// intercept: JVM start, setup) and the time of its generic phases: the
// primary variable's term to the first phase, the second variable's to
// the second (read and collect; spill and merge; write and the
// benchmark's trivial reduce function).
func (pm *PartModel) Phases(v []float64) (fixed, first, second float64) {
	seg := pm.Segments[0]
	if len(pm.Segments) == 2 && v[1] > pm.Break {
		seg = pm.Segments[1]
	}
	fixed, first = seg.Coef[0], seg.Coef[1]*v[1]
	if len(v) > 2 {
		second = seg.Coef[2] * v[2]
	}
	return fixed, first, second
}

// PartError is how well one part of the platform model predicts a set of
// benchmark jobs (the analogue of ICPE'13's Table 1, §6: there on the
// training profile itself, error_i = |measured − predicted| / measured):
// relative errors
// |predicted − measured| / measured of each task's part, and of each job's
// mean over its tasks (what completion times rest on).
type PartError struct {
	Part       string  `json:"part"`
	Tasks      int     `json:"tasks"`
	TaskMedian float64 `json:"taskMedian"`
	TaskP90    float64 `json:"taskP90"`
	Jobs       int     `json:"jobs"`
	JobMedian  float64 `json:"jobMedian"`
	JobWorst   float64 `json:"jobWorst"`
	// Within are the shares of tasks whose error is at most 10%, 15% and
	// 20%: ICPE'13's Table 1.
	Within [3]float64 `json:"within10_15_20"`
}

// Errors measures the platform model on jobs' timed tasks.
func (pl *Platform) Errors(jobs [][]Task) []PartError {
	var task, job [numParts][]float64
	for _, j := range jobs {
		var meas, pred [numParts]float64
		var n [numParts]int
		for i := range j {
			t := &j[i]
			if t.Source == SourceCounters {
				continue
			}
			a, b := partOf(t)
			for _, p := range []Part{a, b} {
				m, e := float64(partMs(p, t)), pl.Parts[p].Ms(regressors(p, t))
				if m <= 0 {
					continue
				}
				task[p] = append(task[p], math.Abs(e-m)/m)
				meas[p], pred[p], n[p] = meas[p]+m, pred[p]+e, n[p]+1
			}
		}
		for p := range numParts {
			if n[p] > 0 {
				job[p] = append(job[p], math.Abs(pred[p]-meas[p])/meas[p])
			}
		}
	}
	out := make([]PartError, numParts)
	for p := range numParts {
		e := PartError{Part: Part(p).String(), Tasks: len(task[p]), Jobs: len(job[p])}
		if len(task[p]) > 0 {
			q := stats.Quantiles(task[p], []float64{0.5, 0.9})
			e.TaskMedian, e.TaskP90 = q[0], q[1]
			for k, bound := range []float64{0.10, 0.15, 0.20} {
				n := 0
				for _, v := range task[p] {
					if v <= bound {
						n++
					}
				}
				e.Within[k] = float64(n) / float64(len(task[p]))
			}
		}
		if len(job[p]) > 0 {
			e.JobMedian = stats.Quantiles(job[p], []float64{0.5})[0]
			e.JobWorst = slices.Max(job[p])
		}
		out[p] = e
	}
	return out
}
