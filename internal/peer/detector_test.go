package peer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// runSynthetic feeds n nodes for secs seconds: "busy" nodes (the first
// half) draw labels 0–1, "idle" nodes label 2, and node "bad" (a busy one)
// label 3 from second 60 on. It returns the indicted hosts.
func runSynthetic(t *testing.T, n, secs int, groups bool) []string {
	t.Helper()
	p := DefaultParams()
	d := NewDetector(4, []string{"m"}, p, nil)
	busy := func(h string) bool {
		var i int
		fmt.Sscanf(strings.TrimPrefix(h, "n"), "%d", &i)
		return i < n/2
	}
	if groups {
		d.SetGroups(func(h string, _, _ int64) int {
			if busy(h) {
				return 2
			}
			return 0
		})
	}
	rng := rand.New(rand.NewPCG(5, 6))
	z := []float64{0}
	for s := range secs {
		t0 := int64(s) * 1000
		for i := range n {
			h := fmt.Sprintf("n%d", i)
			l := 2
			if busy(h) {
				l = rng.IntN(2)
			}
			if i == 1 && s >= 60 {
				l = 3
			}
			d.Add(h, t0, l, z, z)
		}
	}
	d.Flush()
	var out []string
	for _, st := range d.Statuses() {
		if st.FirstIndicted != 0 {
			out = append(out, st.Host)
		}
	}
	return out
}

// TestDetectorSynthetic checks Ganesha's rule on made-up label streams:
// with groups, the deviant busy node alone is indicted, in the pairwise and
// the sampled (above MaxPairwise) regimes; without groups, each idle node
// differs from the n/2 busy nodes, more than half of its n−1 peers, and is
// indicted too.
func TestDetectorSynthetic(t *testing.T) {
	for _, n := range []int{20, 400} {
		got := runSynthetic(t, n, 300, true)
		if len(got) != 1 || got[0] != "n1" {
			t.Errorf("%d nodes with groups: indicted %v, want [n1]", n, got)
		}
		plain := runSynthetic(t, n, 300, false)
		if len(plain) <= 1 {
			t.Errorf("%d nodes without groups: indicted %v, want the idle half too (they differ from half the peers)", n, plain)
		}
	}
}

// TestDetectorClockJump: a sample a century late neither hangs the
// detector nor keeps old alarm counts.
func TestDetectorClockJump(t *testing.T) {
	d := NewDetector(2, []string{"m"}, DefaultParams(), nil)
	z := []float64{0}
	for s := range 120 {
		for i := range 4 {
			l := 0
			if i == 0 {
				l = 1
			}
			d.Add(fmt.Sprintf("n%d", i), int64(s)*1000, l, z, z)
		}
	}
	before := d.Statuses()[0].AlarmCount
	d.Add("n1", 100*365*86_400_000, 0, z, z)
	after := d.Statuses()[0].AlarmCount
	if before < 1 || after > 1e-6 {
		t.Errorf("alarm count %g before the jump, %g after: want ≥ 1, then ~0", before, after)
	}
}

// TestDetectorHoldsWithoutPeers: a step in which a node has no peers doing
// its work (its group below MinNodes) is no evidence: its alarm count
// holds instead of decaying, while it keeps decaying without alarms when
// the node is compared and like its peers.
func TestDetectorHoldsWithoutPeers(t *testing.T) {
	const alone = 100_000 // from this step's end on, n0 has no group peers
	run := func(lonely bool) (atAlone, atEnd float64) {
		d := NewDetector(2, []string{"m"}, DefaultParams(), nil)
		d.SetGroups(func(host string, _, to int64) int {
			if lonely && host == "n0" && to > alone {
				return 1
			}
			return 0
		})
		z := []float64{0}
		count := func() float64 {
			for _, st := range d.Statuses() {
				if st.Host == "n0" {
					return st.AlarmCount
				}
			}
			return -1
		}
		for s := range 200 {
			if int64(s)*1000 == alone+5000 {
				atAlone = count()
			}
			for i := range 4 {
				l := 0
				if i == 0 && (lonely || int64(s)*1000 < alone-60_000) {
					l = 1 // n0 differs; in the compared run it is alike once its window forgets
				}
				d.Add(fmt.Sprintf("n%d", i), int64(s)*1000, l, z, z)
			}
		}
		return atAlone, count()
	}
	a, e := run(true)
	if a < 1 || e != a {
		t.Errorf("without peers: alarm count %g when left alone, %g at the end: want ≥ 1 and held", a, e)
	}
	if a, e := run(false); e >= a {
		t.Errorf("compared and alike: alarm count %g, then %g: want it to decay", a, e)
	}
}
