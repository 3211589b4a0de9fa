package anomaly

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// NormalParams are the parameters of ScoreAgainstNormal.
type NormalParams struct {
	// CCR is the cumulative contribution rate of the PCA over the normal
	// period that picks the principal metrics; 1 (the default) makes every
	// metric principal. Without peers, PCA over the normal period keeps
	// the metrics that vary in normal times, not those that break: on SMD
	// the flagged metrics' recall is 0.12 with HybridTune's 0.95 and 0.68
	// with 1 (docs/ANOMALY.md).
	CCR float64
	// Rep is the window's representative point (RepMaxMin: its point
	// farthest from the normal median, the max or the min; RepMedian: its
	// median). The normal period is represented by its median.
	Rep Rep
	// DMin is the distance test's threshold in min-max units of the normal
	// period (DefaultDMin).
	DMin float64
	// Orders and Floor are the magnitude test's (DefaultOrders,
	// DefaultFloor; Floor is a fraction of the metric's largest magnitude
	// in the normal period and the window). Orders 0 turns the test off.
	Orders, Floor float64
}

// DefaultNormalParams returns ScoreAgainstNormal's defaults.
func DefaultNormalParams() NormalParams {
	return NormalParams{CCR: 1, Rep: RepMaxMin, DMin: DefaultDMin, Orders: DefaultOrders, Floor: DefaultFloor}
}

// MetricScore is one metric's result of ScoreAgainstNormal.
type MetricScore struct {
	// Index is the metric's column.
	Index int
	// Value is the window's representative point, NormalMedian the normal
	// period's median (the metric's units).
	Value, NormalMedian float64
	// Score is |Value - NormalMedian| over the normal period's range
	// (max - min; when the normal period is constant, the range of the
	// normal period and the window together, so a change scores 1): the
	// outlier score metrics are ranked by.
	Score float64
	// Decades is |log10(Value/NormalMedian)| (floored); Magnitude is
	// Decades ≥ Orders.
	Decades   float64
	Magnitude bool
	// Distant is Score > DMin: the window's representative point is
	// farther than d_min from the normal period's.
	Distant bool
	// Principal says PCA over the normal period kept the metric.
	Principal bool
}

// Outlier reports whether the metric is flagged: a principal metric that
// a test flagged.
func (m *MetricScore) Outlier() bool { return m.Principal && (m.Magnitude || m.Distant) }

// ScoreAgainstNormal is HybridTune's outlier-metric diagnosis (Ren et al.,
// §3.3.4) for one machine without peers: the larger class of Algorithm 5
// is the machine's own observations in a normal period.
// normal and window are observations, one row per instant and one column
// per metric. The PCA keeps the principal metrics of the normal period
// (PrincipalMetrics). Algorithms 4 and 5 become, per metric: the two
// classes are given (the normal observations and the window's), the
// normal class is represented by its median and the window by p.Rep (its
// extreme point or its median); values are min-max normalised against the
// normal period (Formula 8); the distance test flags the metric
// when the representatives are more than p.DMin apart, the magnitude test
// when they are p.Orders decades apart. The result has one MetricScore per
// metric, highest Score first (ties in column order).
func ScoreAgainstNormal(normal, window [][]float64, p NormalParams) ([]MetricScore, error) {
	if len(normal) < 2 {
		return nil, fmt.Errorf("score against normal: %d normal observation(s), want at least 2", len(normal))
	}
	if len(window) == 0 {
		return nil, fmt.Errorf("score against normal: empty window")
	}
	d := len(normal[0])
	for i, r := range normal {
		if len(r) != d {
			return nil, fmt.Errorf("score against normal: normal observation %d has %d values, want %d", i, len(r), d)
		}
	}
	for i, r := range window {
		if len(r) != d {
			return nil, fmt.Errorf("score against normal: window observation %d has %d values, want %d", i, len(r), d)
		}
	}
	principal, err := PrincipalMetrics(normal, p.CCR)
	if err != nil {
		return nil, fmt.Errorf("score against normal: %w", err)
	}
	out := make([]MetricScore, d)
	col := make([]float64, len(normal))
	win := make([]float64, len(window))
	for j := range d {
		lo, hi := math.Inf(1), math.Inf(-1)
		for i, r := range normal {
			v := r[j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("score against normal: normal observation %d metric %d is %v, want a finite number", i, j, v)
			}
			col[i] = v
			lo, hi = min(lo, v), max(hi, v)
		}
		med := median(col)
		big := max(math.Abs(lo), math.Abs(hi))
		rep, far := 0.0, -1.0
		for i, r := range window {
			v := r[j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("score against normal: window observation %d metric %d is %v, want a finite number", i, j, v)
			}
			win[i] = v
			if dv := math.Abs(v - med); dv > far {
				rep, far = v, dv
			}
			big = max(big, math.Abs(v))
		}
		if p.Rep == RepMedian {
			rep = median(win)
		}
		span := hi - lo
		if span == 0 {
			span = max(hi, rep) - min(lo, rep)
		}
		ms := MetricScore{Index: j, Value: rep, NormalMedian: med}
		if span > 0 {
			ms.Score = math.Abs(rep-med) / span
		}
		ms.Decades = decades(rep, med, p.Floor*big)
		ms.Magnitude = p.Orders > 0 && ms.Decades >= p.Orders
		ms.Distant = ms.Score > p.DMin
		ms.Principal = slices.Contains(principal, j)
		out[j] = ms
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Score > out[b].Score })
	return out, nil
}
