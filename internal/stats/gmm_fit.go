package stats

import (
	"fmt"
	"math"
)

// GMMOptions configures FitGMM. Zero fields take scikit-learn's
// GaussianMixture defaults: MaxIter 100, Restarts 1 (n_init), Tol 1e-3
// (on the change of the mean log-likelihood), Reg 1e-6 (reg_covar, added
// to every covariance diagonal). A negative Tol never stops early (exactly
// MaxIter iterations, scikit-learn's tol=0); a negative Reg adds nothing.
type GMMOptions struct {
	K        int     // number of components, at least 1
	MaxIter  int     // EM iterations per start
	Restarts int     // independent starts; the highest log-likelihood wins
	Tol      float64 // stop when the mean log-likelihood changes by less
	Reg      float64 // added to covariance diagonals
	// EqualPriors fixes every weight at 1/K instead of learning them, as
	// Ganesha does (Pan et al. 2009, §3.1).
	EqualPriors bool
	Seed        uint64 // seed for the k-means initialisation
	// InitMeans, when set (K×D), are the initial means; samples are first
	// assigned to the nearest of them to derive initial weights and
	// covariances. Otherwise the initial assignment is a k-means++ KMeans
	// clustering (scikit-learn's init_params="kmeans").
	InitMeans *Dense
}

func (o GMMOptions) withDefaults() GMMOptions {
	if o.MaxIter <= 0 {
		o.MaxIter = 100
	}
	if o.Restarts <= 0 {
		o.Restarts = 1
	}
	if o.Tol == 0 {
		o.Tol = 1e-3
	}
	switch {
	case o.Reg == 0:
		o.Reg = 1e-6
	case o.Reg < 0:
		o.Reg = 0
	}
	return o
}

// FitGMM fits a K-component Gaussian mixture with full covariances to the
// rows of x by expectation–maximisation (Dempster, Laird & Rubin 1977),
// exactly as scikit-learn's GaussianMixture(covariance_type="full")
// iterates: initial parameters from a hard k-means assignment, then E and
// M steps until the mean log-likelihood changes by less than Tol, keeping
// the best of Restarts starts. Ganesha (Pan et al. 2009, §3.1) learns its
// node profiles this way (k-means initialisation, optionally equal
// priors).
func FitGMM(x *Dense, opt GMMOptions) (*GMM, error) {
	if err := x.check("gmm"); err != nil {
		return nil, err
	}
	if opt.K < 1 || opt.K > x.N {
		return nil, fmt.Errorf("gmm: K = %d, want 1..%d (the number of samples)", opt.K, x.N)
	}
	if opt.InitMeans != nil {
		if err := opt.InitMeans.check("gmm initial means"); err != nil {
			return nil, err
		}
		if opt.InitMeans.N != opt.K || opt.InitMeans.D != x.D {
			return nil, fmt.Errorf("gmm: initial means are %d×%d, want %d×%d", opt.InitMeans.N, opt.InitMeans.D, opt.K, x.D)
		}
	}
	opt = opt.withDefaults()
	var best *GMM
	bestLL := math.Inf(-1)
	for r := range opt.Restarts {
		init, err := initGMM(x, opt, opt.Seed+uint64(r))
		if err != nil {
			return nil, err
		}
		g, ll, _, err := runEM(x, init, opt)
		if err != nil {
			return nil, err
		}
		if best == nil || ll > bestLL {
			best, bestLL = g, ll
		}
	}
	return best, nil
}

// initGMM derives the starting mixture from a hard assignment of the
// samples: to the nearest InitMeans, or to a KMeans clustering.
func initGMM(x *Dense, opt GMMOptions, seed uint64) (*GMM, error) {
	labels := make([]int, x.N)
	if opt.InitMeans != nil {
		dist := make([]float64, x.N)
		assign(x, opt.InitMeans, labels, dist)
	} else {
		km, err := KMeans(x, KMeansOptions{K: opt.K, Restarts: 1, Seed: seed})
		if err != nil {
			return nil, fmt.Errorf("gmm init: %w", err)
		}
		labels = km.Labels
	}
	st := newSuffStats(opt.K, x.D)
	st.setShift(globalMean(x))
	for i, l := range labels {
		st.add(l, 1, x.Row(i))
	}
	g := st.model(x.N, opt.Reg, opt.EqualPriors)
	if opt.InitMeans != nil {
		copy(g.Means.X, opt.InitMeans.X)
	}
	if err := g.Prepare(); err != nil {
		return nil, fmt.Errorf("gmm init: %w", err)
	}
	return g, nil
}

func globalMean(x *Dense) []float64 {
	m := make([]float64, x.D)
	for i := range x.N {
		for j, v := range x.Row(i) {
			m[j] += v
		}
	}
	for j := range m {
		m[j] /= float64(x.N)
	}
	return m
}

// respFloor is the responsibility below which a sample's contribution to a
// component's statistics is skipped: its effect on the estimates is far
// below float64 resolution of the sums it would join (< 1e-13 relative).
const respFloor = 1e-13

// runEM iterates EM from g (prepared) as scikit-learn's BaseMixture.fit
// does and returns the fitted model, the mean log-likelihood of the last
// E-step (scikit-learn's lower_bound_) and the iterations run.
func runEM(x *Dense, g *GMM, opt GMMOptions) (*GMM, float64, int, error) {
	k, d := opt.K, x.D
	st := newSuffStats(k, d)
	xs := make([]float64, d)
	acc := make([]float64, k)
	lp := make([]float64, k)
	ll := math.Inf(-1)
	iter := 0
	for iter < opt.MaxIter {
		iter++
		prev := ll
		st.reset()
		st.setShift(g.Means.X)
		c := g.cache
		var total float64
		for i := range x.N {
			row := x.Row(i)
			c.logProbs(row, xs, acc, lp)
			_, l := argmaxLogSumExp(lp)
			total += l
			for q, v := range lp {
				if r := math.Exp(v - l); r >= respFloor {
					st.add(q, r, row)
				}
			}
		}
		ll = total / float64(x.N)
		next := st.model(x.N, opt.Reg, opt.EqualPriors)
		if err := next.Prepare(); err != nil {
			return nil, 0, iter, fmt.Errorf("gmm: EM iteration %d: %w", iter, err)
		}
		g = next
		if math.Abs(ll-prev) < opt.Tol {
			break
		}
	}
	return g, ll, iter, nil
}

// suffStats accumulates, per component, the responsibility mass n, the
// weighted first moment b = Σ r(x−s) and the weighted scatter
// S = Σ r(x−s)(x−s)ᵀ (upper triangle, packed) about a shift s (the
// previous means), which keeps the M-step free of cancellation.
type suffStats struct {
	k, d  int
	shift []float64 // K×D
	n     []float64
	b     []float64 // K×D
	s     []float64 // K × D(D+1)/2
	diff  []float64
}

func newSuffStats(k, d int) *suffStats {
	return &suffStats{k: k, d: d, shift: make([]float64, k*d), n: make([]float64, k),
		b: make([]float64, k*d), s: make([]float64, k*d*(d+1)/2), diff: make([]float64, d)}
}

func (st *suffStats) reset() {
	clear(st.n)
	clear(st.b)
	clear(st.s)
}

// setShift sets every component's shift: from a K×D slice, or one D-vector
// for all.
func (st *suffStats) setShift(s []float64) {
	if len(s) == st.d {
		for q := range st.k {
			copy(st.shift[q*st.d:], s)
		}
		return
	}
	copy(st.shift, s)
}

// add accumulates sample x into component q with responsibility r.
func (st *suffStats) add(q int, r float64, x []float64) {
	d := st.d
	diff := st.diff[:d]
	sh := st.shift[q*d : q*d+d]
	b := st.b[q*d : q*d+d]
	x = x[:d]
	for j := range diff {
		diff[j] = x[j] - sh[j]
		b[j] += r * diff[j]
	}
	st.n[q] += r
	s := st.s[q*d*(d+1)/2 : (q+1)*d*(d+1)/2]
	off := 0
	for a := range d {
		ra := r * diff[a]
		row := s[off : off+d-a]
		tail := diff[a:]
		tail = tail[:len(row)]
		for j := range row {
			row[j] += ra * tail[j]
		}
		off += d - a
	}
}

// model is the M-step: weights, means and regularised covariances from the
// statistics of n samples, with scikit-learn's 10·ε guard on empty
// components.
func (st *suffStats) model(n int, reg float64, equal bool) *GMM {
	k, d := st.k, st.d
	g := &GMM{Weights: make([]float64, k), Means: NewDense(k, d), Covs: make([]*Dense, k)}
	a := make([]float64, d)
	for q := range k {
		raw := st.n[q]
		nk := raw + 10*eps
		if equal {
			g.Weights[q] = 1 / float64(k)
		} else {
			g.Weights[q] = nk / float64(n)
		}
		b := st.b[q*d : q*d+d]
		sh := st.shift[q*d : q*d+d]
		mean := g.Means.Row(q)
		for j := range d {
			// mean = Σ r x / nk = (b + raw·shift)/nk
			mean[j] = (b[j] + raw*sh[j]) / nk
			a[j] = mean[j] - sh[j]
		}
		cov := NewDense(d, d)
		s := st.s[q*d*(d+1)/2:]
		off := 0
		for i := range d {
			for j := i; j < d; j++ {
				v := s[off+j-i] - a[i]*b[j] - b[i]*a[j] + raw*a[i]*a[j]
				v /= nk
				if i == j {
					v += reg
				}
				cov.X[i*d+j] = v
				cov.X[j*d+i] = v
			}
			off += d - i
		}
		g.Covs[q] = cov
	}
	return g
}

// eps is float64 machine epsilon (numpy's finfo(float64).eps).
const eps = 2.220446049250313e-16
