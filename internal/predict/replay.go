package predict

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Speculation is the speculative-execution rule a replay assumes: once
// Quantile of a stage's tasks have finished, every check (each IntervalMs)
// gives a task whose attempt has run longer than Multiplier times the
// median of the finished tasks' durations one copy on a free slot; the
// first attempt to finish wins and the other is killed. The defaults are
// Spark's (spark.speculation.quantile 0.75, spark.speculation.multiplier
// 1.5, spark.speculation.interval 100 ms). Hadoop's default speculator
// estimates each attempt's end from its progress instead; the rule is the
// same in spirit (copy the tasks far slower than their stage's typical).
type Speculation struct {
	On         bool    `json:"on"`
	Quantile   float64 `json:"quantile,omitempty"`
	Multiplier float64 `json:"multiplier,omitempty"`
	IntervalMs float64 `json:"intervalMs,omitempty"`
}

// SpeculationOf is the speculative execution a run had: for Spark,
// spark.speculation (default off) with spark.speculation.quantile,
// .multiplier and .interval; for MapReduce, mapreduce.map.speculative or
// mapreduce.reduce.speculative (Hadoop's default on) from the job's
// configuration where it was read beside the history. Unset parameters
// take Speculation's defaults.
func SpeculationOf(app *model.App) Speculation {
	if app.Engine == model.MapReduce {
		on := func(key string) bool {
			for _, kv := range app.Conf {
				if kv[0] == key {
					return !strings.EqualFold(strings.TrimSpace(kv[1]), "false")
				}
			}
			return true
		}
		return Speculation{On: on("mapreduce.map.speculative") || on("mapreduce.reduce.speculative")}
	}
	var s Speculation
	if v, ok := app.Env.SparkProp("spark.speculation"); ok {
		s.On = strings.EqualFold(strings.TrimSpace(v), "true")
	}
	if v, ok := app.Env.SparkProp("spark.speculation.quantile"); ok {
		s.Quantile, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
	}
	if v, ok := app.Env.SparkProp("spark.speculation.multiplier"); ok {
		s.Multiplier, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
	}
	if v, ok := app.Env.SparkProp("spark.speculation.interval"); ok {
		s.IntervalMs = sparkTimeMs(v)
	}
	return s
}

// sparkTimeMs reads a Spark time setting ("100ms", "1s", "2min"; a bare
// number is milliseconds, as for spark.speculation.interval); 0 when it
// cannot.
func sparkTimeMs(v string) float64 {
	v = strings.ToLower(strings.TrimSpace(v))
	units := []struct {
		suffix string
		ms     float64
	}{{"us", 1e-3}, {"ms", 1}, {"min", 60e3}, {"s", 1e3}, {"m", 60e3}, {"h", 3600e3}, {"d", 86400e3}}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(v, u.suffix) {
			v, mult = strings.TrimSuffix(v, u.suffix), u.ms
			break
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 {
		return 0
	}
	return f * mult
}

// withDefaults puts the default in place of every parameter out of its
// range (non-positive, not a number, infinite; a quantile above 1).
func (s Speculation) withDefaults() Speculation {
	usable := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	if !usable(s.Quantile) || s.Quantile > 1 {
		s.Quantile = 0.75
	}
	if !usable(s.Multiplier) {
		s.Multiplier = 1.5
	}
	if !usable(s.IntervalMs) {
		s.IntervalMs = 100
	}
	return s
}

// stageTasks describes one stage's tasks for a replay: their count, the
// fixed part of each task's length and a draw of its variable part.
type stageTasks struct {
	n     int
	fixed float64
	// variable is the predicted variable time of task i; each attempt
	// takes it times a ratio drawn from spread.
	variable func(i int) float64
	spread   *Spread
	// gapMs is the idle time of a slot before a task that reuses it.
	gapMs float64
}

// attempt is one running attempt in a stage replay.
type attempt struct {
	task        int
	start, end  float64
	speculative bool
}

// attemptHeap is a min-heap of running attempts by their end.
type attemptHeap []attempt

func (h *attemptHeap) push(a attempt) {
	*h = append(*h, a)
	q := *h
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if q[p].end <= q[i].end {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *attemptHeap) pop() attempt {
	q := *h
	top := q[0]
	q[0] = q[len(q)-1]
	q = q[:len(q)-1]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(q) && q[l].end < q[m].end {
			m = l
		}
		if l+1 < len(q) && q[l+1].end < q[m].end {
			m = l + 1
		}
		if m == i {
			break
		}
		q[i], q[m] = q[m], q[i]
		i = m
	}
	*h = q
	return top
}

// stageReplay is the scratch state of one stage's replay, reused across
// replays.
type stageReplay struct {
	running attemptHeap
	// originals are the tasks' first attempts in launch order (which is
	// start order): speculation looks at the oldest first.
	originals []attempt
	state     []uint8 // per task: 0 running or waiting, 1 copied, 2 done
	med       runningMedian
	// effective are the tasks' lengths as their stage saw them, from the
	// first attempt's start to the winning attempt's end.
	effective []float64
}

// Task states in a stage replay.
const (
	taskRunning uint8 = iota
	taskCopied
	taskDone
)

// replay runs the stage's tasks on k slots, list-scheduled in order (a
// task starts on the first slot to free up, after the stage's gap), each
// attempt's length drawn anew, with speculation as spec says. It returns
// the stage's makespan and fills effective.
func (r *stageReplay) replay(st *stageTasks, k int, spec Speculation, rng *rand.Rand) float64 {
	n := st.n
	r.running = r.running[:0]
	r.originals = slices.Grow(r.originals[:0], n)
	r.state = slices.Grow(r.state[:0], n)[:n]
	r.effective = slices.Grow(r.effective[:0], n)[:n]
	clear(r.state)
	r.med.reset()
	launch := func(i int, at float64, speculative bool) {
		a := attempt{task: i, start: at, end: at + st.fixed + st.variable(i)*st.spread.Quantile(rng.Float64()), speculative: speculative}
		r.running.push(a)
		if !speculative {
			r.originals = append(r.originals, a)
		}
	}
	next, idle := 0, k
	for ; next < n && idle > 0; next++ {
		launch(next, 0, false)
		idle--
	}
	now, makespan := 0.0, 0.0
	done, head := 0, 0
	for done < n {
		end := r.running[0].end
		if spec.On && idle > 0 && done > 0 && float64(done) >= spec.Quantile*float64(n) {
			for head < len(r.originals) && r.state[r.originals[head].task] != taskRunning {
				head++
			}
			if head < len(r.originals) {
				// The first check at which the oldest uncopied attempt has
				// run longer than the limit.
				limit := spec.Multiplier * r.med.median()
				at := max(math.Floor(now/spec.IntervalMs)+1, math.Floor((r.originals[head].start+limit)/spec.IntervalMs)+1) * spec.IntervalMs
				if at < end {
					now = at
					for ; head < len(r.originals) && idle > 0; head++ {
						a := &r.originals[head]
						if r.state[a.task] != taskRunning {
							continue
						}
						if now-a.start <= limit {
							break
						}
						r.state[a.task] = taskCopied
						launch(a.task, now, true)
						idle--
					}
					continue
				}
			}
		}
		a := r.running.pop()
		now = a.end
		freed := 1
		switch {
		case r.state[a.task] == taskDone:
			freed = 0 // killed when its other attempt won: its slot freed then
		case r.state[a.task] == taskCopied:
			freed = 2 // its other attempt is killed now
			fallthrough
		default:
			r.state[a.task] = taskDone
			done++
			r.med.add(a.end - a.start)
			r.effective[a.task] = a.end
			makespan = max(makespan, a.end)
		}
		for ; freed > 0; freed-- {
			if next < n {
				launch(next, now+st.gapMs, false)
				next++
			} else {
				idle++
			}
		}
	}
	for i := range r.originals {
		o := &r.originals[i]
		r.effective[o.task] -= o.start
	}
	return makespan
}

// runningMedian keeps the median of a growing set of values: a max-heap
// of the lower half and a min-heap of the upper half.
type runningMedian struct{ lo, hi []float64 }

func (m *runningMedian) reset() { m.lo, m.hi = m.lo[:0], m.hi[:0] }

func (m *runningMedian) add(v float64) {
	if len(m.lo) == 0 || v <= m.lo[0] {
		m.lo = pushHeap(m.lo, v, true)
	} else {
		m.hi = pushHeap(m.hi, v, false)
	}
	switch {
	case len(m.lo) > len(m.hi)+1:
		var top float64
		m.lo, top = popHeap(m.lo, true)
		m.hi = pushHeap(m.hi, top, false)
	case len(m.hi) > len(m.lo):
		var top float64
		m.hi, top = popHeap(m.hi, false)
		m.lo = pushHeap(m.lo, top, true)
	}
}

// median is the upper median for an even count, as Spark's (the middle
// element of the sorted durations, index n/2).
func (m *runningMedian) median() float64 {
	if len(m.hi) == len(m.lo) && len(m.hi) > 0 {
		return m.hi[0]
	}
	return m.lo[0]
}

// before orders a heap: larger first when maxHeap.
func before(a, b float64, maxHeap bool) bool {
	if maxHeap {
		return a > b
	}
	return a < b
}

func pushHeap(h []float64, v float64, maxHeap bool) []float64 {
	h = append(h, v)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !before(h[i], h[p], maxHeap) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

func popHeap(h []float64, maxHeap bool) ([]float64, float64) {
	top := h[0]
	h[0] = h[len(h)-1]
	h = h[:len(h)-1]
	for i := 0; ; {
		l, best := 2*i+1, i
		if l < len(h) && before(h[l], h[best], maxHeap) {
			best = l
		}
		if l+1 < len(h) && before(h[l+1], h[best], maxHeap) {
			best = l + 1
		}
		if best == i {
			break
		}
		h[i], h[best] = h[best], h[i]
		i = best
	}
	return h, top
}
