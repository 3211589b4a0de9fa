package anomaly

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Defaults of Algorithm 5's tests (Ren et al., HybridTune, §3.3.4).
const (
	// DefaultDMin is the distance test's d_min, in normalised units: the
	// value of the paper's case studies (§6, Tables IV–VII: d_min = 0.5)
	// and of its headline F1 of about 80% (§5.3.3, where it measures 0.4,
	// 0.5 and 0.6).
	DefaultDMin = 0.5
	// DefaultOrders is how many orders of magnitude a value must be off
	// its peers' for the magnitude test (one: the paper's example,
	// §3.3.4, tells −2 from 0).
	DefaultOrders = 1.0
	// DefaultFloor is the magnitude test's floor, a fraction of the
	// metric's largest magnitude: smaller magnitudes count as the floor,
	// so at most log10(1/DefaultFloor) = 2 decades separate a zero from
	// the largest value.
	DefaultFloor = 0.01
)

// OutlierParams are the parameters of HybridTune's outlier-metric
// diagnosis (§3.3.4): the PCA's, Algorithm 4's and Algorithm 5's.
type OutlierParams struct {
	// CCR is the PCA's cumulative contribution rate (DefaultCCR, the
	// paper's choice in §5.3.2); 1 keeps every metric.
	CCR float64
	// Transform is Algorithm 4's time-series transformation (TransformMean).
	Transform Transform
	// Detect is Algorithm 5's reading (DetectGap; DetectPaper as written).
	Detect Detect
	// Rep is the classes' representative point (RepMaxMin).
	Rep Rep
	// DMin is the distance test's threshold (DefaultDMin).
	DMin float64
	// Orders is the magnitude test's threshold in decades (DefaultOrders);
	// 0 turns the test off.
	Orders float64
	// Floor is the magnitude test's floor (DefaultFloor).
	Floor float64
	// Scale normalises each metric across the nodes before the distance
	// test (ScaleMax; ScaleMinMax is the paper's Formula 8, which
	// stretches peers a few percent apart to 0 and 1 and flags them:
	// docs/ANOMALY.md).
	Scale Scale
}

// DefaultOutlierParams returns the outlier-metric diagnosis' defaults.
func DefaultOutlierParams() OutlierParams {
	return OutlierParams{CCR: DefaultCCR, Transform: TransformMean, Rep: RepMaxMin,
		DMin: DefaultDMin, Orders: DefaultOrders, Floor: DefaultFloor, Scale: ScaleMax}
}

// MetricOutlier is one principal metric's result on one node.
type MetricOutlier struct {
	Metric string
	// Value is the node's transformed value, PeerMedian the median of the
	// other nodes' (the metric's units).
	Value, PeerMedian float64
	// Normalized is the node's normalised value across the nodes (p.Scale).
	Normalized float64
	// Score is |Normalized - the other nodes' median normalised value|,
	// in [0, 1]: how far the node is from its peers on this metric.
	Score float64
	// Decades is |log10(Value/PeerMedian)| (magnitudes floored, see
	// OutlierParams.Floor) with DetectGap, the distance of the value's
	// order of magnitude from the median order with DetectPaper;
	// Magnitude is Decades ≥ Orders.
	Decades   float64
	Magnitude bool
	// Distance is the distance test's distance when the node is in the
	// smaller class (0 otherwise): between the two classes'
	// representative points with DetectGap, from the node to the larger
	// class's with DetectPaper; Distant is Distance > DMin.
	Distance float64
	Distant  bool
}

// Outlier reports whether a test flagged the metric.
func (m *MetricOutlier) Outlier() bool { return m.Magnitude || m.Distant }

// NodeOutliers are one node's principal metrics, flagged ones first, then
// by Score, largest first.
type NodeOutliers struct {
	Host    string
	Metrics []MetricOutlier
}

// Outliers returns the flagged metrics.
func (n *NodeOutliers) Outliers() []MetricOutlier {
	k := 0
	for k < len(n.Metrics) && n.Metrics[k].Outlier() {
		k++
	}
	return n.Metrics[:k]
}

// OutlierReport is the outlier-metric diagnosis' result: the principal metrics and, per
// node in host order, their tests.
type OutlierReport struct {
	Principal []string
	Nodes     []NodeOutliers
}

// observations returns every host's observations of the metrics cols: its
// t-th values, up to its shortest series, skipping instants where one is
// missing (NaN).
func observations(series [][][]float64, cols []int) [][]float64 {
	var rows [][]float64
	for _, s := range series {
		t := math.MaxInt
		for _, j := range cols {
			t = min(t, len(s[j]))
		}
	next:
		for k := range t {
			r := make([]float64, len(cols))
			for c, j := range cols {
				v := s[j][k]
				if math.IsNaN(v) {
					continue next
				}
				r[c] = v
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// OutlierMetrics is HybridTune's outlier-metric diagnosis (Ren et al.,
// §3.3.4). series[i][j] is metric j's series on hosts[i] over one stage
// (the paper's per-stage matrix, §3.2 (5)). The PCA keeps the principal
// metrics (PrincipalMetrics over every host's observations; a host's
// observation t is its metrics' t-th values, up to its shortest series).
// Algorithm 4 turns each series into one value (p.Transform). Formula 8
// normalises each metric across the hosts (p.Scale). Algorithm 5 flags a
// metric on a host by its magnitude and distance tests, as p.Detect reads
// them: with DetectGap, the magnitude test (the value is at least p.Orders
// decades off the other hosts' median) or the two-class distance test
// (the values split at their largest gap into two classes; when the
// classes' representative points, p.Rep, are more than p.DMin apart, the
// hosts of the smaller class are outliers); with DetectPaper, as the
// paper's pseudo-code has them (Detect). NaN marks a missing
// point: it is skipped, and a metric with no point on some host is left
// out. At least three hosts are needed.
func OutlierMetrics(hosts, metrics []string, series [][][]float64, p OutlierParams) (*OutlierReport, error) {
	n, d := len(hosts), len(metrics)
	if n < 3 {
		return nil, fmt.Errorf("outlier metrics: %d host(s), want at least 3", n)
	}
	if len(series) != n {
		return nil, fmt.Errorf("outlier metrics: %d hosts but %d series sets", n, len(series))
	}
	if d == 0 {
		return nil, fmt.Errorf("outlier metrics: no metrics")
	}
	// A metric is usable when every host has a value for it (NaN is missing).
	usable := make([]bool, d)
	for j := range usable {
		usable[j] = true
	}
	for i, s := range series {
		if len(s) != d {
			return nil, fmt.Errorf("outlier metrics: host %q has %d series, want %d (one per metric)", hosts[i], len(s), d)
		}
		for j, m := range s {
			seen := false
			for k, v := range m {
				if math.IsInf(v, 0) {
					return nil, fmt.Errorf("outlier metrics: host %q metric %q point %d is %v, want a finite number or NaN", hosts[i], metrics[j], k, v)
				}
				seen = seen || !math.IsNaN(v)
			}
			usable[j] = usable[j] && seen
		}
	}
	var cols []int
	for j, ok := range usable {
		if ok {
			cols = append(cols, j)
		}
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("outlier metrics: no metric has a value on every host")
	}
	rows := observations(series, cols)
	pc, err := PrincipalMetrics(rows, p.CCR)
	if err != nil {
		return nil, fmt.Errorf("outlier metrics: %w", err)
	}
	principal := make([]int, len(pc))
	for k, c := range pc {
		principal[k] = cols[c]
	}
	rep := &OutlierReport{Nodes: make([]NodeOutliers, n)}
	for i, h := range hosts {
		rep.Nodes[i].Host = h
	}
	vals := make([]float64, n)
	for _, j := range principal {
		rep.Principal = append(rep.Principal, metrics[j])
		big := 0.0
		for i := range n {
			vals[i] = p.Transform.value(series[i][j])
			big = max(big, math.Abs(vals[i]))
		}
		u := p.Scale.apply(vals, 0)
		sortedVals, sortedU := slices.Sorted(slices.Values(vals)), slices.Sorted(slices.Values(u))
		var orders, dists []float64
		var magnitude []bool
		if p.Detect == DetectPaper {
			orders, magnitude, dists = paperOutliers(vals, p)
		} else {
			minority, dist := twoClasses(u, p.Rep)
			dists = make([]float64, n)
			for i := range dists {
				dists[i] = math.NaN()
			}
			for _, i := range minority {
				dists[i] = dist
			}
		}
		for i := range n {
			mo := MetricOutlier{Metric: metrics[j], Value: vals[i], Normalized: u[i]}
			mo.PeerMedian = medianExcluding(sortedVals, vals[i])
			mo.Score = math.Abs(u[i] - medianExcluding(sortedU, u[i]))
			if orders != nil {
				mo.Decades, mo.Magnitude = orders[i], magnitude[i]
			} else {
				mo.Decades = decades(vals[i], mo.PeerMedian, p.Floor*big)
				mo.Magnitude = p.Orders > 0 && mo.Decades >= p.Orders
			}
			if !math.IsNaN(dists[i]) {
				mo.Distance = dists[i]
				mo.Distant = dists[i] > p.DMin
			}
			rep.Nodes[i].Metrics = append(rep.Nodes[i].Metrics, mo)
		}
	}
	for i := range rep.Nodes {
		ms := rep.Nodes[i].Metrics
		sort.SliceStable(ms, func(a, b int) bool {
			if oa, ob := ms[a].Outlier(), ms[b].Outlier(); oa != ob {
				return oa
			}
			return ms[a].Score > ms[b].Score
		})
	}
	return rep, nil
}
