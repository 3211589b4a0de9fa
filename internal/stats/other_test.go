package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 99)) }

// TestKMeansMatchesSklearn compares Lloyd from fixed centers with
// KMeans(init=centers, n_init=1, algorithm="lloyd") and k-means++ with
// ten restarts against scikit-learn's n_init=10.
func TestKMeansMatchesSklearn(t *testing.T) {
	in, out := reference(t)
	got, err := KMeansFrom(in.KMeans.X, in.KMeans.Centers, KMeansOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(got.Inertia, out.KM.Inertia, 1e-9, 0) {
		t.Errorf("inertia %.12g, sklearn %.12g", got.Inertia, out.KM.Inertia)
	}
	if got.Iter != out.KM.Iters {
		t.Errorf("%d iterations, sklearn %d", got.Iter, out.KM.Iters)
	}
	checkSlice(t, "centers", got.Centers.X, out.KM.Centers, 1e-9, 1)
	for i, l := range got.Labels {
		if l != out.KM.Labels[i] {
			t.Fatalf("label %d = %d, sklearn %d", i, l, out.KM.Labels[i])
		}
	}
	pp, err := KMeans(in.KMeans.X, KMeansOptions{K: in.KMeans.Centers.N, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if pp.Inertia > out.KM.PPInertia*1.01 {
		t.Errorf("k-means++ inertia %.6g, sklearn's best of 10 %.6g (more than 1%% worse)", pp.Inertia, out.KM.PPInertia)
	}
	t.Logf("k-means++ inertia %.8g, sklearn %.8g", pp.Inertia, out.KM.PPInertia)
}

// TestPCAMatchesSklearn compares components (up to sign), variances,
// ratios, the CCR cut and projections with sklearn's PCA.
func TestPCAMatchesSklearn(t *testing.T) {
	in, out := reference(t)
	x := in.PCA.X
	for i, ccr := range in.PCA.CCR {
		want := out.PCA[i]
		p, err := FitPCA(x, ccr)
		if err != nil {
			t.Fatal(err)
		}
		if p.Components.N != want.N {
			t.Fatalf("ccr %v: kept %d components, sklearn %d", ccr, p.Components.N, want.N)
		}
		checkSlice(t, "mean", p.Mean, want.Mean, 1e-12, 1)
		checkSlice(t, "variance", p.Variance, want.Variance, 1e-9, 1e-9)
		checkSlice(t, "ratio", p.Ratio, want.Ratio, 1e-9, 1e-9)
		d := x.D
		signs := make([]float64, want.N)
		for c := range want.N {
			row := p.Components.Row(c)
			ref := want.Components[c*d : (c+1)*d]
			signs[c] = 1
			if Cosine(row, ref) < 0 {
				signs[c] = -1
			}
			for j := range row {
				if math.Abs(signs[c]*row[j]-ref[j]) > 1e-8 {
					t.Fatalf("ccr %v component %d[%d] = %.10g, sklearn %.10g (up to sign)", ccr, c, j, row[j], ref[j])
				}
			}
		}
		var buf []float64
		for r := range 10 {
			buf = p.Transform(x.Row(r), buf)
			for c, v := range buf {
				if w := want.Transform[r*want.N+c]; math.Abs(signs[c]*v-w) > 1e-8*math.Max(1, math.Abs(w)) {
					t.Fatalf("ccr %v: transform row %d[%d] = %.10g, sklearn %.10g", ccr, r, c, v, w)
				}
			}
		}
	}
}

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

func TestMinMaxCosineJSMatchReference(t *testing.T) {
	in, out := reference(t)
	for i, v := range in.MinMax {
		checkSlice(t, "MinMax", MinMax(v), out.MinMax[i], 1e-12, 1e-12)
	}
	for i, c := range in.Cosine {
		if got := Cosine(c[0], c[1]); !relClose(got, out.Cosine[i], 1e-12, 1e-12) {
			t.Errorf("Cosine(%v, %v) = %v, sklearn %v", c[0], c[1], got, out.Cosine[i])
		}
	}
	for i, c := range in.JS {
		want := out.JS[i]
		if got := JSDistance(c[0], c[1]); !relClose(got, want, 1e-9, 1e-9) {
			t.Errorf("JSDistance(%v, %v) = %v, scipy %v", c[0], c[1], got, want)
		}
		if got := JSDivergence(c[0], c[1]); !relClose(got, want*want, 1e-9, 1e-12) {
			t.Errorf("JSDivergence(%v, %v) = %v, scipy squared %v", c[0], c[1], got, want*want)
		}
	}
	if !math.IsNaN(JSDivergence([]float64{1}, []float64{1, 2})) || !math.IsNaN(Cosine([]float64{1}, nil)) {
		t.Error("mismatched lengths should give NaN")
	}
}

func TestElbow(t *testing.T) {
	for _, tc := range []struct {
		d    []float64
		want int
	}{
		{[]float64{1000, 300, 120, 100, 90, 85, 82}, 2},
		{[]float64{100, 50, 10, 9, 8}, 2},
		{[]float64{10, 5}, 0},
		{nil, -1},
		{[]float64{5, 5, 5, 5}, 0},
	} {
		if got := Elbow(tc.d); got != tc.want {
			t.Errorf("Elbow(%v) = %d, want %d", tc.d, got, tc.want)
		}
	}
}

// TestSqDist8MatchesGo checks the platform distance kernel against the
// portable one and against sqDist, bit for bit.
func TestSqDist8MatchesGo(t *testing.T) {
	rng := newRand(9)
	for _, k := range []int{1, 7, 8, 13} {
		for _, d := range []int{1, 3, 14} {
			c := NewDense(k, d)
			for i := range c.X {
				c.X[i] = rng.NormFloat64()
			}
			cb := newCenterBlocks(c)
			x := make([]float64, d)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			wantBest, wantD := 0, math.Inf(1)
			for q := range k {
				if v := sqDist(x, c.Row(q)); v < wantD {
					wantBest, wantD = q, v
				}
			}
			if best, dist := cb.nearest(x); best != wantBest || dist != wantD {
				t.Errorf("k=%d d=%d: nearest (%d, %v), direct (%d, %v)", k, d, best, dist, wantBest, wantD)
			}
			for b := 0; b*lanes < k; b++ {
				var got, want [lanes]float64
				blk := cb.t[b*d*lanes : (b+1)*d*lanes]
				sqDist8(&blk[0], &x[0], d, &got)
				sqDist8Go(blk, x, &want)
				if got != want {
					t.Errorf("k=%d d=%d block %d: kernel %v, portable %v", k, d, b, got, want)
				}
			}
		}
	}
}

func TestBadInputErrors(t *testing.T) {
	nan := &Dense{N: 3, D: 2, X: []float64{1, 2, 3, math.Inf(1), 5, 6}}
	if _, err := KMeans(nan, KMeansOptions{K: 2}); err == nil || !strings.Contains(err.Error(), "row 1, column 1") {
		t.Errorf("KMeans with Inf: %v", err)
	}
	if _, err := FitPCA(nan, 0.9); err == nil {
		t.Error("FitPCA with Inf: no error")
	}
	if _, err := FitPCA(NewDense(1, 3), 0.9); err == nil {
		t.Error("FitPCA with one sample: no error")
	}
	if _, err := KMeans(NewDense(3, 2), KMeansOptions{K: 4}); err == nil {
		t.Error("KMeans with K > N: no error")
	}
	if _, err := KMeansFrom(NewDense(3, 2), NewDense(2, 3), KMeansOptions{}); err == nil {
		t.Error("KMeansFrom with mismatched centers: no error")
	}
}
