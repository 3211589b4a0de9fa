package stats

import (
	"testing"
)

func benchModel(b *testing.B, n, d, k int) (*Dense, *GMM) {
	x := mixtureData(newRand(5), n, d, k, 2)
	rows := make([]int, k)
	for i := range rows {
		rows[i] = i
	}
	g, err := initGMM(x, GMMOptions{K: k, InitMeans: pickRows(x, rows...)}.withDefaults(), 0)
	if err != nil {
		b.Fatal(err)
	}
	return x, g
}

// BenchmarkGMMPredict is Ganesha's classification hot path: one 14-metric
// vector against a 7-component profile, plus a label histogram update.
func BenchmarkGMMPredict(b *testing.B) {
	x, g := benchModel(b, 4096, 14, 7)
	hist := make([]int, 7)
	b.ReportAllocs()
	defer cpuTimer(b)()
	b.SetBytes(14 * 8)
	i := 0
	for b.Loop() {
		label, _ := g.Predict(x.Row(i & 4095))
		hist[label]++
		i++
	}
}

// BenchmarkGMMEMIteration is one EM iteration (E and M step) on 20 000
// 14-dimensional vectors with K = 7.
func BenchmarkGMMEMIteration(b *testing.B) {
	x, g := benchModel(b, 20000, 14, 7)
	opt := GMMOptions{K: 7, MaxIter: 1, Tol: -1}.withDefaults()
	b.ReportAllocs()
	defer cpuTimer(b)()
	b.SetBytes(int64(len(x.X) * 8))
	for b.Loop() {
		if _, _, _, err := runEM(x, g, opt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkKMeans(b *testing.B) {
	x := mixtureData(newRand(6), 20000, 14, 7, 2)
	b.ReportAllocs()
	defer cpuTimer(b)()
	b.SetBytes(int64(len(x.X) * 8))
	for b.Loop() {
		if _, err := KMeans(x, KMeansOptions{K: 7, Restarts: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFFT4097(b *testing.B) {
	x := make([]complex128, 4097)
	for i := range x {
		x[i] = complex(float64(i%17), 0)
	}
	b.ReportAllocs()
	defer cpuTimer(b)()
	b.SetBytes(4097 * 16)
	for b.Loop() {
		FFT(x)
	}
}

// BenchmarkKMeansLloyd is 20 Lloyd iterations on 100 000 14-dimensional
// vectors with K = 7 from fixed centers (the k-means inner loop).
func BenchmarkKMeansLloyd(b *testing.B) {
	x := mixtureData(newRand(6), 100000, 14, 7, 2)
	c := pickRows(x, 0, 7, 14, 21, 28, 35, 42)
	b.ReportAllocs()
	defer cpuTimer(b)()
	b.SetBytes(int64(len(x.X) * 8 * 20))
	for b.Loop() {
		if _, err := KMeansFrom(x, c, KMeansOptions{MaxIter: 20, Tol: -1}); err != nil {
			b.Fatal(err)
		}
	}
}
