package sim

import (
	"math"
	"strconv"
	"testing"
)

// TestMetricOptions checks coarser intervals and node sampling: timestamps
// on the interval, every n-th node plus the faulty one, and the same mean
// CPU use as at 1 s.
func TestMetricOptions(t *testing.T) {
	sc := mustNamed(t, "cpu-hog")
	sc.Metrics = MetricsSpec{IntervalS: 5, EveryNth: 4}
	res, m := simulateMetrics(t, sc, 1)
	hosts := map[string]bool{}
	for _, s := range m["cpu_usage"] {
		hosts[s.host] = true
		if (s.ts-sc.StartMs)%5000 != 0 {
			t.Fatalf("timestamp %d not on a 5 s interval", s.ts)
		}
	}
	// Nodes 0, 4, 8 and the hog's node 3.
	if len(hosts) != 4 || res.Truth.Metrics.SampledOf != 4 || !hosts[res.Truth.Faults[0].Host] {
		t.Errorf("sampled hosts %v (truth %d)", hosts, res.Truth.Metrics.SampledOf)
	}
	if got := int64(len(m["cpu_usage"])); got != res.Truth.Metrics.Samples {
		t.Errorf("%d samples, truth %d", got, res.Truth.Metrics.Samples)
	}
	_, fine := simulateMetrics(t, mustNamed(t, "cpu-hog"), 1)
	f := res.Truth.Faults[0]
	coarse := meanOf(m["cpu_usage"], f.Host, false, f.StartMs+10000, f.EndMs)
	one := meanOf(fine["cpu_usage"], f.Host, false, f.StartMs+10000, f.EndMs)
	if d := coarse - one; d > 3 || d < -3 {
		t.Errorf("hog node cpu_usage %.1f at 5 s, %.1f at 1 s", coarse, one)
	}
}

// TestSinkLongIntervals checks the difference array across its ring and
// overflow: a rate over 600 s with fractional ends averages exactly per second.
func TestSinkLongIntervals(t *testing.T) {
	sc := mustNamed(t, "clean")
	if err := sc.Resolve(); err != nil {
		t.Fatal(err)
	}
	cl := newCluster(&sc.Cluster, newRNG(1, 1))
	s := newMetricSink(sc, cl, &countingWriter{}, newRNG(1, 4))
	n := cl.nodes[0]
	start, end := sc.StartMs+2500, sc.StartMs+602_250 // 2.5 s .. 602.25 s
	s.add(n, chDiskR, start, end, 1000)
	s.add(n, chDiskR, sc.StartMs+300_000, sc.StartMs+301_000, 500) // inside the ring later on
	for b := range 700 {
		if err := s.emit(); err != nil {
			t.Fatal(err)
		}
		want := 0.0
		switch {
		case b == 2:
			want = 500
		case b > 2 && b < 602:
			want = 1000
		case b == 602:
			want = 250
		}
		if b == 300 {
			want += 500
		}
		if got := s.series[0].cur[chDiskR]; got < want-1e-6 || got > want+1e-6 {
			t.Fatalf("second %d: %.6f, want %.0f", b, got, want)
		}
	}
	if len(s.series[0].over) != 0 {
		t.Errorf("%d overflow buckets left", len(s.series[0].over))
	}
}

// TestAppendCenti checks the value format against strconv.
func TestAppendCenti(t *testing.T) {
	for _, v := range []float64{0, 0.004, 0.005, 0.1, 0.25, 1, 2.675, 12.3, 99.99, 100, 1234567.891, 3e9, -0.5, -12.34} {
		want := strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
		if got := string(appendCenti(nil, v)); got != want && !(want == "-0" && got == "0") {
			t.Errorf("%v: %q, want %q", v, got, want)
		}
	}
}
