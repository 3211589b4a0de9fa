package predict

import (
	"math"
	"math/rand/v2"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// ReplayOptions tune the Monte Carlo replay of a prediction's tasks. Zero
// fields take the defaults.
type ReplayOptions struct {
	// Runs is the number of replays (default 200); Seed seeds their draws
	// (default 1), so that a prediction is repeatable.
	Runs int
	Seed uint64
	// Level is the share of replays the interval covers (default 0.9).
	Level float64
	// Speculation is the target's speculative execution.
	Speculation Speculation
	// Bandwidth is the size kernel's, in ln of the tasks' variable time,
	// by which spreads of other tasks weigh (default SpreadBandwidth);
	// OwnWeight the weight of the tasks' own spread against all the others
	// together at the same size (default 1; spreadFor).
	Bandwidth, OwnWeight float64
	// ExcessPrior is the prior of the Spark replay's excess exponent
	// (excessExponent; default ExcessPrior, a value in (0, 1]); TailIndex
	// the Pareto index of the tail completed beyond censored attempts
	// (Spread.completed; default TailIndex). MapReduce replays use
	// neither.
	ExcessPrior, TailIndex float64
}

func (o ReplayOptions) withDefaults() ReplayOptions {
	if o.Runs <= 0 {
		o.Runs = 200
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if !(o.Level > 0 && o.Level < 1) {
		o.Level = 0.9
	}
	if !(o.Bandwidth > 0) || math.IsInf(o.Bandwidth, 0) {
		o.Bandwidth = SpreadBandwidth
	}
	if !(o.OwnWeight > 0) || math.IsInf(o.OwnWeight, 0) {
		o.OwnWeight = 1
	}
	if !(o.ExcessPrior > 0 && o.ExcessPrior <= 1) {
		o.ExcessPrior = ExcessPrior
	}
	if !(o.TailIndex > 0) || math.IsInf(o.TailIndex, 0) {
		o.TailIndex = TailIndex
	}
	o.Speculation = o.Speculation.withDefaults()
	return o
}

// Replayed is what the Monte Carlo replays of a prediction gave: the
// median completion time (the estimate), the mean, and the interval
// holding Level of the replays.
type Replayed struct {
	Runs     int         `json:"runs"`
	MedianMs float64     `json:"medianMs"`
	MeanMs   float64     `json:"meanMs"`
	Level    float64     `json:"level"`
	LowMs    float64     `json:"lowMs"`
	HighMs   float64     `json:"highMs"`
	Spec     Speculation `json:"speculation"`
}

// summarizeReplays turns the replays' completion times into a Replayed.
func summarizeReplays(times []float64, opt ReplayOptions) *Replayed {
	q := stats.Quantiles(times, []float64{0.5, (1 - opt.Level) / 2, (1 + opt.Level) / 2})
	r := &Replayed{Runs: len(times), MedianMs: q[0], Level: opt.Level, LowMs: q[1], HighMs: q[2], Spec: opt.Speculation}
	for _, t := range times {
		r.MeanMs += t / float64(len(times))
	}
	return r
}

// replayStream is the PCG stream of the replays' draws.
const replayStream = 0x9e3779b97f4a7c15

// replayMR replays a MapReduce job opt.Runs times: the maps on the map
// slots, then (the reduces starting once every map finished) the reduces on
// the reduce slots, each attempt drawn from its kind's spread, plus the
// job's overhead outside its tasks.
func replayMR(maps, reduces *stageTasks, slots Slots, overheadMs float64, opt ReplayOptions) *Replayed {
	rng := rand.New(rand.NewPCG(opt.Seed, replayStream))
	var r stageReplay
	times := make([]float64, opt.Runs)
	for i := range times {
		t := overheadMs + r.replay(maps, slots.Map, opt.Speculation, rng)
		if reduces != nil && reduces.n > 0 {
			t += r.replay(reduces, slots.Reduce, opt.Speculation, rng)
		}
		times[i] = t
	}
	return summarizeReplays(times, opt)
}
