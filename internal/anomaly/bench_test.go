package anomaly

import (
	"math/rand/v2"
	"testing"
)

// randRows returns n observations of d metrics in [0, 1).
func randRows(rng *rand.Rand, n, d int) [][]float64 {
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = make([]float64, d)
		for j := range rows[i] {
			rows[i][j] = rng.Float64()
		}
	}
	return rows
}

// BenchmarkScoreAgainstNormal scores one SMD-shaped segment: 38 metrics,
// a day (1440 minutes) of normal behaviour and a 10-minute window, the
// work per labeled segment in TestSMDInterpretation. Bytes are the
// observations' float64s.
func BenchmarkScoreAgainstNormal(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	normal, window := randRows(rng, 1440, 38), randRows(rng, 10, 38)
	p := DefaultNormalParams()
	b.SetBytes(int64((len(normal) + len(window)) * 38 * 8))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ScoreAgainstNormal(normal, window, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScoreAgainstNormalPCA is the same with HybridTune's PCA (CCR
// 0.95) picking the principal metrics.
func BenchmarkScoreAgainstNormalPCA(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	normal, window := randRows(rng, 1440, 38), randRows(rng, 10, 38)
	p := DefaultNormalParams()
	p.CCR = DefaultCCR
	b.SetBytes(int64((len(normal) + len(window)) * 38 * 8))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ScoreAgainstNormal(normal, window, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAbnormalNodes compares 100 nodes on the 22 canonical metrics.
func BenchmarkAbnormalNodes(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := randRows(rng, 100, 22)
	hosts := make([]string, len(x))
	for i := range hosts {
		hosts[i] = "node" + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	metrics := make([]string, 22)
	for j := range metrics {
		metrics[j] = "m" + string(rune('a'+j))
	}
	p := DefaultNodeParams()
	b.SetBytes(int64(len(x) * 22 * 8))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := AbnormalNodes(hosts, metrics, x, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOutlierMetrics runs the outlier-metric diagnosis on a simulated fault window
// (12 nodes, 22 metrics, 170 one-second samples each).
func BenchmarkOutlierMetrics(b *testing.B) {
	w := simulate(b, "cpu-hog", 1, false, faultWindow)
	p := DefaultOutlierParams()
	n := 0
	for _, h := range w.series {
		for _, s := range h {
			n += len(s)
		}
	}
	b.SetBytes(int64(n * 8))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := OutlierMetrics(w.hosts, w.metrics, w.series, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSMDEvaluation scores all 71 labeled segments of the SMD subset
// (the data read once, outside the timing). Bytes are the float64s of the
// segments and their references.
func BenchmarkSMDEvaluation(b *testing.B) {
	machines := loadAllSMD(b)
	p := DefaultNormalParams()
	var n int64 // observations compared: each segment's and its reference's
	for _, m := range machines {
		for _, s := range m.segments {
			n += int64(len(smdDayBefore(m, s.start)) + s.end - s.start)
		}
	}
	b.SetBytes(n * int64(len(machines[0].test[0])) * 8)
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range machines {
			scoreSMD(b, m, p, smdDayBefore)
		}
	}
}
