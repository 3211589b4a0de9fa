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
	// Ganesha does (Pan et al. 2009, §4.2).
	EqualPriors bool
	Seed        uint64 // seed for the k-means initialisation
	// Workers is the number of goroutines an EM pass uses (0: GOMAXPROCS).
	// The result does not depend on it: the data is split into fixed
	// chunks whose statistics are summed in order.
	Workers int
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
// the best of Restarts starts. Ganesha (Pan et al. 2009, §4.2) learns its
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
	sc := newEMScratch(opt.K, x.D)
	for start := 0; start < x.N; start += emBlock {
		count := min(emBlock, x.N-start)
		clear(sc.resp)
		for s := range count {
			sc.resp[s*opt.K+labels[start+s]] = 1
		}
		st.addBlock(x, start, count, sc.resp, sc)
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

// runEM iterates EM from g (prepared) as scikit-learn's BaseMixture.fit
// does and returns the fitted model, the mean log-likelihood of the last
// E-step (scikit-learn's lower_bound_) and the iterations run.
func runEM(x *Dense, g *GMM, opt GMMOptions) (*GMM, float64, int, error) {
	p := newEMPass(x, opt.K, opt.Workers)
	ll := math.Inf(-1)
	iter := 0
	for iter < opt.MaxIter {
		iter++
		prev := ll
		st, total := p.run(g)
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

// toResponsibilities turns weighted log densities into responsibilities
// in place and returns their log-sum-exp (the sample's log-likelihood).
// A sample impossible under every component gets no responsibility.
func toResponsibilities(lp []float64) float64 {
	top := math.Inf(-1)
	for _, v := range lp {
		top = max(top, v)
	}
	if math.IsInf(top, -1) || math.IsNaN(top) {
		clear(lp)
		return top
	}
	var sum float64
	for i, v := range lp {
		e := 0.0
		if d := v - top; d > -expCutoff {
			e = math.Exp(d)
		}
		lp[i] = e
		sum += e
	}
	inv := 1 / sum
	for i := range lp {
		lp[i] *= inv
	}
	return top + math.Log(sum)
}
