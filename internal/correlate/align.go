package correlate

import (
	"cmp"
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Clock alignment parameters (clusterlens's own; HybridTune assumes
// synchronized clocks).
const (
	// AlignMaxShiftMs is the largest clock offset EstimateOffsets looks for.
	AlignMaxShiftMs = 30_000
	// AlignMinFit is the least correlation between a host's activity and
	// its running attempts for its estimated offset to be applied.
	AlignMinFit = 0.4
	// AlignMinGain is how much better than no shift an offset beyond one
	// sampling interval must fit to be believed (a node busy with work
	// the logs do not show, like a hog, can fit a wrong shift a little
	// better by chance).
	AlignMinGain = 0.05
)

// ClockOffset is a sample host's estimated clock offset: how far its
// clock runs ahead of the logs' (subtract it from its sample times).
type ClockOffset struct {
	SampleHost string  `json:"sampleHost"`
	OffsetMs   int64   `json:"offsetMs"`
	Fit        float64 `json:"fit"`
	Tasks      int     `json:"tasks"`
}

// EstimateOffsets estimates each sample host's clock offset from the
// attempts that the applications ran on it: the shift δ (within
// ±AlignMaxShiftMs) that best lines up the number of attempts running on
// the host with its samples' activity. For each candidate δ it computes,
// per sample row stamped t, the mean number of attempts running over
// (t-δ-Δ, t-δ], and scores δ by the mean Pearson correlation of that
// series with the rows' cpu_usage, disk and network throughput (those the
// host has), over the rows within AlignMaxShiftMs of the attempts; δ is
// searched on a grid of Δ, then of Δ/10 around the best; an offset beyond
// Δ must fit AlignMinGain better than none, else none is kept. Give it every
// application that ran on the cluster at the time: a node's activity is
// all of theirs. Hosts with fewer than 30 such rows or 2 attempts, or
// whose best fit is under AlignMinFit, are left out. Options.Offsets takes
// the result (Offsets).
func EstimateOffsets(apps []*model.App, fs *Frames, opts Options) []ClockOffset {
	opts.Offsets = nil
	byHost := map[*Frame][]window{}
	ivs := map[*Frame]int64{}
	for _, app := range apps {
		c := New(app, fs, opts)
		for k := range c.hosts {
			h := &c.hosts[k]
			byHost[h.frame] = append(byHost[h.frame], h.tasks...)
			ivs[h.frame] = h.iv
		}
	}
	var out []ClockOffset
	for _, f := range fs.Hosts() {
		ws := byHost[f]
		if len(ws) < 2 {
			continue
		}
		sortWindows(ws)
		d, fit := estimateOffset(f, ivs[f], ws)
		if !math.IsNaN(fit) && fit >= AlignMinFit {
			out = append(out, ClockOffset{SampleHost: f.Host, OffsetMs: d, Fit: math.Round(fit*1000) / 1000, Tasks: len(ws)})
		}
	}
	return out
}

// Offsets turns estimates into Options.Offsets.
func Offsets(cs []ClockOffset) map[string]int64 {
	m := make(map[string]int64, len(cs))
	for _, c := range cs {
		m[c.SampleHost] = c.OffsetMs
	}
	return m
}

// estimateOffset is EstimateOffsets for one host's frame, sampling
// interval and attempt windows (sorted by start).
func estimateOffset(f *Frame, iv int64, ws []window) (offsetMs int64, fit float64) {
	first, last := ws[0].start, ws[0].end
	for _, w := range ws {
		last = max(last, w.end)
	}
	lo, _ := slices.BinarySearch(f.Times, first-AlignMaxShiftMs)
	hi, _ := slices.BinarySearch(f.Times, last+AlignMaxShiftMs+iv+1)
	times := f.Times[lo:hi]
	if len(times) < 30 {
		return 0, math.NaN()
	}
	run := newRunning(ws)
	ys := activity(f, lo, hi)
	x := make([]float64, len(times))
	score := func(d int64) float64 {
		run.means(x, times, iv, d)
		var sum float64
		n := 0
		for _, y := range ys {
			if r := pearson(x, y); !math.IsNaN(r) {
				sum += r
				n++
			}
		}
		if n == 0 {
			return math.NaN()
		}
		return sum / float64(n)
	}
	best, bestFit := int64(0), math.Inf(-1)
	try := func(d int64) {
		if s := score(d); !math.IsNaN(s) && (s > bestFit || (s == bestFit && abs(d) < abs(best))) {
			best, bestFit = d, s
		}
	}
	step := max(iv, 100)
	for d := -int64(AlignMaxShiftMs); d <= AlignMaxShiftMs; d += step {
		try(d)
	}
	center := best
	for d := center - step; d <= center+step; d += max(step/10, 1) {
		try(d)
	}
	if math.IsInf(bestFit, -1) {
		return 0, math.NaN()
	}
	if abs(best) > step {
		if zero := score(0); !math.IsNaN(zero) && bestFit < zero+AlignMinGain {
			return 0, zero
		}
	}
	return best, bestFit
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// activity returns a frame's CPU, disk and network series over rows
// [lo, hi) (the ones it has), NaN where a row lacks the value.
func activity(f *Frame, lo, hi int) [][]float64 {
	var out [][]float64
	for _, get := range []func(r []float32) float64{
		func(r []float32) float64 { return float64(r[mCPUUsage]) }, diskBps, netBps,
	} {
		y := make([]float64, hi-lo)
		ok := false
		for i := range y {
			y[i] = get(f.Row(lo + i))
			ok = ok || !math.IsNaN(y[i])
		}
		if ok {
			out = append(out, y)
		}
	}
	return out
}

// running is the number of attempts running on a host as a step function:
// at times[i] the count becomes count[i]; cum[i] is its integral from
// times[0] to times[i] (attempt-milliseconds).
type running struct {
	times []int64
	count []float64
	cum   []float64
}

func newRunning(ws []window) *running {
	type ev struct {
		t int64
		d float64
	}
	evs := make([]ev, 0, 2*len(ws))
	for _, w := range ws {
		evs = append(evs, ev{w.start, 1}, ev{w.end, -1})
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmp.Compare(a.t, b.t) })
	r := &running{}
	var n, area float64
	for i, e := range evs {
		if i > 0 {
			area += n * float64(e.t-evs[i-1].t)
		}
		n += e.d
		if k := len(r.times); k > 0 && r.times[k-1] == e.t {
			r.count[k-1], r.cum[k-1] = n, area
			continue
		}
		r.times, r.count, r.cum = append(r.times, e.t), append(r.count, n), append(r.cum, area)
	}
	return r
}

// integral is the step function's integral from its first time to t; j
// is a hint (the index of the last time <= t found before, for ascending
// t) and is returned updated.
func (r *running) integral(t int64, j int) (float64, int) {
	for j+1 < len(r.times) && r.times[j+1] <= t {
		j++
	}
	if len(r.times) == 0 || t <= r.times[0] {
		return 0, 0
	}
	return r.cum[j] + r.count[j]*float64(t-r.times[j]), j
}

// means sets out[i], for each ascending sample time ts[i], to the mean
// count over (ts[i]-shift-iv, ts[i]-shift].
func (r *running) means(out []float64, ts []int64, iv, shift int64) {
	var jl, jh int
	for i, t := range ts {
		var lo, hi float64
		lo, jl = r.integral(t-shift-iv, jl)
		hi, jh = r.integral(t-shift, jh)
		out[i] = (hi - lo) / float64(iv)
	}
}

// pearson is the correlation of x and y over the indexes where y is a
// number; NaN when either is constant there.
func pearson(x, y []float64) float64 {
	var n, sx, sy float64
	for i, v := range y {
		if !math.IsNaN(v) {
			n++
			sx += x[i]
			sy += v
		}
	}
	if n < 3 {
		return math.NaN()
	}
	mx, my := sx/n, sy/n
	var cov, vx, vy float64
	for i, v := range y {
		if !math.IsNaN(v) {
			dx, dy := x[i]-mx, v-my
			cov += dx * dy
			vx += dx * dx
			vy += dy * dy
		}
	}
	if vx == 0 || vy == 0 {
		return math.NaN()
	}
	return cov / math.Sqrt(vx*vy)
}
