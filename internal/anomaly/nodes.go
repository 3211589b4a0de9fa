package anomaly

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// DefaultSimilarityThreshold is the average cosine similarity (Equation 5)
// under which a node is abnormal, the paper's σ. The paper chose σ by its
// Formula 9, the share of real abnormal nodes among those detected, whose
// values (Figure 3) did not survive the text; its case studies (§6,
// Tables IV–VII) put it between 0.2359 (flagged) and 0.7838 (not flagged)
// under its min-max normalisation. With the default ScaleMax, which keeps
// healthy peers' similarities near 1, the same procedure on the simulator
// (docs/PAPERS.md, docs/ANOMALY.md) chose 0.85: healthy nodes of the
// 12-node heterogeneous cluster score 0.86–0.98 over a fault window, the
// faulty node 0.62–0.91.
const DefaultSimilarityThreshold = 0.85

// DefaultGap is NodeParams.Gap's default, chosen on the simulator's stage
// matrices (docs/ANOMALY.md): it cuts the false alarms by 77% (447 to 101
// over 275 stage matrices) for 25% fewer faulty nodes found (91 to 68).
const DefaultGap = 0.08

// NodeParams are the abnormal-node test's parameters (§3.3.3).
type NodeParams struct {
	// Threshold is σ, the average cosine similarity (Equation 5) under
	// which a node is abnormal (DefaultSimilarityThreshold).
	Threshold float64
	// Gap is how far under the median of all nodes' scores a node's score
	// must also be (DefaultGap; 0 turns the condition off). Not in the
	// paper: in a short or mixed stage every node can fall under the
	// threshold, and the gap keeps only the ones that stand out.
	Gap float64
	// Evidence is how many of the most differing metrics each node reports (3).
	Evidence int
	// Scale is how each metric is normalised across the nodes (ScaleMax;
	// ScaleMinMax is the paper's Formula 8, measured worse in
	// docs/ANOMALY.md). The paper does not say how §3.3.3's vectors are
	// scaled; its similarities (0.12–0.96 in §6) are what min-max gives,
	// not raw means (bytes would outweigh percentages).
	Scale Scale
}

// Scale is a per-metric normalisation across nodes.
type Scale uint8

const (
	// ScaleMinMax maps a metric to [0, 1] by (v-min)/(max-min) across the
	// nodes, HybridTune's normalisation (Formula 8).
	ScaleMinMax Scale = iota
	// ScaleMax maps it by v/max|v| (min-max with the minimum pinned at 0),
	// which keeps ratios: peers that differ by a few percent stay close
	// instead of being stretched to 0 and 1.
	ScaleMax
)

// DefaultNodeParams returns the abnormal-node test's defaults.
func DefaultNodeParams() NodeParams {
	return NodeParams{Threshold: DefaultSimilarityThreshold, Gap: DefaultGap, Evidence: 3, Scale: ScaleMax}
}

// NodeScore is one node's result of the abnormal-node test.
type NodeScore struct {
	Host string
	// Score is the average cosine similarity to the other nodes (Equation 5).
	Score float64
	// Abnormal is Score < Threshold and, when Gap > 0,
	// Score < (median of all nodes' scores) - Gap.
	Abnormal bool
	// Similarity is the cosine similarity to each node, in the input's
	// host order (1 for the node itself).
	Similarity []float64
	// Differing are the metrics on which the node's normalised value is
	// farthest from the other nodes' median, largest first.
	Differing []MetricDelta
	// Excluded is set by StageNodes on a host it left out of the
	// comparison (its Score is NaN and it is never Abnormal).
	Excluded bool
	// Slow are the throughputs of the stage's own tasks that StageNodes
	// found low on the node (StageParams.RateRatio); each makes it
	// Abnormal whatever its Score.
	Slow []SlowRate
}

// MetricDelta is how far one node is from its peers on one metric, in
// min-max normalised units across the nodes ([0, 1]).
type MetricDelta struct {
	Metric string
	// Value is the node's normalised value, PeerMedian the median of the
	// other nodes' normalised values.
	Value, PeerMedian float64
	// Delta is |Value - PeerMedian|.
	Delta float64
}

// AbnormalNodes is HybridTune's abnormal-node diagnosis (Ren et al.,
// §3.3.3, Equations 4 and 5): x[i][j] is metric j's value on hosts[i]
// during one stage (its mean over the stage's window, §3.2 (4)). Each metric is
// normalised across the nodes (a metric that is NaN on a host, missing, is
// left out; p.Scale: HybridTune's min-max, stats.MinMax, where a metric
// equal on every node becomes 0 and drops out; or by the largest
// magnitude), each node's average cosine similarity (stats.Cosine,
// Equation 4) to the others is its score (Equation 5), and a node below p.Threshold is abnormal (when its
// score is also p.Gap under the nodes' median score). It returns every
// node's score in host order; at least three nodes are needed for a
// majority to exist.
func AbnormalNodes(hosts, metrics []string, x [][]float64, p NodeParams) ([]NodeScore, error) {
	return abnormalNodes(hosts, metrics, x, nil, p)
}

// abnormalNodes is AbnormalNodes with an optional floor per metric under
// ScaleMax's divisor (nil: none; see StageInput.Scale).
func abnormalNodes(hosts, metrics []string, x [][]float64, floor []float64, p NodeParams) ([]NodeScore, error) {
	n := len(hosts)
	if n < 3 {
		return nil, fmt.Errorf("abnormal nodes: %d host(s), want at least 3", n)
	}
	if len(x) != n {
		return nil, fmt.Errorf("abnormal nodes: %d hosts but %d rows of values", n, len(x))
	}
	d := len(metrics)
	if d == 0 {
		return nil, fmt.Errorf("abnormal nodes: no metrics")
	}
	missing := make([]bool, d)
	for i, row := range x {
		if len(row) != d {
			return nil, fmt.Errorf("abnormal nodes: host %q has %d values, want %d (one per metric)", hosts[i], len(row), d)
		}
		for j, v := range row {
			if math.IsInf(v, 0) {
				return nil, fmt.Errorf("abnormal nodes: host %q metric %q is %v, want a finite number or NaN", hosts[i], metrics[j], v)
			}
			missing[j] = missing[j] || math.IsNaN(v)
		}
	}
	if floor != nil && len(floor) != d {
		return nil, fmt.Errorf("abnormal nodes: %d scale floors, want %d (one per metric)", len(floor), d)
	}
	if slices.Contains(missing, true) {
		if floor != nil {
			f := [][]float64{floor}
			f, _ = dropColumns(f, metrics, missing)
			floor = f[0]
		}
		x, metrics = dropColumns(x, metrics, missing)
		if d = len(metrics); d == 0 {
			return nil, fmt.Errorf("abnormal nodes: no metric has a value on every host")
		}
	}
	u := normalizeColumns(x, d, p.Scale, floor)
	sorted := sortedColumns(u, d)
	out := make([]NodeScore, n)
	for i := range n {
		sim := make([]float64, n)
		var sum float64
		for k := range n {
			if k == i {
				sim[k] = 1
				continue
			}
			sim[k] = stats.Cosine(u[i], u[k])
			sum += sim[k]
		}
		score := sum / float64(n-1)
		out[i] = NodeScore{Host: hosts[i], Score: score, Similarity: sim,
			Differing: differing(u, sorted, i, metrics, p.Evidence)}
	}
	scores := make([]float64, n)
	for i := range out {
		scores[i] = out[i].Score
	}
	med := median(scores)
	for i := range out {
		out[i].Abnormal = out[i].Score < p.Threshold && (p.Gap <= 0 || out[i].Score < med-p.Gap)
	}
	return out, nil
}

// dropColumns returns x and metrics without the columns drop marks.
func dropColumns(x [][]float64, metrics []string, drop []bool) ([][]float64, []string) {
	var keep []int
	var names []string
	for j, name := range metrics {
		if !drop[j] {
			keep = append(keep, j)
			names = append(names, name)
		}
	}
	out := make([][]float64, len(x))
	for i, row := range x {
		out[i] = make([]float64, len(keep))
		for k, j := range keep {
			out[i][k] = row[j]
		}
	}
	return out, names
}

// normalizeColumns normalises each of the d columns of x across its rows;
// floor (nil: none) raises ScaleMax's divisor of each column to at least
// its entry.
func normalizeColumns(x [][]float64, d int, sc Scale, floor []float64) [][]float64 {
	n := len(x)
	u := make([][]float64, n)
	flat := make([]float64, n*d)
	for i := range u {
		u[i] = flat[i*d : (i+1)*d]
	}
	col := make([]float64, n)
	for j := range d {
		for i := range n {
			col[i] = x[i][j]
		}
		f := 0.0
		if floor != nil {
			f = floor[j]
		}
		for i, v := range sc.apply(col, f) {
			u[i][j] = v
		}
	}
	return u
}

// apply returns v normalised by sc, as a new slice; floor is the least
// divisor of ScaleMax.
func (sc Scale) apply(v []float64, floor float64) []float64 {
	if sc != ScaleMax {
		return stats.MinMax(v)
	}
	out := make([]float64, len(v))
	big := max(floor, 0)
	for _, x := range v {
		big = max(big, math.Abs(x))
	}
	if big > 0 {
		for i, x := range v {
			out[i] = x / big
		}
	}
	return out
}

// String names the scale as the flags and docs do.
func (sc Scale) String() string {
	if sc == ScaleMax {
		return "max"
	}
	return "minmax"
}

// differing returns the k metrics on which row i of u is farthest from the
// other rows' median; sorted[j] is column j of u, sorted.
func differing(u, sorted [][]float64, i int, metrics []string, k int) []MetricDelta {
	if k <= 0 {
		return nil
	}
	ds := make([]MetricDelta, len(metrics))
	for j, name := range metrics {
		med := medianExcluding(sorted[j], u[i][j])
		ds[j] = MetricDelta{Metric: name, Value: u[i][j], PeerMedian: med, Delta: math.Abs(u[i][j] - med)}
	}
	sort.SliceStable(ds, func(a, b int) bool { return ds[a].Delta > ds[b].Delta })
	return ds[:min(k, len(ds))]
}

// sortedColumns returns each of the d columns of u, sorted.
func sortedColumns(u [][]float64, d int) [][]float64 {
	out := make([][]float64, d)
	for j := range out {
		col := make([]float64, len(u))
		for i, row := range u {
			col[i] = row[j]
		}
		slices.Sort(col)
		out[j] = col
	}
	return out
}

// medianExcluding returns the median of sorted (ascending) without one
// occurrence of v, which it must hold: the median of a node's peers.
func medianExcluding(sorted []float64, v float64) float64 {
	n := len(sorted) - 1
	if n <= 0 {
		return 0
	}
	r, _ := slices.BinarySearch(sorted, v)
	at := func(k int) float64 { // k-th of the others
		if k < r {
			return sorted[k]
		}
		return sorted[k+1]
	}
	if n%2 == 1 {
		return at(n / 2)
	}
	return (at(n/2-1) + at(n/2)) / 2
}

// median returns the median of v (the mean of the middle two for an even
// count), reordering v.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	m := len(v) / 2
	if len(v)%2 == 1 {
		return v[m]
	}
	return (v[m-1] + v[m]) / 2
}
