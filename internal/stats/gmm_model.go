package stats

import (
	"fmt"
	"math"
)

// Unknown is the label Classify gives a vector that is unlikely under every
// component of a mixture.
const Unknown = -1

// GMM is a Gaussian mixture with full covariances: component k has prior
// Weights[k], mean Means.Row(k) and covariance Covs[k] (D×D). The exported
// fields are the whole model, so a GMM serialises to JSON as is; after
// unmarshalling (or editing the fields) call Prepare before use.
type GMM struct {
	Weights []float64
	Means   *Dense
	Covs    []*Dense

	cache *gmmCache
}

// gmmCache holds what scoring needs, derived from the exported fields:
// every component's inverse Cholesky factor L⁻¹ (cov = L·Lᵀ, so the
// precision is L⁻ᵀL⁻¹), packed lower-triangular and interleaved across
// components so that one pass over x serves all of them.
type gmmCache struct {
	d, k int
	ref  []float64 // reference point subtracted from x (mean of the means) for accuracy
	m    []float64 // m[(j(j+1)/2+i)·K+k] = (L_k⁻¹)[j][i], i ≤ j
	c    []float64 // c[j·K+k] = (L_k⁻¹ (μ_k − ref))[j]
	base []float64 // log w_k + log|L_k⁻¹| − D/2·log 2π
}

// Prepare checks the model and derives the Cholesky factors scoring uses.
// FitGMM returns a prepared model; call Prepare after unmarshalling. It
// fails when the shapes disagree or a covariance is not positive definite.
func (g *GMM) Prepare() error {
	if g.Means == nil {
		return fmt.Errorf("gmm: no means")
	}
	k, d := len(g.Weights), g.Means.D
	if err := g.Means.check("gmm means"); err != nil {
		return err
	}
	if g.Means.N != k || len(g.Covs) != k {
		return fmt.Errorf("gmm: %d weights, %d means, %d covariances, want equal counts", k, g.Means.N, len(g.Covs))
	}
	c := &gmmCache{d: d, k: k, ref: make([]float64, d), m: make([]float64, d*(d+1)/2*k),
		c: make([]float64, d*k), base: make([]float64, k)}
	for i := range k {
		for j, v := range g.Means.Row(i) {
			c.ref[j] += v / float64(k)
		}
	}
	l := make([]float64, d*d)
	inv := make([]float64, d*d)
	shifted := make([]float64, d)
	for comp, cov := range g.Covs {
		if err := cov.check(fmt.Sprintf("gmm covariance %d", comp)); err != nil {
			return err
		}
		if cov.N != d || cov.D != d {
			return fmt.Errorf("gmm: covariance %d is %d×%d, want %d×%d", comp, cov.N, cov.D, d, d)
		}
		if !(g.Weights[comp] >= 0) {
			return fmt.Errorf("gmm: weight %d is %v, want ≥ 0", comp, g.Weights[comp])
		}
		if err := cholesky(cov.X, d, l); err != nil {
			return fmt.Errorf("gmm: covariance %d: %w", comp, err)
		}
		invLower(l, d, inv)
		logDet := 0.0
		for j := range d {
			logDet += math.Log(inv[j*d+j])
		}
		c.base[comp] = math.Log(g.Weights[comp]) + logDet - 0.5*float64(d)*math.Log(2*math.Pi)
		for j, v := range g.Means.Row(comp) {
			shifted[j] = v - c.ref[j]
		}
		for j := range d {
			var s float64
			for i := 0; i <= j; i++ {
				s += inv[j*d+i] * shifted[i]
				c.m[(j*(j+1)/2+i)*k+comp] = inv[j*d+i]
			}
			c.c[j*k+comp] = s
		}
	}
	g.cache = c
	return nil
}

// cholesky factors the symmetric positive-definite d×d matrix a (row-major)
// into lower-triangular l with a = l·lᵀ.
func cholesky(a []float64, d int, l []float64) error {
	clear(l)
	for j := range d {
		s := a[j*d+j]
		for p := range j {
			s -= l[j*d+p] * l[j*d+p]
		}
		if !(s > 0) {
			return fmt.Errorf("not positive definite (pivot %d is %v); raise the regularisation", j, s)
		}
		ljj := math.Sqrt(s)
		l[j*d+j] = ljj
		for i := j + 1; i < d; i++ {
			s := a[i*d+j]
			for p := range j {
				s -= l[i*d+p] * l[j*d+p]
			}
			l[i*d+j] = s / ljj
		}
	}
	return nil
}

// invLower inverts the lower-triangular d×d matrix l into inv.
func invLower(l []float64, d int, inv []float64) {
	clear(inv)
	for col := range d {
		inv[col*d+col] = 1 / l[col*d+col]
		for i := col + 1; i < d; i++ {
			var s float64
			for p := col; p < i; p++ {
				s += l[i*d+p] * inv[p*d+col]
			}
			inv[i*d+col] = -s / l[i*d+i]
		}
	}
}

// logProbs writes log(w_k·N(x | μ_k, Σ_k)) for every component into dst
// (length K) using scratch xs (length D) and acc (length K).
func (c *gmmCache) logProbs(x, xs, acc, dst []float64) {
	d, k := c.d, c.k
	xs = xs[:d]
	x = x[:d]
	ref := c.ref[:d]
	for j := range xs {
		xs[j] = x[j] - ref[j]
	}
	acc = acc[:k]
	dst = dst[:k]
	clear(dst)
	m := c.m
	off := 0
	for j := range d {
		cj := c.c[j*k : j*k+k]
		for q := range acc {
			acc[q] = -cj[q]
		}
		for i := 0; i <= j; i++ {
			xi := xs[i]
			row := m[off : off+k]
			row = row[:len(acc)]
			for q := range acc {
				acc[q] += row[q] * xi
			}
			off += k
		}
		for q, v := range acc {
			dst[q] += v * v
		}
	}
	for q := range dst {
		dst[q] = c.base[q] - 0.5*dst[q]
	}
}

// ensure returns the prepared cache, preparing it first if needed; nil
// when the model is invalid.
func (g *GMM) ensure() *gmmCache {
	if g.cache == nil {
		if err := g.Prepare(); err != nil {
			return nil
		}
	}
	return g.cache
}

// LogProbs writes log(Weights[k]·N(x | Means[k], Covs[k])) for every
// component k into dst (reused when it has room) and returns it. x must
// have D values. An unprepared model is prepared first (not safe for
// concurrent first use: call Prepare); an invalid one gives all −Inf.
func (g *GMM) LogProbs(x []float64, dst []float64) []float64 {
	k := len(g.Weights)
	if cap(dst) < k {
		dst = make([]float64, k)
	}
	dst = dst[:k]
	c := g.ensure()
	if c == nil || len(x) < c.d {
		for i := range dst {
			dst[i] = math.Inf(-1)
		}
		return dst
	}
	var xsBuf, accBuf [32]float64
	xs, acc := xsBuf[:], accBuf[:]
	if c.d > len(xs) {
		xs = make([]float64, c.d)
	}
	if k > len(acc) {
		acc = make([]float64, k)
	}
	c.logProbs(x, xs, acc, dst)
	return dst
}

// Predict returns the most likely component of x (highest weighted log
// density, as scikit-learn's GaussianMixture.predict) and the log-likelihood
// of x under the whole mixture, log Σ_k w_k·N(x | μ_k, Σ_k)
// (score_samples).
func (g *GMM) Predict(x []float64) (label int, logLik float64) {
	var buf [32]float64
	lp := g.LogProbs(x, buf[:0])
	return argmaxLogSumExp(lp)
}

// Classify is Predict's label, or Unknown when x is unlikely under every
// component: when the largest weighted component log density
// log(w_k·N(x | μ_k, Σ_k)) is below minLogLik.
func (g *GMM) Classify(x []float64, minLogLik float64) int {
	var buf [32]float64
	lp := g.LogProbs(x, buf[:0])
	label, _ := argmaxLogSumExp(lp)
	if label < 0 || !(lp[label] >= minLogLik) {
		return Unknown
	}
	return label
}

// Score is the mean log-likelihood per sample of the rows of x
// (scikit-learn's GaussianMixture.score). A model that cannot be prepared,
// or x with the wrong width, scores NaN.
func (g *GMM) Score(x *Dense) float64 {
	c := g.ensure()
	if c == nil || x == nil || x.D != c.d || x.N == 0 {
		return math.NaN()
	}
	xs := make([]float64, c.d)
	acc := make([]float64, c.k)
	lp := make([]float64, c.k)
	var total float64
	for i := range x.N {
		c.logProbs(x.Row(i), xs, acc, lp)
		_, l := argmaxLogSumExp(lp)
		total += l
	}
	return total / float64(x.N)
}

// argmaxLogSumExp returns the index of the largest value (−1 for none or
// all NaN) and log Σ exp(v).
func argmaxLogSumExp(v []float64) (int, float64) {
	best, top := -1, math.Inf(-1)
	for i, x := range v {
		if x > top || (best < 0 && !math.IsNaN(x)) {
			best, top = i, x
		}
	}
	if best < 0 || math.IsInf(top, -1) {
		return best, math.Inf(-1)
	}
	var s float64
	for _, x := range v {
		s += math.Exp(x - top)
	}
	return best, top + math.Log(s)
}
