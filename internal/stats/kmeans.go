package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// KMeansOptions configures KMeans. Zero fields take scikit-learn's
// defaults: Restarts 10 (n_init), MaxIter 300, Tol 1e-4 (relative to the
// mean per-feature variance of the data, as scikit-learn scales it). A
// negative Tol stops only when no label changes (scikit-learn's tol=0).
type KMeansOptions struct {
	K        int     // number of clusters, at least 1
	Restarts int     // independent k-means++ starts; the lowest inertia wins
	MaxIter  int     // Lloyd iterations per start
	Tol      float64 // stop when the squared center shift is at most Tol·mean variance
	Seed     uint64  // random seed; the same seed gives the same result
}

// KMeansResult is a k-means clustering: cluster centers (K×D), the label of
// every sample, the inertia (sum of squared distances of samples to their
// closest center, the "distortion") and the Lloyd iterations of the
// winning start.
type KMeansResult struct {
	Centers *Dense
	Labels  []int
	Inertia float64
	Iter    int
}

// KMeans clusters the rows of x with Lloyd's algorithm from k-means++
// seeds (Arthur & Vassilvitskii, SODA 2007, with scikit-learn's greedy
// variant: 2+⌊ln K⌋ candidates per seed), repeated Restarts times keeping
// the lowest inertia. It follows scikit-learn's KMeans(algorithm="lloyd"):
// same convergence test, empty clusters re-seeded with the samples
// farthest from their centers, and a final assignment step.
func KMeans(x *Dense, opt KMeansOptions) (*KMeansResult, error) {
	if err := x.check("kmeans"); err != nil {
		return nil, err
	}
	if opt.K < 1 || opt.K > x.N {
		return nil, fmt.Errorf("kmeans: K = %d, want 1..%d (the number of samples)", opt.K, x.N)
	}
	opt = opt.withDefaults()
	rng := rand.New(rand.NewPCG(opt.Seed, 0x6b6d65616e73))
	tol := opt.Tol
	if tol > 0 {
		tol *= meanVariance(x)
	}
	var best *KMeansResult
	for range opt.Restarts {
		res := lloyd(x, kmeansPlusPlus(x, opt.K, rng), opt.MaxIter, tol)
		if best == nil || res.Inertia < best.Inertia {
			best = res
		}
	}
	return best, nil
}

// KMeansFrom runs Lloyd's algorithm once from the given initial centers
// (scikit-learn's KMeans(init=centers, n_init=1)).
func KMeansFrom(x *Dense, centers *Dense, opt KMeansOptions) (*KMeansResult, error) {
	if err := x.check("kmeans"); err != nil {
		return nil, err
	}
	if err := centers.check("kmeans initial centers"); err != nil {
		return nil, err
	}
	if centers.D != x.D {
		return nil, fmt.Errorf("kmeans: initial centers have %d columns, data has %d", centers.D, x.D)
	}
	if centers.N > x.N {
		return nil, errors.New("kmeans: more initial centers than samples")
	}
	opt = opt.withDefaults()
	c := &Dense{N: centers.N, D: centers.D, X: append([]float64(nil), centers.X...)}
	tol := opt.Tol
	if tol > 0 {
		tol *= meanVariance(x)
	}
	return lloyd(x, c, opt.MaxIter, tol), nil
}

func (o KMeansOptions) withDefaults() KMeansOptions {
	if o.Restarts <= 0 {
		o.Restarts = 10
	}
	if o.MaxIter <= 0 {
		o.MaxIter = 300
	}
	if o.Tol == 0 {
		o.Tol = 1e-4
	}
	return o
}

// meanVariance is the mean over columns of each column's (population)
// variance, the scale scikit-learn applies to KMeans's tol.
func meanVariance(x *Dense) float64 {
	var total float64
	for j := range x.D {
		var s, ss float64
		for i := range x.N {
			s += x.X[i*x.D+j]
		}
		m := s / float64(x.N)
		for i := range x.N {
			d := x.X[i*x.D+j] - m
			ss += d * d
		}
		total += ss / float64(x.N)
	}
	return total / float64(x.D)
}

// sqDist is the squared Euclidean distance of equal-length a and b.
func sqDist(a, b []float64) float64 {
	b = b[:len(a)]
	var s float64
	for i, v := range a {
		d := v - b[i]
		s += d * d
	}
	return s
}

// kmeansPlusPlus picks k seeds with greedy k-means++.
func kmeansPlusPlus(x *Dense, k int, rng *rand.Rand) *Dense {
	n := x.N
	centers := NewDense(k, x.D)
	trials := 2 + int(math.Log(float64(k)))
	first := rng.IntN(n)
	copy(centers.Row(0), x.Row(first))
	closest := make([]float64, n)
	for i := range n {
		closest[i] = sqDist(x.Row(i), centers.Row(0))
	}
	cum := make([]float64, n)
	cand := make([]float64, n)
	bestD := make([]float64, n)
	for c := 1; c < k; c++ {
		var s float64
		for i, v := range closest {
			s += v
			cum[i] = s
		}
		bestPot, bestID := math.Inf(1), 0
		for range trials {
			r := rng.Float64() * s
			id := min(sort.SearchFloat64s(cum, r), n-1)
			var p float64
			for i := range n {
				cand[i] = min(closest[i], sqDist(x.Row(i), x.Row(id)))
				p += cand[i]
			}
			if p < bestPot {
				bestPot, bestID = p, id
				copy(bestD, cand)
			}
		}
		copy(centers.Row(c), x.Row(bestID))
		closest, bestD = bestD, closest
	}
	return centers
}

// lloyd runs Lloyd iterations from centers (modified in place) the way
// scikit-learn's _kmeans_single_lloyd does.
func lloyd(x *Dense, centers *Dense, maxIter int, tol float64) *KMeansResult {
	n, d, k := x.N, x.D, centers.N
	labels := make([]int, n)
	old := make([]int, n)
	for i := range old {
		old[i] = -1
	}
	dist := make([]float64, n)
	next := NewDense(k, d)
	counts := make([]float64, k)
	iter, strict := 0, false
	for iter < maxIter {
		iter++
		assign(x, centers, labels, dist)
		updateCenters(x, centers, next, labels, dist, counts)
		var shift float64
		for c := range k {
			shift += sqDist(centers.Row(c), next.Row(c))
		}
		centers, next = next, centers
		if equalInts(labels, old) {
			strict = true
			break
		}
		if shift <= tol {
			break
		}
		copy(old, labels)
	}
	if !strict {
		assign(x, centers, labels, dist)
	}
	var inertia float64
	for i := range n {
		inertia += sqDist(x.Row(i), centers.Row(labels[i]))
	}
	return &KMeansResult{Centers: centers, Labels: labels, Inertia: inertia, Iter: iter}
}

// assign labels every sample with its closest center; dist gets the
// squared distance.
func assign(x, centers *Dense, labels []int, dist []float64) {
	cb := newCenterBlocks(centers)
	for i := range x.N {
		labels[i], dist[i] = cb.nearest(x.Row(i))
	}
}

// updateCenters writes the means of the labelled samples into next.
// Empty clusters are relocated to the samples farthest from their centers
// (scikit-learn's _relocate_empty_clusters), moving those samples out of
// their old clusters' means; labels are left as assigned.
func updateCenters(x, centers, next *Dense, labels []int, dist, counts []float64) {
	clear(next.X)
	clear(counts)
	for i, l := range labels {
		counts[l]++
		row := next.Row(l)
		for j, v := range x.Row(i) {
			row[j] += v
		}
	}
	var empty []int
	for c, cnt := range counts {
		if cnt == 0 {
			empty = append(empty, c)
		}
	}
	if len(empty) > 0 {
		far := make([]int, x.N)
		for i := range far {
			far[i] = i
		}
		sort.SliceStable(far, func(a, b int) bool { return dist[far[a]] > dist[far[b]] })
		for e, c := range empty {
			i := far[e]
			old := labels[i]
			row := x.Row(i)
			o := next.Row(old)
			for j, v := range row {
				o[j] -= v
			}
			counts[old]--
			copy(next.Row(c), row)
			counts[c] = 1
		}
	}
	for c := range next.N {
		if counts[c] == 0 {
			copy(next.Row(c), centers.Row(c))
			continue
		}
		row := next.Row(c)
		for j := range row {
			row[j] /= counts[c]
		}
	}
}

func equalInts(a, b []int) bool {
	for i, v := range a {
		if b[i] != v {
			return false
		}
	}
	return true
}
