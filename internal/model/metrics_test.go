package model

import (
	"math"
	"testing"
)

func TestArenaRoundTrip(t *testing.T) {
	var a Arena
	cases := []TaskMetrics{{}, {1, -2, 3}, {}}
	cases[2][SortPhaseFinish] = math.MaxInt64
	cases[2][ExecutorCPUNanos] = math.MinInt64
	cases[2][InputBytes] = 1 << 40
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
