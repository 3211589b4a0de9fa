package stats

import (
	"math"
	"testing"
)

// TestFFTMatchesNumpy compares FFT with numpy.fft.fft for radix-2 and
// Bluestein lengths.
func TestFFTMatchesNumpy(t *testing.T) {
	in, out := reference(t)
	for i, n := range fftLengths {
		x := make([]complex128, n)
		for j := range x {
			x[j] = complex(in.FFT.Re[i][j], in.FFT.Im[i][j])
		}
		got := FFT(x)
		var worst float64
		for j, v := range got {
			worst = max(worst, math.Hypot(real(v)-out.FFT[i].Re[j], imag(v)-out.FFT[i].Im[j]))
		}
		if tol := 1e-10 * math.Sqrt(float64(n)) * math.Log2(float64(n)+1); worst > max(tol, 1e-12) {
			t.Errorf("length %d: max error %.3g vs numpy", n, worst)
		}
		if n == 100 {
			real := FFTReal(in.FFT.Re[i])
			want := FFT(func() []complex128 {
				c := make([]complex128, n)
				for j, v := range in.FFT.Re[i] {
					c[j] = complex(v, 0)
				}
				return c
			}())
			for j := range real {
				if real[j] != want[j] {
					t.Fatalf("FFTReal[%d] = %v, FFT of the real series %v", j, real[j], want[j])
				}
			}
		}
	}
	if len(FFT(nil)) != 0 {
		t.Error("FFT(nil) not empty")
	}
}
