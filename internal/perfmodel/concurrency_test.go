package perfmodel

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// concurrencyByEvents is the former concurrency: one event per interval end
// and start, sorted by time with ends first, and the highest running count.
func concurrencyByEvents(groups [][][2]int64) int {
	type ev struct {
		t int64
		d int
	}
	var evs []ev
	for _, g := range groups {
		for _, x := range g {
			evs = append(evs, ev{x[0], 1}, ev{x[1], -1})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			return cmp.Compare(a.t, b.t)
		}
		return a.d - b.d
	})
	cur, m := 0, 0
	for _, e := range evs {
		cur += e.d
		m = max(m, cur)
	}
	return m
}

// TestConcurrencyMatchesEvents checks the merge of sorted starts and ends
// against the event sort, with many shared instants, empty intervals and
// intervals ending before they start.
func TestConcurrencyMatchesEvents(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	span := func(x [2]int64) (int64, int64) { return x[0], x[1] }
	for n := range 200 {
		groups := make([][][2]int64, 1+rng.IntN(3))
		for range n {
			a := rng.Int64N(20)
			g := rng.IntN(len(groups))
			groups[g] = append(groups[g], [2]int64{a, a + rng.Int64N(8) - 1})
		}
		if got, want := concurrency(groups, span), concurrencyByEvents(groups); got != want {
			t.Fatalf("n=%d: concurrency %d, the event sort gives %d", n, got, want)
		}
	}
}
