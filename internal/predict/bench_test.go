package predict

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// tenThousandRuns are a recurring job's history: 10,000 runs at 8 cluster
// sizes, each reading 0.5–1.5 times its usual data, runtime by Ernest's
// curve with 5% noise.
func tenThousandRuns() *RunTable {
	rng := rand.New(rand.NewPCG(3, 4))
	sizes := []float64{4, 8, 12, 16, 24, 32, 48, 64}
	t := &RunTable{Unit: "ms"}
	for range 10000 {
		m := sizes[rng.IntN(len(sizes))]
		d := (0.5 + rng.Float64()) * 100e9
		rt := (20000 + 3e-6*d/m + 2000*math.Log(m) + 50*m) * (1 + 0.05*rng.NormFloat64())
		t.Points = append(t.Points, Point{Machines: m, Data: d, Runtime: rt})
	}
	return t
}

// BenchmarkFromRuns10000 fits every candidate, chooses by cross-validation
// and predicts, from 10,000 past runs (docs/PERFORMANCE.md).
func BenchmarkFromRuns10000(b *testing.B) {
	t := tenThousandRuns()
	b.ReportAllocs()
	b.SetBytes(int64(len(t.Points)) * 24)
	for b.Loop() {
		if _, err := FromRuns(t, 96, 120e9, ChoiceOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFromRuns10000UnderASecond is the benchmark's budget as a test:
// fitting and predicting from 10,000 runs takes under a second of CPU
// (process user + system time, which other load on a shared machine does
// not inflate as it does wall time).
func TestFromRuns10000UnderASecond(t *testing.T) {
	tab := tenThousandRuns()
	const n = 3
	start := sharedtest.ProcessCPU()
	for range n {
		if _, err := FromRuns(tab, 96, 120e9, ChoiceOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	per := (sharedtest.ProcessCPU() - start) / n
	t.Logf("fit and predict from 10,000 runs: %v of CPU per question", per)
	if per >= time.Second {
		t.Errorf("%v of CPU per question, want under a second", per)
	}
}

// BenchmarkStageReplay replays one stage of 10,000 tasks on 500 slots,
// their lengths drawn from a spread with a heavy tail, speculation on: the
// inner loop of every replayed prediction (docs/PERFORMANCE.md).
func BenchmarkStageReplay(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	obs := make([]ratioObs, 2000)
	for i := range obs {
		r := math.Exp(0.2 * rng.NormFloat64())
		if rng.Float64() < 0.04 {
			r *= 1.5 * math.Pow(1-rng.Float64(), -1/1.3)
		}
		obs[i] = ratioObs{ratio: r}
	}
	sp := newSpread(obs)
	const n = 10000
	st := &stageTasks{n: n, fixed: 1000, variable: func(int) float64 { return 10000 }, spread: &sp, gapMs: 300}
	spec := Speculation{On: true}.withDefaults()
	var r stageReplay
	b.ReportAllocs()
	b.SetBytes(n * 8)
	for b.Loop() {
		r.replay(st, 500, spec, rng)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/task")
}
