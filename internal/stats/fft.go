package stats

import (
	"math"
	"math/bits"
	"math/cmplx"
)

// FFT is the discrete Fourier transform X[k] = Σ x[n]·exp(-2πi·kn/N) of any
// length, unnormalised, the same as numpy.fft.fft. Powers of two use an
// iterative radix-2 Cooley–Tukey transform; other lengths use Bluestein's
// chirp-z algorithm over a power-of-two convolution. x is not modified; an
// empty input gives an empty result.
func FFT(x []complex128) []complex128 {
	n := len(x)
	out := make([]complex128, n)
	copy(out, x)
	switch {
	case n <= 1:
	case n&(n-1) == 0:
		radix2(out, false)
	default:
		bluestein(out)
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

// radix2 transforms a in place; len(a) must be a power of two. inverse
// selects exp(+2πi·kn/N) and does not scale.
func radix2(a []complex128, inverse bool) {
	n := len(a)
	shift := 64 - bits.TrailingZeros(uint(n))
	for i := range a {
		j := int(bits.Reverse64(uint64(i)) >> shift)
		if i < j {
			a[i], a[j] = a[j], a[i]
		}
	}
	sign := -1.0
	if inverse {
		sign = 1
	}
	// Twiddles exp(∓2πi·k/n), k < n/2, computed directly (not by
	// recurrence) so the error does not grow with n.
	tw := make([]complex128, n/2)
	for k := range tw {
		s, c := math.Sincos(sign * 2 * math.Pi * float64(k) / float64(n))
		tw[k] = complex(c, s)
	}
	for size := 2; size <= n; size <<= 1 {
		half, stride := size>>1, n/size
		for start := 0; start < n; start += size {
			for k := range half {
				u, v := a[start+k], a[start+k+half]*tw[k*stride]
				a[start+k], a[start+k+half] = u+v, u-v
			}
		}
	}
}

// bluestein transforms a in place for any length via the chirp-z
// identity kn = (k² + n² − (k−n)²)/2 and a radix-2 convolution.
func bluestein(a []complex128) {
	n := len(a)
	m := 1 << bits.Len(uint(2*n-1))
	chirp := make([]complex128, n)
	for k := range chirp {
		// k² mod 2n keeps the angle small and exact for large k.
		kk := (uint64(k) * uint64(k)) % uint64(2*n)
		chirp[k] = cmplx.Exp(complex(0, -math.Pi*float64(kk)/float64(n)))
	}
	u := make([]complex128, m)
	v := make([]complex128, m)
	for k := range n {
		u[k] = a[k] * chirp[k]
	}
	v[0] = cmplx.Conj(chirp[0])
	for k := 1; k < n; k++ {
		c := cmplx.Conj(chirp[k])
		v[k], v[m-k] = c, c
	}
	radix2(u, false)
	radix2(v, false)
	for i := range u {
		u[i] *= v[i]
	}
	radix2(u, true)
	scale := complex(1/float64(m), 0)
	for k := range n {
		a[k] = u[k] * chirp[k] * scale
	}
}
