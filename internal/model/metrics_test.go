package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

func TestArenaRoundTrip(t *testing.T) {
	var a Arena
	cases := []TaskMetrics{{}, {1, -2, 3}, {}}
	cases[2][SortPhaseFinish] = math.MaxInt64
	cases[2][ExecutorCPUNanos] = math.MinInt64
	cases[2][InputBytes] = 1 << 40
	// Zig-zag varints of one, two and three bytes at their boundaries.
	edges := TaskMetrics{}
	for i, v := range []int64{63, -64, 64, -65, 8191, -8192, 8192, -8193} {
		edges[Metric(5*i+1)] = v
	}
	cases = append(cases, edges)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var m TaskMetrics
		for i := range m {
			if rng.IntN(3) == 0 {
				m[i] = rng.Int64() >> rng.UintN(64)
				if rng.IntN(2) == 0 {
					m[i] = -m[i]
				}
			}
		}
		cases = append(cases, m)
	}
	offs := make([]uint32, len(cases))
	for i := range cases {
		offs[i] = a.Add(&cases[i])
	}
	for i, off := range offs {
		var got TaskMetrics
		a.Get(off, &got)
		if got != cases[i] {
			t.Errorf("case %d: got %v want %v", i, got, cases[i])
		}
	}
}

func TestArenaCompactness(t *testing.T) {
	var a Arena
	m := TaskMetrics{}
	m[ExecutorRunTime] = 1234
	m[ExecutorCPUNanos] = 987654321
	m[ResultSize] = 2500
	m[InputBytes] = 134217728
	a.Add(&m)
	if a.Len() > 16 {
		t.Errorf("4 metrics packed into %d bytes, want <= 16", a.Len())
	}
}

func TestExecutorMetricsPeak(t *testing.T) {
	var e, o ExecutorMetrics
	if e.Peak(&o) {
		t.Fatal("peak of unset metrics changed e")
	}
	o.Values[0], o.Set = 5, true
	if !e.Peak(&o) || e.Values[0] != 5 || !e.Set {
		t.Fatalf("peak = %+v", e)
	}
	o.Values[0] = 3
	if e.Peak(&o) || e.Values[0] != 5 {
		t.Fatalf("lower value changed peak: %+v", e)
	}
}

// BenchmarkArenaGet unpacks the metrics of a typical Spark task attempt
// (eighteen non-zero metrics of one to five bytes each).
func BenchmarkArenaGet(b *testing.B) {
	var a Arena
	var m TaskMetrics
	for i, v := range []int64{12, 3, 40_000, 2_100_000_000, 950, 2400, 31, 1 << 20, 77, 5, 1 << 27, 3000, 16, 4 << 20, 9, 1, 123_456, 64} {
		m[Metric(i*3%int(NumMetrics))] = v
	}
	off := a.Add(&m)
	b.SetBytes(int64(a.Len()))
	b.ReportAllocs()
	var got TaskMetrics
	cpu0 := sharedtest.ProcessCPU()
	for b.Loop() {
		a.Get(off, &got)
	}
	b.ReportMetric(float64(sharedtest.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	if got != m {
		b.Fatalf("got %v, want %v", got, m)
	}
}
