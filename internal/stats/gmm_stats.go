package stats

import "gonum.org/v1/gonum/floats"

// emBlock is the number of samples the E-step scores before the M-step
// statistics take them in as one rank-n update.
const emBlock = 64

// respFloor is the responsibility below which a sample's contribution to a
// component's statistics is skipped: its effect on the estimates is far
// below float64 resolution of the sums it would join (< 1e-13 relative).
const respFloor = 1e-13

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
}

func newSuffStats(k, d int) *suffStats {
	return &suffStats{k: k, d: d, shift: make([]float64, k*d), n: make([]float64, k),
		b: make([]float64, k*d), s: make([]float64, k*d*(d+1)/2)}
}

// emScratch is one worker's buffers for scoring and accumulating blocks.
type emScratch struct {
	xs   []float64 // D: a sample minus the scoring reference
	resp []float64 // emBlock×K responsibilities
	dT   []float64 // D×emBlock: the block's (x−s), transposed
	rdT  []float64 // D×emBlock: r·(x−s), transposed
}

func newEMScratch(k, d int) *emScratch {
	return &emScratch{xs: make([]float64, d), resp: make([]float64, emBlock*k),
		dT: make([]float64, d*emBlock), rdT: make([]float64, d*emBlock)}
}

// merge adds o's statistics (taken about the same shift) into st.
func (st *suffStats) merge(o *suffStats) {
	for i, v := range o.n {
		st.n[i] += v
	}
	for i, v := range o.b {
		st.b[i] += v
	}
	for i, v := range o.s {
		st.s[i] += v
	}
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

// addBlock accumulates rows start..start+count of x, whose
// responsibilities are resp[s·K+q] (s relative to start). Per component
// the samples that matter are gathered, transposed, and the scatter is
// updated with one dot product per matrix entry.
func (st *suffStats) addBlock(x *Dense, start, count int, resp []float64, sc *emScratch) {
	d, k := st.d, st.k
	packed := d * (d + 1) / 2
	for q := range k {
		sh := st.shift[q*d : q*d+d]
		bq := st.b[q*d : q*d+d]
		cnt := 0
		var nq float64
		for s := range count {
			r := resp[s*k+q]
			if r < respFloor {
				continue
			}
			row := x.Row(start + s)
			for a, v := range row {
				v -= sh[a]
				sc.dT[a*emBlock+cnt] = v
				sc.rdT[a*emBlock+cnt] = r * v
			}
			nq += r
			cnt++
		}
		if cnt == 0 {
			continue
		}
		st.n[q] += nq
		sq := st.s[q*packed : (q+1)*packed]
		off := 0
		for a := range d {
			ra := sc.rdT[a*emBlock : a*emBlock+cnt]
			var sum float64
			for _, v := range ra {
				sum += v
			}
			bq[a] += sum
			for c := a; c < d; c++ {
				sq[off] += floats.Dot(ra, sc.dT[c*emBlock:c*emBlock+cnt])
				off++
			}
		}
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
