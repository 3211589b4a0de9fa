package dataflow

import (
	"math/rand/v2"
	"testing"
)

// TestRadixSortStable compares the radix sort with the expected stable
// order on keys spanning several 16-bit digits, with many ties.
func TestRadixSortStable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 10, smallSort + 1, 50_000} {
		p := make([]keyed, n)
		for i := range p {
			p[i] = keyed{key: rng.Uint64N(1<<40) &^ 0xfff0, idx: int32(i)} // ties in the low digits
		}
		got, _ := radixSort(p, make([]keyed, n))
		for i := 1; i < len(got); i++ {
			a, b := got[i-1], got[i]
			if a.key > b.key || a.key == b.key && a.idx > b.idx {
				t.Fatalf("n=%d: %+v before %+v", n, a, b)
			}
		}
		if len(got) != n {
			t.Fatalf("n=%d: got %d", n, len(got))
		}
	}
}
