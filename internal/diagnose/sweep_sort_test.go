package diagnose

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortSweep checks the radix sort against a comparison sort: every
// event kept, times in order, for short and long slices and spans needing
// one to four passes (negative times included).
func TestSortSweep(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 10, 4095, 4096, 50_000} {
		for _, span := range []int64{1, 1 << 10, 1 << 20, 1 << 40, 1 << 62} {
			ev := make([]sweepEvent, n)
			for i := range ev {
				ev[i] = sweepEvent{t: rng.Int64N(span) - span/3, slots: i}
			}
			want := slices.Clone(ev)
			byTimeThenIndex := func(a, b sweepEvent) int {
				switch {
				case a.t < b.t:
					return -1
				case a.t > b.t:
					return 1
				}
				return a.slots - b.slots
			}
			slices.SortFunc(want, byTimeThenIndex)
			sortSweep(ev)
			if !slices.IsSortedFunc(ev, func(a, b sweepEvent) int {
				switch {
				case a.t < b.t:
					return -1
				case a.t > b.t:
					return 1
				}
				return 0
			}) {
				t.Fatalf("n=%d span=%d: not sorted by time", n, span)
			}
			slices.SortFunc(ev, byTimeThenIndex)
			if !slices.Equal(ev, want) {
				t.Fatalf("n=%d span=%d: events lost or reordered", n, span)
			}
		}
	}
}
