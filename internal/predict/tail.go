package predict

import (
	"cmp"
	"math"
	"slices"
)

// TailProbs are the probabilities at which a Tail keeps its quantiles.
var TailProbs = []float64{0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.98, 0.99, 0.995, 0.998, 0.999}

// Tail is how a platform's task durations spread about their job's mean
// (its microbenchmarks' tasks, each over the mean of its job's tasks of
// the kind): how much longer than the mean the slowest of n tasks will be.
type Tail struct {
	// Mean is the measured mean over the platform model's prediction (the
	// model fits the bulk of the tasks robustly, below a tail that lifts
	// the mean); Q the ratio's quantiles at the probabilities P, those of
	// TailProbs the tasks resolve (min(p, 1 − p) ≥ 1/Tasks); Min and Max
	// the extreme ratios.
	Mean  float64   `json:"mean"`
	P     []float64 `json:"probabilities"`
	Q     []float64 `json:"quantiles"`
	Min   float64   `json:"min"`
	Max   float64   `json:"max"`
	Tasks int       `json:"tasks"`
}

func newTail(ratios []float64) Tail {
	if len(ratios) == 0 {
		return Tail{Mean: 1, Min: 1, Max: 1}
	}
	slices.Sort(ratios)
	n := float64(len(ratios))
	t := Tail{Mean: 1, Min: ratios[0], Max: ratios[len(ratios)-1], Tasks: len(ratios)}
	for _, p := range TailProbs {
		if min(p, 1-p) >= 1/n {
			t.P = append(t.P, p)
			t.Q = append(t.Q, ratios[min(len(ratios)-1, int(p*n))])
		}
	}
	return t
}

// wider is the tail that, at each probability, is the longer of t and o
// (the lower quantile below the median, the higher above it, the wider
// extremes, the finer resolution), keeping t's Mean.
func (t Tail) wider(o Tail) Tail {
	if o.Tasks == 0 {
		return t
	}
	if t.Tasks == 0 {
		o.Mean = t.Mean
		return o
	}
	w := Tail{Mean: t.Mean, Min: min(t.Min, o.Min), Max: max(t.Max, o.Max), Tasks: max(t.Tasks, o.Tasks)}
	for _, p := range TailProbs {
		if !slices.Contains(t.P, p) && !slices.Contains(o.P, p) {
			continue
		}
		a, b := t.At(p), o.At(p)
		w.P = append(w.P, p)
		if p < 0.5 {
			w.Q = append(w.Q, min(a, b))
		} else {
			w.Q = append(w.Q, max(a, b))
		}
	}
	return w
}

// tailX maps a probability to the axis quantiles are interpolated on:
// linear below the median, −ln(1 − p) above it (so that the far tail is
// spread out).
func tailX(p float64) float64 {
	if p <= 0.5 {
		return p
	}
	return 0.5 + math.Log(0.5/(1-p))
}

// At is the ratio's quantile at p, interpolated between the kept
// quantiles, the minimum at 1/Tasks and the maximum at 1 − 1/Tasks (the
// sample extremes' usual ranks); the extremes beyond.
func (t Tail) At(p float64) float64 {
	if t.Tasks == 0 {
		return 1
	}
	p = min(max(p, 1e-12), 1-1e-12)
	n := float64(t.Tasks)
	xs := []float64{tailX(1 / n)}
	ys := []float64{t.Min}
	for i, q := range t.Q {
		xs, ys = append(xs, tailX(t.P[i])), append(ys, q)
	}
	xs, ys = append(xs, tailX(1-1/n)), append(ys, t.Max)
	x := tailX(p)
	if x <= xs[0] {
		return ys[0]
	}
	for i := 1; i < len(xs); i++ {
		if x <= xs[i] {
			if xs[i] <= xs[i-1] {
				return ys[i]
			}
			f := (x - xs[i-1]) / (xs[i] - xs[i-1])
			return ys[i-1] + f*(ys[i]-ys[i-1])
		}
	}
	return t.Max
}

// MaxOf is the ratio the longest of n tasks stays under with probability
// conf: the quantile at conf^(1/n), for tasks drawn independently.
func (t Tail) MaxOf(n int, conf float64) float64 {
	if n <= 0 {
		return 1
	}
	return t.At(math.Pow(conf, 1/float64(n)))
}

// launchGaps are, over tasks that reused a slot of their stage, the time
// the slot stood idle before them: each host's attempts of one kind are
// laid in slots as YARN's containers would hold them (an attempt takes the
// slot freed earliest by then, a new slot when none is free).
func launchGaps(tasks []Task) []float64 {
	var gaps []float64
	for _, reduce := range []bool{false, true} {
		byHost := map[string][]Task{}
		for _, t := range tasks {
			if t.Reduce == reduce && !t.Killed {
				byHost[t.Host] = append(byHost[t.Host], t)
			}
		}
		for _, ts := range byHost {
			slices.SortFunc(ts, func(a, b Task) int { return cmp.Compare(a.Launch, b.Launch) })
			var free []int64 // each slot's last finish
			for _, t := range ts {
				best := -1
				for i, f := range free {
					if f <= t.Launch && (best < 0 || f < free[best]) {
						best = i
					}
				}
				if best < 0 {
					free = append(free, t.Finish)
					continue
				}
				gaps = append(gaps, float64(t.Launch-free[best]))
				free[best] = t.Finish
			}
		}
	}
	return gaps
}
