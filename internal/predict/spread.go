package predict

import (
	"cmp"
	"math"
	"slices"
	"sort"
)

// Spread is how one kind of task's durations scatter about a model's
// prediction for each task: the ratio of the task's variable time (its
// length less the predicted fixed cost, the JVM or executor start) to the
// predicted variable time. A finished attempt is an observed ratio; an
// attempt killed because another attempt of its task finished first
// (speculative execution) is right-censored at its length: the task would
// have taken at least that long. The distribution is the Kaplan–Meier
// product-limit estimate (Kaplan and Meier, "Nonparametric Estimation from
// Incomplete Observations", JASA 53, 1958, §2): without censoring, the
// empirical distribution; with it, the slow attempts speculation cut short
// still count, where the finished attempts alone would hide them.
type Spread struct {
	// X are the ratios, ascending and distinct; P the estimated
	// probability of a ratio at most X[i] (the last is 1). When attempts
	// were censored beyond every finished one, the mass left there sits at
	// the longest of them: a lower bound of their tasks' lengths.
	X []float64 `json:"ratios"`
	P []float64 `json:"cdf"`
	// Observed and Censored count the attempts.
	Observed int `json:"observed"`
	Censored int `json:"censored"`
	// Beyond is the probability the estimate leaves at the last ratio for
	// attempts censored beyond every finished one: there, the ratio is a
	// lower bound (completed fills it in).
	Beyond float64 `json:"beyond,omitempty"`
	// VariableMs is the predicted variable time of the average task the
	// ratios are relative to: how large the tasks were.
	VariableMs float64 `json:"variableMs"`
}

// ratioObs is one attempt's ratio, observed or right-censored.
type ratioObs struct {
	ratio    float64
	censored bool
}

// newSpread is the Kaplan–Meier estimate over obs (non-positive and
// non-finite ratios are dropped).
func newSpread(obs []ratioObs) Spread {
	obs = slices.DeleteFunc(slices.Clone(obs), func(o ratioObs) bool { return !(o.ratio > 0) || math.IsInf(o.ratio, 0) })
	// Ties: events before censorings (a censored attempt at x was at risk at x).
	slices.SortFunc(obs, func(a, b ratioObs) int {
		if c := cmp.Compare(a.ratio, b.ratio); c != 0 {
			return c
		}
		switch {
		case a.censored == b.censored:
			return 0
		case a.censored:
			return 1
		}
		return -1
	})
	var s Spread
	surv, atRisk, longest := 1.0, float64(len(obs)), 0.0
	for i := 0; i < len(obs); {
		x := obs[i].ratio
		events, cens := 0, 0
		for ; i < len(obs) && obs[i].ratio == x; i++ {
			if obs[i].censored {
				cens++
			} else {
				events++
			}
		}
		if events > 0 {
			surv *= 1 - float64(events)/atRisk
			s.X = append(s.X, x)
			s.P = append(s.P, 1-surv)
		}
		if cens > 0 {
			longest = x
		}
		s.Observed += events
		s.Censored += cens
		atRisk -= float64(events + cens)
	}
	if n := len(s.X); n > 0 && s.P[n-1] < 1 {
		s.Beyond = 1 - s.P[n-1]
		if longest > s.X[n-1] {
			s.X, s.P = append(s.X, longest), append(s.P, 1)
		} else {
			s.P[n-1] = 1
		}
	}
	return s
}

// Empty reports whether the spread holds no observed ratio.
func (s *Spread) Empty() bool { return len(s.X) == 0 }

// Quantile is the smallest ratio whose estimated probability of not being
// exceeded is above u (in [0, 1)). An empty spread is 1 everywhere: every
// task as predicted.
func (s *Spread) Quantile(u float64) float64 {
	if len(s.X) == 0 {
		return 1
	}
	i := sort.SearchFloat64s(s.P, u)
	for i < len(s.P) && s.P[i] <= u {
		i++
	}
	return s.X[min(i, len(s.X)-1)]
}

// Mean is the spread's mean ratio.
func (s *Spread) Mean() float64 {
	if len(s.X) == 0 {
		return 1
	}
	m, prev := 0.0, 0.0
	for i, x := range s.X {
		m += x * (s.P[i] - prev)
		prev = s.P[i]
	}
	return m
}

// at is the estimated probability of a ratio at most x.
func (s *Spread) at(x float64) float64 {
	i := sort.SearchFloat64s(s.X, x)
	if i < len(s.X) && s.X[i] == x {
		return s.P[i]
	}
	if i == 0 {
		return 0
	}
	return s.P[i-1]
}

// ExcessPrior is the default prior of the excess exponent
// (excessExponent), between an excess over the typical task the same
// whatever its length (0) and one in proportion to it (1); chosen on the
// simulated Spark applications' tuning seeds among 0.3 and 0.5
// (docs/PREDICT.md).
const ExcessPrior = 0.3

// excessPriorWeight is the prior's weight in excessExponent, as a
// variance of the stages' ln lengths: stages whose lengths lie a factor 2
// apart (a variance of (ln 2)² between two alike) speak as much as the
// prior, so that stages of one length, which cannot tell, leave it.
var excessPriorWeight = math.Ln2 * math.Ln2

// excessQuantile is the quantile of a spread whose distance from the
// median measures its excess in excessExponent: the tail, which decides
// a stage's slowest task.
const excessQuantile = 0.99

// excessExponent is β in a model of the time by which a task exceeds its
// stage's typical task, excess ∝ m^β in the typical task's variable time
// m (0: the same excess whatever the length, as a pause or a start-up
// jitter; 1: in proportion, as uneven data or a slow disk): the weighted
// least-squares slope of ln(excess) on ln m over the spreads (one point
// per stage, weighted by its attempts), a spread's excess being its
// excessQuantile less its median ratio, times its VariableMs. The slope is
// shrunk toward prior with the weight excessPriorWeight and kept in
// [0, 1]. Estimated from the recorded stages of different lengths alone;
// real Spark stages of long tasks spread less than short ones
// (docs/SIMULATOR.md), so the excess is neither additive nor proportional.
func excessExponent(spreads []Spread, prior float64) float64 {
	var w, x, y []float64
	total := 0.0
	for i := range spreads {
		s := &spreads[i]
		e := (s.Quantile(excessQuantile) - s.Quantile(0.5)) * s.VariableMs
		if s.Empty() || !(s.VariableMs > 0) || !(e > 0) {
			continue
		}
		n := float64(s.Observed + s.Censored)
		w, x, y = append(w, n), append(x, math.Log(s.VariableMs)), append(y, math.Log(e))
		total += n
	}
	var mx, my float64
	for i := range w {
		w[i] /= total
		mx += w[i] * x[i]
		my += w[i] * y[i]
	}
	var sxx, sxy float64
	for i := range w {
		sxx += w[i] * (x[i] - mx) * (x[i] - mx)
		sxy += w[i] * (x[i] - mx) * (y[i] - my)
	}
	return min(1, max(0, (sxy+excessPriorWeight*prior)/(sxx+excessPriorWeight)))
}

// lentTo is spread s for tasks of variable time v under the excess
// exponent beta (excessExponent): each ratio's distance from the median is
// multiplied by (v / s.VariableMs)^(beta−1), so that the excess in ms
// grows as the typical length to the power beta. It serves a stage whose
// tasks grew k-fold (its own spread, v = k times its VariableMs) and a
// stage lent another's spread (the application's other stages, of other
// lengths) alike. VariableMs stays the recorded one: how far the spread
// was carried, for the size kernel of spreadFor.
func (s Spread) lentTo(v, beta float64) Spread {
	if len(s.X) == 0 || !(s.VariableMs > 0) || !(v > 0) || v == s.VariableMs {
		return s
	}
	c := excessScale(v/s.VariableMs, beta)
	m := s.Quantile(0.5)
	g := s
	g.X = make([]float64, len(s.X))
	for i, x := range s.X {
		g.X[i] = max(0, m+(x-m)*c)
	}
	return g
}

// excessScale is the factor by which the length model (excessExponent)
// multiplies a task's excess over its stage's typical task, as a share of
// the typical task's variable time, when the typical task grows g-fold:
// g^(beta−1), so that the excess in ms grows as g^beta. lentTo carries a
// spread's ratios by it; the what-if (PredictSpark) a recorded task's
// excess in ms, times g.
func excessScale(g, beta float64) float64 { return math.Pow(g, beta-1) }

// TailIndex is the default Pareto index of the tail completed beyond the
// censored attempts (completed); chosen on the simulated Spark
// applications' tuning seeds among 1, 1.5 and 2 (docs/PREDICT.md).
const TailIndex = 2.0

// tailAtoms is how many equally likely ratios stand for the completed tail.
const tailAtoms = 16

// completed is s with its Beyond probability, left by the Kaplan–Meier
// estimate at the last ratio x where attempts were censored (killed by
// speculation: the task would have taken at least that long), spread over
// a Pareto tail of index alpha of the excess over the median beyond x − m:
// tailAtoms ratios at the tail's quantiles (j − ½)/tailAtoms. At x the
// ratio is only a lower bound; carried to longer or shorter tasks
// (lentTo) the bound alone would lose the stragglers speculation cut
// short.
func (s Spread) completed(alpha float64) Spread {
	n := len(s.X)
	if n == 0 || !(s.Beyond > 0) || !(alpha > 0) {
		return s
	}
	m := s.Quantile(0.5)
	e := s.X[n-1] - m
	if !(e > 0) {
		return s
	}
	g := s
	g.X, g.P = slices.Clone(s.X), slices.Clone(s.P)
	base := g.P[n-1] - s.Beyond
	if n > 1 && base <= g.P[n-2] {
		// the last ratio holds the censored probability alone
		g.X, g.P = g.X[:n-1], g.P[:n-1]
	} else {
		g.P[n-1] = base
	}
	for j := tailAtoms; j >= 1; j-- {
		u := (float64(j) - 0.5) / tailAtoms
		g.X = append(g.X, m+e*math.Pow(u, -1/alpha))
		g.P = append(g.P, base+s.Beyond*float64(tailAtoms-j+1)/tailAtoms)
	}
	g.P[len(g.P)-1] = 1
	g.Beyond = 0
	return g
}

// mixture is the distribution of a ratio drawn from spreads[i] with
// probability in proportion to weights[i] (empty spreads and non-positive
// weights count for nothing); empty when nothing counts.
func mixture(spreads []Spread, weights []float64) Spread {
	var m Spread
	var xs []float64
	total := 0.0
	for i := range spreads {
		if !spreads[i].Empty() && weights[i] > 0 {
			xs = append(xs, spreads[i].X...)
			total += weights[i]
			m.Observed += spreads[i].Observed
			m.Censored += spreads[i].Censored
		}
	}
	if total == 0 {
		return Spread{}
	}
	slices.Sort(xs)
	for _, x := range slices.Compact(xs) {
		p := 0.0
		for i := range spreads {
			if !spreads[i].Empty() && weights[i] > 0 {
				p += weights[i] * spreads[i].at(x)
			}
		}
		m.X, m.P = append(m.X, x), append(m.P, p/total)
	}
	m.P[len(m.P)-1] = 1
	return m
}

// attemptRatios are a job's map and reduce attempts as ratios (SpreadMap,
// SpreadReduce): per kind, every finished attempt's length, and every
// killed attempt's (censored), less the predicted fixed part over the
// predicted variable part of the job's average finished task of the kind.
// Against the average task rather than each task's own data, a spread
// holds the uneven split of the data among tasks as well as the noise.
func attemptRatios(job []Task, predict func(*Task) (fixed, variable float64)) (out [2][]ratioObs, variables [2]float64) {
	for kind, reduce := range []bool{false, true} {
		var sum Task
		n := int64(0)
		for i := range job {
			if t := &job[i]; t.Reduce == reduce && !t.Killed {
				sum.In, sum.InRecords, sum.Out, sum.Merge = sum.In+t.In, sum.InRecords+t.InRecords, sum.Out+t.Out, sum.Merge+t.Merge
				n++
			}
		}
		if n == 0 {
			continue
		}
		avg := Task{Reduce: reduce, In: sum.In / n, InRecords: sum.InRecords / n, Out: sum.Out / n, Merge: sum.Merge / n}
		fixed, variable := predict(&avg)
		if !(variable > 0) {
			continue
		}
		variables[kind] = variable
		for i := range job {
			if t := &job[i]; t.Reduce == reduce {
				out[kind] = append(out[kind], ratioObs{ratio: (float64(t.TotalMs()) - fixed) / variable, censored: t.Killed})
			}
		}
	}
	return out, variables
}

// SpreadBandwidth is the default bandwidth of the kernel that weighs
// spreads by the size of their tasks (spreadFor), in ln of the variable
// time: a spread of tasks twice or half the size weighs 0.79 of one of
// the same size, eight times 0.12.
const SpreadBandwidth = 1.0

// spreadFor is the distribution a replay draws the ratios of tasks of
// variable time v from: the mixture of the tasks' own spread (the
// program's own attempts, or a Spark stage's) and the others (the
// benchmarks', or the application's other stages), each weighted by a
// Gaussian kernel of bandwidth opt.Bandwidth in ln of its tasks' variable
// time over v: the own spread by opt.OwnWeight times its kernel, the others
// together by 1, each of them in proportion to its attempts times its
// kernel. Small tasks scatter more about their prediction than large ones
// (a start-up jitter of a few hundred ms is a large share of a short
// task), so the spreads of tasks nearest in size speak for the target's;
// the others resolve the rare stragglers the own attempts are too few to
// show.
func spreadFor(own Spread, others []Spread, v float64, opt ReplayOptions) Spread {
	kernel := func(s *Spread) float64 {
		if s.Empty() || !(s.VariableMs > 0) || !(v > 0) {
			return 0
		}
		d := math.Log(s.VariableMs/v) / opt.Bandwidth
		return math.Exp(-d * d / 2)
	}
	spreads := append([]Spread{own}, others...)
	w := make([]float64, len(spreads))
	rest := 0.0
	for i := range others {
		w[i+1] = float64(others[i].Observed+others[i].Censored) * kernel(&others[i])
		rest += w[i+1]
	}
	for i := range others {
		if rest > 0 {
			w[i+1] /= rest
		}
	}
	w[0] = opt.OwnWeight * kernel(&own)
	return mixture(spreads, w)
}
