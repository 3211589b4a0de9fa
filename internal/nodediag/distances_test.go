package nodediag

import (
	"math"
	"testing"
)

// TestDistancesMatchDetector recomputes, from the labels, each culprit's
// label histogram and its square-root JS distances to its peers at its
// first indictment, and checks the share beyond the threshold against the
// one the detector recorded (peer.Indictment.Differs, computed from its
// own incremental histograms); and checks the replayed alarm history
// against the detector's largest count and alarm total.
func TestDistancesMatchDetector(t *testing.T) {
	checked := 0
	for _, tc := range []struct {
		name  string
		nodes int
		seed  uint64
	}{{"cpu-hog", 0, 1}, {"disk-hog", 0, 2}, {"cpu-hog", 50, 3}} {
		r := simulate(t, tc.name, tc.nodes, tc.seed)
		for _, res := range r.diagnoseAll(t, DefaultOptions()) {
			for _, c := range append(res.Peers.Culprits, res.Peers.Innocent...) {
				d := c.Distances
				if d.Peers == 0 {
					t.Errorf("%s seed %d: %s has no peers at its indictment", tc.name, tc.seed, c.Host)
					continue
				}
				if got := float64(d.Beyond) / float64(d.Peers); math.Abs(got-d.DetectorShare) > 1e-9 {
					t.Errorf("%s seed %d: %s beyond %d of %d peers (%.3f), detector %.3f", tc.name, tc.seed, c.Host, d.Beyond, d.Peers, got, d.DetectorShare)
				}
				top := 0.0
				for _, v := range c.History {
					top = max(top, v)
				}
				if math.Abs(top-c.MaxAlarmCount) > 1e-3 || len(c.Alarmed) != c.Alarms {
					t.Errorf("%s seed %d: %s replayed max count %.3f, %d alarms; detector %.3f, %d", tc.name, tc.seed, c.Host, top, len(c.Alarmed), c.MaxAlarmCount, c.Alarms)
				}
				checked++
			}
		}
	}
	if checked < 3 {
		t.Errorf("only %d indicted nodes checked", checked)
	}
}
