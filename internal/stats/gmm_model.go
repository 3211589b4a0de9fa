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
// precision is L⁻ᵀL⁻¹), packed lower-triangular and interleaved in blocks
// of eight components so that the kernel keeps eight accumulators in
// registers and one pass over x serves a whole block.
type gmmCache struct {
	d, k int
	ref  []float64 // reference point subtracted from x (mean of the means) for accuracy
	m    []float64 // m[((b·P + j(j+1)/2+i)·8 + l] = (L⁻¹)[j][i] of component 8b+l, i ≤ j, P = D(D+1)/2
	c    []float64 // c[(b·D + j)·8 + l] = (L⁻¹ (μ − ref))[j] of component 8b+l
	base []float64 // log w_k + log|L_k⁻¹| − D/2·log 2π
}

// lanes is the number of components the kernel scores together.
const lanes = 8

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
	blocks := (k + lanes - 1) / lanes
	packed := d * (d + 1) / 2
	c := &gmmCache{d: d, k: k, ref: make([]float64, d), m: make([]float64, blocks*packed*lanes),
		c: make([]float64, blocks*d*lanes), base: make([]float64, k)}
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
		b, l := comp/lanes, comp%lanes
		for j := range d {
			var s float64
			for i := 0; i <= j; i++ {
				s += inv[j*d+i] * shifted[i]
				c.m[(b*packed+j*(j+1)/2+i)*lanes+l] = inv[j*d+i]
			}
			c.c[(b*d+j)*lanes+l] = s
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
	c := g.ensure()
	k := len(g.Weights)
	if c != nil {
		k = c.k
	}
	if cap(dst) < k {
		dst = make([]float64, k)
	}
	dst = dst[:k]
	if c == nil || len(x) < c.d {
		for i := range dst {
			dst[i] = math.Inf(-1)
		}
		return dst
	}
	var xsBuf [32]float64
	xs := xsBuf[:]
	if c.d > len(xs) {
		xs = make([]float64, c.d)
	}
	c.logProbs(x, xs, dst)
	return dst
}

// Predict returns the most likely component of x (highest weighted log
// density, as scikit-learn's GaussianMixture.predict) and the log-likelihood
// of x under the whole mixture, log Σ_k w_k·N(x | μ_k, Σ_k)
// (score_samples). It returns (Unknown, −Inf) when the model is invalid or
// x has no density under any component.
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
	lp := make([]float64, c.k)
	var total float64
	for i := range x.N {
		c.logProbs(x.Row(i), xs, lp)
		_, l := argmaxLogSumExp(lp)
		total += l
	}
	return total / float64(x.N)
}

// argmaxLogSumExp returns the index of the largest value and log Σ exp(v);
// (Unknown, −Inf) when every value is −Inf or NaN. Terms more than expCutoff below the largest
// are below float64 resolution of the sum and are not exponentiated.
func argmaxLogSumExp(v []float64) (int, float64) {
	best, top := -1, math.Inf(-1)
	for i, x := range v {
		if x > top || (best < 0 && !math.IsNaN(x)) {
			best, top = i, x
		}
	}
	if best < 0 || math.IsInf(top, -1) {
		return Unknown, math.Inf(-1)
	}
	s := 1.0
	for i, x := range v {
		if d := x - top; i != best && d > -expCutoff {
			s += math.Exp(d)
		}
	}
	if s == 1 {
		return best, top
	}
	return best, top + math.Log(s)
}

// expCutoff bounds the log-ratio worth exponentiating: exp(−40) ≈ 4e−18
// is below half an ulp of a sum that is at least 1.
const expCutoff = 40
