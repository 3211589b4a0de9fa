package peer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/clusterlens/clusterlens/internal/stats"
)

// TrainOptions are Ganesha's offline training parameters (Pan et al., 2009, §4.2).
type TrainOptions struct {
	// K is the number of states; 0 chooses it by the elbow rule over
	// k-means distortions for K = 1..MaxK (the paper chose 7).
	K    int `json:"k"`
	MaxK int `json:"maxK"`
	// Restarts, MaxIter and Tol drive both k-means and EM.
	Restarts int     `json:"restarts"`
	MaxIter  int     `json:"maxIter"`
	Tol      float64 `json:"tol"`
	// Reg is added to every covariance's diagonal (regularisation).
	Reg float64 `json:"reg"`
	// EqualPriors fixes the mixture weights to 1/K (the paper's option).
	EqualPriors bool `json:"equalPriors"`
	// UnknownQuantile: vectors less likely than this quantile of the
	// training vectors' log-likelihoods are "unknown".
	UnknownQuantile float64 `json:"unknownQuantile"`
	// MaxVectors caps the training vectors (a uniform sample beyond it).
	MaxVectors int    `json:"maxVectors"`
	Seed       uint64 `json:"seed"`
}

// DefaultTrainOptions returns the defaults documented in docs/PEER.md.
func DefaultTrainOptions() TrainOptions {
	return TrainOptions{MaxK: 12, Restarts: 3, MaxIter: 200, Tol: 1e-4, Reg: 1e-3, EqualPriors: true,
		UnknownQuantile: 0.005, MaxVectors: 20000, Seed: 1}
}

// Train fits a Profile to raw vectors of metrics from fault-free runs:
// log1p and z-score normalisation, k-means with K by the elbow rule, then
// EM for a Gaussian mixture with full, regularised covariances started from
// the k-means centers (§4.2). params are stored in the profile for
// deployment.
func Train(vectors [][]float64, metrics []string, opt TrainOptions, params Params) (*Profile, error) {
	d := len(metrics)
	if opt.MaxK < 1 && opt.K < 1 {
		return nil, fmt.Errorf("train: k %d, maxK %d: want one ≥ 1", opt.K, opt.MaxK)
	}
	if err := params.Validate(); err != nil {
		return nil, err
	}
	if len(vectors) < 10*max(opt.K, opt.MaxK) {
		return nil, fmt.Errorf("train: %d vectors, want at least %d", len(vectors), 10*max(opt.K, opt.MaxK))
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x67616e65736861))
	if opt.MaxVectors > 0 && len(vectors) > opt.MaxVectors {
		vectors = slices.Clone(vectors)
		rng.Shuffle(len(vectors), func(i, j int) { vectors[i], vectors[j] = vectors[j], vectors[i] })
		vectors = vectors[:opt.MaxVectors]
	}
	n := len(vectors)
	p := &Profile{Kind: ProfileKind, Version: ProfileVersion, MetricNames: slices.Clone(metrics),
		Transform: transformLog1pZ, Mean: make([]float64, d), Std: make([]float64, d), Vectors: n,
		Train: opt, Params: params}
	x := stats.NewDense(n, d)
	for i, v := range vectors {
		if len(v) != d {
			return nil, fmt.Errorf("train: vector %d has %d values, want %d", i, len(v), d)
		}
		for j, a := range v {
			x.X[i*d+j] = math.Log1p(max(a, 0))
		}
	}
	for j := range d {
		var s, ss float64
		for i := range n {
			s += x.X[i*d+j]
		}
		m := s / float64(n)
		for i := range n {
			e := x.X[i*d+j] - m
			ss += e * e
		}
		p.Mean[j], p.Std[j] = m, math.Sqrt(ss/float64(n))
		if p.Std[j] < 1e-6 {
			p.Std[j] = 1 // a constant metric: centred, not scaled
		}
		for i := range n {
			x.X[i*d+j] = (x.X[i*d+j] - m) / p.Std[j]
		}
	}
	k := opt.K
	var centers *stats.Dense
	if k == 0 {
		var fits []*stats.KMeansResult
		for kk := 1; kk <= opt.MaxK; kk++ {
			r, err := stats.KMeans(x, stats.KMeansOptions{K: kk, Restarts: opt.Restarts, MaxIter: opt.MaxIter, Tol: opt.Tol, Seed: opt.Seed})
			if err != nil {
				return nil, fmt.Errorf("train: %w", err)
			}
			fits = append(fits, r)
			p.Distortions = append(p.Distortions, r.Inertia)
		}
		e := stats.Elbow(p.Distortions)
		k, centers = e+1, fits[e].Centers
	} else {
		r, err := stats.KMeans(x, stats.KMeansOptions{K: k, Restarts: opt.Restarts, MaxIter: opt.MaxIter, Tol: opt.Tol, Seed: opt.Seed})
		if err != nil {
			return nil, fmt.Errorf("train: %w", err)
		}
		centers = r.Centers
	}
	g, err := stats.FitGMM(x, stats.GMMOptions{K: k, MaxIter: opt.MaxIter, Restarts: 1, Tol: opt.Tol, Reg: opt.Reg,
		EqualPriors: opt.EqualPriors, Seed: opt.Seed, InitMeans: centers})
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	p.K, p.GMM = k, g
	ll := make([]float64, n)
	var lp []float64
	for i := range n {
		lp = g.LogProbs(x.Row(i), lp)
		ll[i] = slices.Max(lp)
	}
	slices.Sort(ll)
	p.MinLogLik = ll[min(n-1, int(opt.UnknownQuantile*float64(n)))]
	if opt.UnknownQuantile <= 0 {
		p.MinLogLik = -math.MaxFloat64 // JSON has no infinity
	}
	return p, nil
}
