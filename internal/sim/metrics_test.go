package sim

import (
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
