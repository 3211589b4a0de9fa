package anomaly

import (
	"fmt"
	"math"
	"slices"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// DefaultCCR is HybridTune's cumulative contribution rate for the PCA that
// picks the principal metrics (Ren et al., §3.3.4; 0.95 chosen over 0.9
// and 0.99 in §5.3.2).
const DefaultCCR = 0.95

// PrincipalMetrics returns the indexes (ascending) of the principal
// metrics of rows, one observation per row and one metric per column
// (Ren et al., §3.3.4, and §5.3.2's Formula 10: the principal component
// "always belongs to several particular performance metrics"). Each column is first min-max
// normalised over the rows (stats.MinMax), so that a metric counted in
// bytes does not outweigh a percentage; stats.FitPCA then keeps the fewest
// components whose cumulative explained variance reaches ccr, and each kept
// component names the metric with the largest absolute loading on it. A
// metric can lead several components, so there are at most as many
// principal metrics as kept components. ccr ≥ 1 returns every metric.
func PrincipalMetrics(rows [][]float64, ccr float64) ([]int, error) {
	if len(rows) < 2 {
		return nil, fmt.Errorf("principal metrics: %d observation(s), want at least 2", len(rows))
	}
	d := len(rows[0])
	if d == 0 {
		return nil, fmt.Errorf("principal metrics: no metrics")
	}
	for i, r := range rows {
		if len(r) != d {
			return nil, fmt.Errorf("principal metrics: observation %d has %d values, want %d", i, len(r), d)
		}
	}
	if ccr >= 1 {
		all := make([]int, d)
		for j := range all {
			all[j] = j
		}
		return all, nil
	}
	x := stats.NewDense(len(rows), d)
	col := make([]float64, len(rows))
	for j := range d {
		for i, r := range rows {
			col[i] = r[j]
		}
		for i, v := range stats.MinMax(col) {
			x.X[i*d+j] = v
		}
	}
	pca, err := stats.FitPCA(x, ccr)
	if err != nil {
		return nil, fmt.Errorf("principal metrics: %w", err)
	}
	var out []int
	for k := range pca.Components.N {
		best, big := 0, -1.0
		for j, c := range pca.Components.Row(k) {
			if a := math.Abs(c); a > big {
				best, big = j, a
			}
		}
		if !slices.Contains(out, best) {
			out = append(out, best)
		}
	}
	slices.Sort(out)
	return out, nil
}
