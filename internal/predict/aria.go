package predict

import (
	"fmt"
	"math"
)

// StageDurations are the task durations ARIA needs of one stage (map,
// shuffle or reduce): their mean and maximum, in ms.
type StageDurations struct {
	Avg float64 `json:"avgMs"`
	Max float64 `json:"maxMs"`
}

// JobDurations is ARIA's job profile (Verma, Cherkasova and Campbell, "ARIA:
// Automatic Resource Inference and Allocation for MapReduce Environments",
// ICAC'11, §4.1): task counts and the average and maximum durations of the
// map tasks, of the first shuffle (the part of the first reduce wave's
// shuffle that did not overlap the maps), of the typical shuffle (the
// reduces of later waves) and of the reduce phase (the reduce function and
// the write after the shuffle and sort).
type JobDurations struct {
	Maps         int            `json:"maps"`
	Reduces      int            `json:"reduces"`
	Map          StageDurations `json:"map"`
	FirstShuffle StageDurations `json:"firstShuffle"`
	Shuffle      StageDurations `json:"typicalShuffle"`
	Reduce       StageDurations `json:"reduce"`
}

// Slots are the map and reduce slots (YARN containers) a job runs with.
type Slots struct {
	Map    int `json:"map"`
	Reduce int `json:"reduce"`
}

// Bounds are a completion time's lower and upper bounds and ARIA's estimate
// between them, in ms.
type Bounds struct {
	Low  float64 `json:"lowMs"`
	Avg  float64 `json:"avgMs"`
	High float64 `json:"highMs"`
}

// Makespan is the makespan theorem (ARIA §3): n tasks of mean duration avg
// and longest max, greedily assigned to k slots, finish between n·avg/k
// and (n−1)·avg/k + max. The lower bound is raised to avg when there are
// fewer tasks than slots (the makespan is at least the longest task, which
// is at least the mean): ARIA's n·avg/k is then far below any run.
func Makespan(n, k int, d StageDurations) Bounds {
	if n <= 0 || k <= 0 {
		return Bounds{}
	}
	low := max(float64(n)*d.Avg/float64(k), d.Avg)
	high := float64(n-1)*d.Avg/float64(k) + max(d.Max, d.Avg)
	return Bounds{Low: low, Avg: (low + high) / 2, High: high}
}

// JobBounds are ARIA's completion-time bounds of a MapReduce job with the
// given slots (§4.1): the map stage's makespan bounds, then the first
// shuffle, then the typical shuffles of the remaining reduce waves
// (lower: (N_R/S_R − 1)·Sh_avg; upper: ((N_R − 1)/S_R − 1)·Sh_avg + Sh_max),
// then the reduce phase's makespan bounds. T_avg = (T_low + T_up)/2 is the
// estimate ARIA found closest to measured times.
func JobBounds(j JobDurations, s Slots) (Bounds, error) {
	if j.Maps <= 0 {
		return Bounds{}, fmt.Errorf("aria: a job needs map tasks")
	}
	if s.Map <= 0 || j.Reduces > 0 && s.Reduce <= 0 {
		return Bounds{}, fmt.Errorf("aria: %d map and %d reduce slots: need at least one of each the job uses", s.Map, s.Reduce)
	}
	m := Makespan(j.Maps, s.Map, j.Map)
	b := Bounds{Low: m.Low, High: m.High}
	if j.Reduces > 0 {
		nr, sr := float64(j.Reduces), float64(s.Reduce)
		r := Makespan(j.Reduces, s.Reduce, j.Reduce)
		shLow := max(0, (nr/sr-1)*j.Shuffle.Avg)
		shHigh := max(0, ((nr-1)/sr-1)*j.Shuffle.Avg) + max(j.Shuffle.Max, j.Shuffle.Avg)
		if j.Reduces <= s.Reduce {
			shHigh = 0 // one wave: every shuffle is a first shuffle
		}
		b.Low += j.FirstShuffle.Avg + shLow + r.Low
		b.High += max(j.FirstShuffle.Max, j.FirstShuffle.Avg) + shHigh + r.High
	}
	b.Avg = (b.Low + b.High) / 2
	return b, nil
}

// Bound chooses which of a completion time's bounds a deadline is checked
// against.
type Bound string

// Bounds ARIA can plan for.
const (
	BoundLow  Bound = "low"
	BoundAvg  Bound = "avg"
	BoundHigh Bound = "high"
)

// MinSlots answers ARIA's inverse question (§4.2): the fewest map plus
// reduce slots with which the chosen bound of the job's completion time
// meets deadline ms. ARIA writes each bound as A·N_M/S_M + B·N_R/S_R + C
// and minimizes S_M + S_R on that curve by Lagrange's multipliers,
// S_M = √a(√a+√b)/D, S_R = √b(√a+√b)/D with a = A·N_M, b = B·N_R, D = T − C;
// the slots are rounded up and, since rounding and the one-wave cases make
// the curve uneven, then reduced one at a time while the deadline still
// holds. It fails when even one slot per task misses the deadline.
func MinSlots(j JobDurations, deadline float64, bound Bound) (Slots, Bounds, error) {
	full := Slots{Map: j.Maps, Reduce: max(j.Reduces, 1)}
	best, err := JobBounds(j, full)
	if err != nil {
		return Slots{}, Bounds{}, err
	}
	if bound.of(best) > deadline {
		return Slots{}, best, fmt.Errorf("aria: the %s bound is %.0f ms even with one slot per task (%d maps, %d reduces), over the deadline of %.0f ms",
			bound, bound.of(best), j.Maps, j.Reduces, deadline)
	}
	// Lagrange's solution on the lower-bound form as a start.
	a := j.Map.Avg * float64(j.Maps)
	bb := (j.Shuffle.Avg + j.Reduce.Avg) * float64(j.Reduces)
	c := j.FirstShuffle.Avg - j.Shuffle.Avg
	d := deadline - c
	s := full
	if d > 0 && a > 0 {
		sa, sb := math.Sqrt(a), math.Sqrt(bb)
		s.Map = min(j.Maps, max(1, int(math.Ceil(sa*(sa+sb)/d))))
		if j.Reduces > 0 {
			s.Reduce = min(j.Reduces, max(1, int(math.Ceil(sb*(sa+sb)/d))))
		}
	}
	var b Bounds
	s = fewestSlots(s, full, func(s Slots) bool {
		nb, err := JobBounds(j, s)
		if err == nil && bound.of(nb) <= deadline {
			b = nb
			return true
		}
		return false
	})
	return s, b, nil
}

// of is the bound's value among b.
func (bound Bound) of(b Bounds) float64 {
	switch bound {
	case BoundLow:
		return b.Low
	case BoundAvg:
		return b.Avg
	}
	return b.High
}

// fewestSlots grows s toward full (by an eighth, at least one, of each)
// until meets holds, then takes one slot at a time away while it still
// does. meets(full) must hold; the last call that held is for the result.
func fewestSlots(s, full Slots, meets func(Slots) bool) Slots {
	for !meets(s) {
		s = Slots{Map: min(full.Map, s.Map+max(1, s.Map/8)), Reduce: min(full.Reduce, s.Reduce+max(1, s.Reduce/8))}
	}
	for changed := true; changed; {
		changed = false
		for _, dec := range []Slots{{Map: s.Map - 1, Reduce: s.Reduce}, {Map: s.Map, Reduce: s.Reduce - 1}} {
			if dec.Map >= 1 && dec.Reduce >= 1 && meets(dec) {
				s, changed = dec, true
				break
			}
		}
	}
	meets(s)
	return s
}
