package anomaly

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// WindowParams are AbnormalWindows' parameters. Counts are in samples.
type WindowParams struct {
	// Window is how many consecutive samples Algorithm 4 turns into one
	// value per metric, their mean (Formula 6).
	Window int
	// History is how many normal samples before a window make the
	// reference it is compared with: the larger class of Algorithm 5.
	History int
	// Lookback is how far back (samples) the reference may reach to find
	// History samples outside abnormal windows. Past it, the last History
	// samples are the reference whatever they were: a change that lasts
	// that long is the node's new normal.
	Lookback int
	// MinHistory is the fewest reference samples a window needs to be
	// judged; earlier windows are not.
	MinHistory int
	// Step is how often (samples) the reference is recomputed.
	Step int
	// DMin is Algorithm 5's distance test: a metric is off in a window when
	// its mean is more than DMin reference spreads from the reference's
	// median (the larger class's representative point).
	DMin float64
	// Floor is the least spread, in Formula 8's units (the metric's
	// min-max range over the node's samples): a metric flat in the
	// reference is not off at the first flicker.
	Floor float64
	// MinMetrics is how many metrics must be off for a window to be
	// abnormal.
	MinMetrics int
	// RankFloor is the least spread when the metrics of a window are
	// ranked (WindowResult.Deviation, WindowMetric.Score): a larger floor
	// than the test's keeps metrics that barely move in normal times from
	// outranking the ones that broke.
	RankFloor float64
	// LongHistory is how many samples make the long-term reference (0:
	// none): the last LongHistory samples outside abnormal windows before
	// a sample, recomputed every History samples. A metric whose window
	// mean lies between that reference's LongQuantile and 1-LongQuantile
	// quantiles is not off, however far it is from the recent reference:
	// a level the node has held in its long-term normal (a load it has run
	// before, its return to normal after a long anomaly) is normal. Not
	// in HybridTune, whose reference is the stage's other nodes
	// (docs/PAPERS.md).
	LongHistory  int
	LongQuantile float64
}

// DefaultWindowParams are the defaults for one sample a minute, chosen on
// SMD leave one machine out (docs/ANOMALY.md): windows of 5 samples
// against the day before, metrics off by more than 4 spreads, two of them,
// unless inside the 0.5–99.5% range of the two weeks before.
func DefaultWindowParams() WindowParams {
	return WindowParams{Window: 5, History: 1440, Lookback: 2880, MinHistory: 360, Step: 30,
		DMin: 4, Floor: 0.02, MinMetrics: 2, RankFloor: 0.05, LongHistory: 20160, LongQuantile: 0.005}
}

// check reports parameters AbnormalWindows cannot use.
func (p WindowParams) check() error {
	switch {
	case p.Window < 1, p.History < 2, p.Step < 1, p.MinMetrics < 1:
		return fmt.Errorf("abnormal windows: window %d, history %d, step %d, min metrics %d: want each at least 1 (history 2)",
			p.Window, p.History, p.Step, p.MinMetrics)
	case p.Lookback < p.History:
		return fmt.Errorf("abnormal windows: lookback %d under history %d", p.Lookback, p.History)
	case p.MinHistory < 2 || p.MinHistory > p.History:
		return fmt.Errorf("abnormal windows: min history %d: want 2..%d", p.MinHistory, p.History)
	case p.LongHistory < 0 || !(p.LongQuantile >= 0 && p.LongQuantile < 0.5):
		return fmt.Errorf("abnormal windows: long history %d, long quantile %v: want history ≥ 0, quantile in [0, 0.5)", p.LongHistory, p.LongQuantile)
	case !(p.DMin > 0) || !(p.Floor >= 0) || !(p.RankFloor >= 0) || math.IsInf(p.DMin, 0) || math.IsInf(p.Floor, 0) || math.IsInf(p.RankFloor, 0):
		return fmt.Errorf("abnormal windows: d_min %v, floors %v and %v: want d_min > 0, floors ≥ 0", p.DMin, p.Floor, p.RankFloor)
	}
	return nil
}

// WindowMetric is one metric behind an abnormal window.
type WindowMetric struct {
	// Index is the metric's column; Metric its name, when the caller
	// named the columns (NodeWindows).
	Index  int    `json:"-"`
	Metric string `json:"metric"`
	// Value is the window mean farthest from Normal, the reference's
	// median; Spread is the reference's standard deviation (floored), all
	// in the metric's units.
	Value  float64 `json:"value"`
	Normal float64 `json:"normal"`
	Spread float64 `json:"spread"`
	// Deviation is |Value - Normal| / Spread.
	Deviation float64 `json:"deviation"`
	// Score is the metric's largest Deviation of a single sample in the
	// window, its spread floored at RankFloor: the window's metrics are
	// ranked by it, largest first.
	Score float64 `json:"score"`
}

// Window is one abnormal time window of a node: consecutive samples
// covered by abnormal windows of Window samples.
type Window struct {
	// Start and End are sample rows, [Start, End).
	Start, End int
	// Score is the largest, over the windows it merges, sum of the off
	// metrics' deviations.
	Score float64
	// Metrics are the metrics off in any of its windows, highest Score
	// first.
	Metrics []WindowMetric
}

// WindowResult is AbnormalWindows' result.
type WindowResult struct {
	// Judged is how many samples had a reference to be judged against
	// (the last ones: judging starts once MinHistory samples precede).
	Judged int
	// Windows are the abnormal windows in time order.
	Windows []Window
	// Abnormal marks every sample inside one.
	Abnormal []bool
	// Deviation[t][j] is sample t's metric j against the reference its
	// window was judged with, in spreads floored at RankFloor (0 before
	// MinHistory): a window's metrics ranked by their largest deviation
	// are ranked by HybridTune's max/min representative (Algorithm 5).
	Deviation [][]float64
}

// AbnormalWindows finds the abnormal time windows of one node's samples,
// x[t][j] being metric j at sample t (time order, a fixed interval; NaN
// missing), from its own past: HybridTune's outlier-metric diagnosis
// (Ren et al., §3.3.4) applied to time windows instead of a stage's
// nodes. Each metric is min-max normalised over the node's samples
// (Formula 8). For the window of p.Window samples ending at each sample,
// Algorithm 4 turns each metric into its mean (Formula 6); Algorithm 5's
// distance test compares it with the larger class, the node's last
// p.History samples outside abnormal windows (within p.Lookback),
// represented by their median, the distance measured in the reference's
// standard deviations (floored at p.Floor); a metric is off past p.DMin,
// unless its window mean is inside the long-term reference's quantile
// range (p.LongHistory, p.LongQuantile: our deviation, docs/PAPERS.md),
// and the window is abnormal when p.MinMetrics metrics are. Every sample
// of an abnormal window is abnormal and stays out of later references;
// consecutive abnormal samples make one Window.
func AbnormalWindows(x [][]float64, p WindowParams) (*WindowResult, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	n := len(x)
	res := &WindowResult{Abnormal: make([]bool, n), Deviation: make([][]float64, n)}
	if n == 0 {
		return res, nil
	}
	d := len(x[0])
	for t, r := range x {
		if len(r) != d {
			return nil, fmt.Errorf("abnormal windows: sample %d has %d values, want %d", t, len(r), d)
		}
		for j, v := range r {
			if math.IsInf(v, 0) {
				return nil, fmt.Errorf("abnormal windows: sample %d metric %d is %v, want a finite number or NaN", t, j, v)
			}
		}
	}
	u, lo, span := minMaxColumns(x, d)
	flat := make([]float64, n*d)
	for t := range res.Deviation {
		res.Deviation[t] = flat[t*d : (t+1)*d]
	}
	med, spread, rank := make([]float64, d), make([]float64, d), make([]float64, d)
	qlo, qhi := make([]float64, d), make([]float64, d)
	buf := make([]float64, 0, max(p.History, p.LongHistory))
	sum, cnt := make([]float64, d), make([]int, d) // window sums of u
	off := make([]float64, d)
	var cur *openWindow
	ready, long := false, false
	for t := range n {
		for j := range d {
			if v := u[t][j]; !math.IsNaN(v) {
				sum[j] += v
				cnt[j]++
			}
			if t >= p.Window {
				if v := u[t-p.Window][j]; !math.IsNaN(v) {
					sum[j] -= v
					cnt[j]--
				}
			}
		}
		if t%p.Step == 0 {
			ready = reference(u, res.Abnormal, t, p, buf, med, spread, rank)
		}
		if p.LongHistory > 0 && t%p.History == 0 {
			long = longRange(u, res.Abnormal, max(0, t-p.LongHistory), t, p, buf, qlo, qhi)
		}
		if !ready {
			continue
		}
		res.Judged++
		nOff, score := 0, 0.0
		for j := range d {
			off[j] = 0
			if v := u[t][j]; !math.IsNaN(v) && !math.IsNaN(med[j]) {
				res.Deviation[t][j] = math.Abs(v-med[j]) / rank[j]
			}
			if cnt[j] == 0 || math.IsNaN(med[j]) {
				continue
			}
			mean := sum[j] / float64(cnt[j])
			if long && mean >= qlo[j] && mean <= qhi[j] {
				continue
			}
			if dv := math.Abs(mean-med[j]) / spread[j]; dv > p.DMin {
				off[j] = dv
				nOff++
				score += dv
			}
		}
		if nOff < p.MinMetrics {
			continue
		}
		start := max(0, t-p.Window+1)
		for k := start; k <= t; k++ {
			res.Abnormal[k] = true
		}
		if cur != nil && start > cur.end {
			res.Windows = append(res.Windows, cur.close(lo, span))
			cur = nil
		}
		if cur == nil {
			cur = &openWindow{start: start, metrics: make([]WindowMetric, d)}
		}
		cur.end = t + 1
		cur.score = max(cur.score, score)
		for j, dv := range off {
			m := &cur.metrics[j]
			if dv > m.Deviation {
				m.Index, m.Value, m.Normal, m.Spread, m.Deviation = j, sum[j]/float64(cnt[j]), med[j], spread[j], dv
			}
		}
		for k := start; k <= t; k++ { // every sample of the window, off metrics or not
			for j, dv := range res.Deviation[k] {
				cur.metrics[j].Score = max(cur.metrics[j].Score, dv)
			}
		}
	}
	if cur != nil {
		res.Windows = append(res.Windows, cur.close(lo, span))
	}
	return res, nil
}

// longRange sets qlo and qhi to each metric's p.LongQuantile and
// 1-p.LongQuantile quantiles over the samples [from, to) outside abnormal
// windows (NaN for a metric with no value there: nothing is inside). It
// reports false, setting nothing, when fewer than p.MinHistory samples
// are. buf is scratch.
func longRange(u [][]float64, abnormal []bool, from, to int, p WindowParams, buf, qlo, qhi []float64) bool {
	rows := make([]int, 0, to-from)
	for k := from; k < to; k++ {
		if !abnormal[k] {
			rows = append(rows, k)
		}
	}
	if len(rows) < p.MinHistory {
		return false
	}
	for j := range qlo {
		buf = buf[:0]
		for _, k := range rows {
			if v := u[k][j]; !math.IsNaN(v) {
				buf = append(buf, v)
			}
		}
		if len(buf) == 0 {
			qlo[j], qhi[j] = math.NaN(), math.NaN()
			continue
		}
		slices.Sort(buf)
		last := float64(len(buf) - 1)
		qlo[j], qhi[j] = buf[int(p.LongQuantile*last)], buf[int(math.Ceil((1-p.LongQuantile)*last))]
	}
	return true
}

// openWindow is a Window being built; its metrics are indexed by column,
// in Formula 8's units, a zero Deviation for a metric never off.
type openWindow struct {
	start, end int
	score      float64
	metrics    []WindowMetric
}

// close returns the Window, its metrics' values back in their units (lo
// and span are each column's minimum and range).
func (o *openWindow) close(lo, span []float64) Window {
	w := Window{Start: o.start, End: o.end, Score: o.score}
	for j, m := range o.metrics {
		if m.Deviation == 0 {
			continue
		}
		m.Value, m.Normal, m.Spread = unscale(m.Value, lo[j], span[j]), unscale(m.Normal, lo[j], span[j]), m.Spread*span[j]
		w.Metrics = append(w.Metrics, m)
	}
	sort.SliceStable(w.Metrics, func(a, b int) bool { return w.Metrics[a].Score > w.Metrics[b].Score })
	return w
}

// unscale maps v back from Formula 8's units, rounding away what is
// left of the arithmetic below a billionth of the range.
func unscale(v, lo, span float64) float64 {
	x := lo + v*span
	if math.Abs(x) < 1e-9*span {
		return 0
	}
	return x
}

// minMaxColumns returns x with each column min-max normalised over its
// non-NaN values (Formula 8; a constant column becomes 0), and each
// column's minimum and range (1 for a constant one).
func minMaxColumns(x [][]float64, d int) (u [][]float64, lo, span []float64) {
	lo, span = make([]float64, d), make([]float64, d)
	hi := make([]float64, d)
	for j := range d {
		lo[j], hi[j] = math.Inf(1), math.Inf(-1)
	}
	for _, r := range x {
		for j, v := range r {
			if !math.IsNaN(v) {
				lo[j], hi[j] = min(lo[j], v), max(hi[j], v)
			}
		}
	}
	for j := range d {
		switch {
		case math.IsInf(lo[j], 1): // no value at all
			lo[j], span[j] = 0, 1
		case hi[j] > lo[j]:
			span[j] = hi[j] - lo[j]
		default:
			span[j] = 1
		}
	}
	flat := make([]float64, len(x)*d)
	u = make([][]float64, len(x))
	for t, r := range x {
		u[t] = flat[t*d : (t+1)*d]
		for j, v := range r {
			u[t][j] = (v - lo[j]) / span[j]
		}
	}
	return u, lo, span
}

// reference sets med and spread to the median and the standard deviation
// (at least p.Floor; rank at least p.RankFloor) of each metric over the
// reference of sample t: the
// last p.History samples before it outside abnormal windows within
// p.Lookback, else, when fewer than p.MinHistory are, the last p.History
// samples whatever they were. It reports false when there are not
// p.MinHistory samples before t. buf is scratch of capacity p.History.
func reference(u [][]float64, abnormal []bool, t int, p WindowParams, buf, med, spread, rank []float64) bool {
	if t < p.MinHistory {
		return false
	}
	rows := make([]int, 0, p.History)
	for k := t - 1; k >= max(0, t-p.Lookback) && len(rows) < p.History; k-- {
		if !abnormal[k] {
			rows = append(rows, k)
		}
	}
	if len(rows) < p.MinHistory {
		rows = rows[:0]
		for k := t - 1; k >= max(0, t-p.History); k-- {
			rows = append(rows, k)
		}
	}
	for j := range med {
		buf = buf[:0]
		for _, k := range rows {
			if v := u[k][j]; !math.IsNaN(v) {
				buf = append(buf, v)
			}
		}
		if len(buf) < 2 {
			med[j], spread[j], rank[j] = math.NaN(), p.Floor, p.RankFloor
			continue
		}
		var s, ss float64
		for _, v := range buf {
			s += v
		}
		mean := s / float64(len(buf))
		for _, v := range buf {
			ss += (v - mean) * (v - mean)
		}
		sd := math.Sqrt(ss / float64(len(buf)))
		spread[j], rank[j] = max(sd, p.Floor, 1e-12), max(sd, p.RankFloor, 1e-12)
		med[j] = medianSelect(buf)
	}
	return true
}

// medianSelect is the median of v (the mean of the middle two for an even
// count), reordering v.
func medianSelect(v []float64) float64 {
	n := len(v)
	m := stats.Select(v, n/2)
	if n%2 == 1 {
		return m
	}
	return (m + slices.Max(v[:n/2])) / 2
}

// NodeWindows are one node's abnormal windows in time.
type NodeWindows struct {
	Host string `json:"host"`
	// Samples is how many instants the node has, IntervalMs their median
	// spacing, FromMs and ToMs the first and the last (Unix ms); Judged
	// how many had a reference to be judged against.
	Samples    int          `json:"samples"`
	IntervalMs int64        `json:"intervalMs"`
	FromMs     int64        `json:"fromMs"`
	ToMs       int64        `json:"toMs"`
	Judged     int          `json:"judged"`
	Windows    []TimeWindow `json:"windows"`
	// Note says why the node was not judged, when it was not.
	Note string `json:"note,omitempty"`
}

// TimeWindow is a Window in time.
type TimeWindow struct {
	StartMs int64 `json:"startMs"`
	// EndMs is the last abnormal instant plus the interval (exclusive).
	EndMs   int64          `json:"endMs"`
	Score   float64        `json:"score"`
	Metrics []WindowMetric `json:"metrics"`
}

// InTime places res's windows on the node's instants times (ascending,
// one per row of AbnormalWindows' input), naming its columns by names.
func (res *WindowResult) InTime(host string, times []int64, intervalMs int64, names []string) NodeWindows {
	nw := NodeWindows{Host: host, Samples: len(times), IntervalMs: intervalMs, Judged: res.Judged, Windows: []TimeWindow{}}
	if len(times) > 0 {
		nw.FromMs, nw.ToMs = times[0], times[len(times)-1]
	}
	for _, w := range res.Windows {
		tw := TimeWindow{StartMs: times[w.Start], EndMs: times[w.End-1] + intervalMs, Score: w.Score}
		for _, m := range w.Metrics {
			m.Metric = names[m.Index]
			tw.Metrics = append(tw.Metrics, m)
		}
		nw.Windows = append(nw.Windows, tw)
	}
	return nw
}
