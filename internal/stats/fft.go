package stats

import (
	"math"
	"math/bits"
	"math/cmplx"
	"sync"
	"sync/atomic"
)

// FFT is the discrete Fourier transform X[k] = Σ x[n]·exp(-2πi·kn/N) of any
// length, unnormalised, the same as numpy.fft.fft. Powers of two use an
// iterative radix-2 Cooley–Tukey transform; other lengths use Bluestein's
// chirp-z algorithm over a power-of-two convolution. Twiddle factors and
// chirps are cached per length (up to maxPlans lengths). x is not
// modified; an empty input gives an empty result. Safe for concurrent use.
func FFT(x []complex128) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	copy(out, x)
	switch {
	case n <= 1:
	case n&(n-1) == 0:
		radix2(out, twiddles(n))
	default:
		bluestein(out, chirpPlan(n))
	}
	return out
}

// FFTReal is FFT of a real series (numpy.fft.fft of a real array): all N
// coefficients, the upper half being the conjugates of the lower.
func FFTReal(x []float64) []complex128 {
	c := make([]complex128, len(x))
	for i, v := range x {
		c[i] = complex(v, 0)
	}
	return FFT(c)
}

// maxPlans bounds the per-length cache so arbitrary lengths cannot grow it
// without limit; lengths beyond it are planned on every call.
const maxPlans = 64

var (
	plans     sync.Map // int → *fftPlan
	planCount atomic.Int32
)

// fftPlan is what a length needs: twiddles exp(−2πi·k/n), k < n/2, for a
// power of two; for Bluestein also the chirp and the transformed
// convolution kernel of size m.
type fftPlan struct {
	tw    []complex128
	chirp []complex128
	kern  []complex128
	m     int
}

func cachedPlan(key int, build func() *fftPlan) *fftPlan {
	if p, ok := plans.Load(key); ok {
		return p.(*fftPlan)
	}
	p := build()
	if planCount.Load() < maxPlans {
		if _, loaded := plans.LoadOrStore(key, p); !loaded {
			planCount.Add(1)
		}
	}
	return p
}

// twiddles returns exp(−2πi·k/n) for k < n/2, computed directly (not by
// recurrence) so the error does not grow with n.
func twiddles(n int) []complex128 {
	return cachedPlan(n, func() *fftPlan {
		tw := make([]complex128, n/2)
		for k := range tw {
			s, c := math.Sincos(-2 * math.Pi * float64(k) / float64(n))
			tw[k] = complex(c, s)
		}
		return &fftPlan{tw: tw}
	}).tw
}

// chirpPlan prepares Bluestein's transform of length n (not a power of
// two; the cache keys are disjoint from twiddles' because of that).
func chirpPlan(n int) *fftPlan {
	return cachedPlan(n, func() *fftPlan {
		m := 1 << bits.Len(uint(2*n-1))
		p := &fftPlan{m: m, chirp: make([]complex128, n), kern: make([]complex128, m)}
		for k := range p.chirp {
			// k² mod 2n keeps the angle small and exact for large k.
			kk := (uint64(k) * uint64(k)) % uint64(2*n)
			p.chirp[k] = cmplx.Exp(complex(0, -math.Pi*float64(kk)/float64(n)))
		}
		p.kern[0] = cmplx.Conj(p.chirp[0])
		for k := 1; k < n; k++ {
			c := cmplx.Conj(p.chirp[k])
			p.kern[k], p.kern[m-k] = c, c
		}
		radix2(p.kern, twiddles(m))
		return p
	})
}

// radix2 transforms a in place (forward); len(a) must be a power of two
// and tw its twiddles.
func radix2(a []complex128, tw []complex128) {
	n := len(a)
	shift := 64 - bits.TrailingZeros(uint(n))
	for i := range a {
		j := int(bits.Reverse64(uint64(i)) >> shift)
		if i < j {
			a[i], a[j] = a[j], a[i]
		}
	}
	for size := 2; size <= n; size <<= 1 {
		half, stride := size>>1, n/size
		for start := 0; start < n; start += size {
			lo, hi := a[start:start+half], a[start+half:start+size]
			for k := range lo {
				u, v := lo[k], hi[k]*tw[k*stride]
				lo[k], hi[k] = u+v, u-v
			}
		}
	}
}

// bluestein transforms a in place for any length via the chirp-z
// identity kn = (k² + n² − (k−n)²)/2 and a radix-2 convolution.
func bluestein(a []complex128, p *fftPlan) {
	n, m := len(a), p.m
	u := make([]complex128, m)
	for k := range n {
		u[k] = a[k] * p.chirp[k]
	}
	tw := twiddles(m)
	radix2(u, tw)
	// The inverse transform as conj(FFT(conj(·))), unscaled.
	for i := range u {
		u[i] = cmplx.Conj(u[i] * p.kern[i])
	}
	radix2(u, tw)
	scale := complex(1/float64(m), 0)
	for k := range n {
		a[k] = cmplx.Conj(u[k]) * p.chirp[k] * scale
	}
}
