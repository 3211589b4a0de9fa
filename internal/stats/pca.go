package stats

import (
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// PCA is a fitted principal component analysis, laid out like
// scikit-learn's PCA: Mean (mean_), Components (components_, one
// component per row, unit length), Variance (explained_variance_, with
// the N−1 denominator) and Ratio (explained_variance_ratio_).
type PCA struct {
	Mean       []float64
	Components *Dense
	Variance   []float64
	Ratio      []float64
}

// FitPCA fits a PCA to the rows of x and keeps the fewest leading
// components whose cumulative contribution rate (explained variance
// ratio) is at least ccr, HybridTune's rule (Ren et al., outlier metrics,
// CCR 0.95). ccr ≥ 1 keeps all D components. scikit-learn's
// PCA(n_components=ccr) keeps the fewest whose rate strictly exceeds ccr;
// the two differ only on an exact tie. Each component's sign is fixed so
// that its largest-magnitude entry is positive. Data with zero total
// variance keeps one component.
func FitPCA(x *Dense, ccr float64) (*PCA, error) {
	if err := x.check("pca"); err != nil {
		return nil, err
	}
	if x.N < 2 {
		return nil, fmt.Errorf("pca: %d sample(s), want at least 2", x.N)
	}
	if !(ccr > 0) {
		return nil, fmt.Errorf("pca: cumulative contribution rate %v, want in (0, 1]", ccr)
	}
	n, d := x.N, x.D
	mean := make([]float64, d)
	for i := range n {
		for j, v := range x.Row(i) {
			mean[j] += v
		}
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	cov := make([]float64, d*d)
	diff := make([]float64, d)
	for i := range n {
		for j, v := range x.Row(i) {
			diff[j] = v - mean[j]
		}
		for a := range d {
			da := diff[a]
			row := cov[a*d : a*d+d]
			for b := a; b < d; b++ {
				row[b] += da * diff[b]
			}
		}
	}
	sym := mat.NewSymDense(d, nil)
	for a := range d {
		for b := a; b < d; b++ {
			sym.SetSym(a, b, cov[a*d+b]/float64(n-1))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return nil, fmt.Errorf("pca: eigendecomposition of the %d×%d covariance did not converge", d, d)
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	order := make([]int, d)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return vals[order[a]] > vals[order[b]] })
	var total float64
	for _, v := range vals {
		total += max(v, 0)
	}
	keep := d
	if ccr < 1 && total > 0 {
		cum := 0.0
		for i, o := range order {
			cum += max(vals[o], 0) / total
			if cum >= ccr {
				keep = i + 1
				break
			}
		}
	}
	if total == 0 {
		keep = 1
	}
	p := &PCA{Mean: mean, Components: NewDense(keep, d), Variance: make([]float64, keep), Ratio: make([]float64, keep)}
	for i := range keep {
		o := order[i]
		p.Variance[i] = max(vals[o], 0)
		if total > 0 {
			p.Ratio[i] = p.Variance[i] / total
		}
		row := p.Components.Row(i)
		big := 0.0
		for j := range d {
			row[j] = vecs.At(j, o)
			if math.Abs(row[j]) > math.Abs(big) {
				big = row[j]
			}
		}
		if big < 0 {
			for j := range row {
				row[j] = -row[j]
			}
		}
	}
	return p, nil
}

// Transform projects x onto the components: dst[i] = (x − Mean)·Components[i].
// dst is reused when it has room; the result has one value per component.
// x must have len(Mean) values; a shorter x gives all NaN.
func (p *PCA) Transform(x []float64, dst []float64) []float64 {
	k := p.Components.N
	if cap(dst) < k {
		dst = make([]float64, k)
	}
	dst = dst[:k]
	if len(x) < len(p.Mean) {
		for i := range dst {
			dst[i] = math.NaN()
		}
		return dst
	}
	for i := range k {
		var s float64
		for j, c := range p.Components.Row(i) {
			s += (x[j] - p.Mean[j]) * c
		}
		dst[i] = s
	}
	return dst
}
