package dataflow

import (
	"math/rand/v2"
	"testing"
)

// TestFirstFit places random attempts, sorted by start, with the segment
// tree and with a scan of every slot's last end (the lowest free slot, or
// a new one) and expects the same slots.
func TestFirstFit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var f firstFit
	for round := range 50 {
		f.reset()
		var ends []int64
		start := int64(0)
		for i := range 2000 {
			start += rng.Int64N(50)
			end := start + rng.Int64N(int64(1+round*40))
			s := 0
			for s < len(ends) && ends[s] > start {
				s++
			}
			if s == len(ends) {
				ends = append(ends, end)
			} else {
				ends[s] = end
			}
			if got := f.place(start, end); got != s {
				t.Fatalf("round %d attempt %d: slot %d, the scan gives %d", round, i, got, s)
			}
		}
		if f.n != len(ends) {
			t.Fatalf("round %d: %d slots, the scan uses %d", round, f.n, len(ends))
		}
	}
}
