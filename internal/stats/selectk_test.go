package stats

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSelect compares Select with a sort on random, sorted, reversed and
// duplicate-heavy inputs, and checks the partition it leaves.
func TestSelect(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 3, 16, 17, 100, 1001} {
		for kind := 0; kind < 4; kind++ {
			v := make([]int64, n)
			for i := range v {
				switch kind {
				case 0:
					v[i] = r.Int64N(1000)
				case 1:
					v[i] = int64(i)
				case 2:
					v[i] = int64(n - i)
				case 3:
					v[i] = r.Int64N(3)
				}
			}
			sorted := slices.Sorted(slices.Values(v))
			for _, k := range []int{0, n / 3, n / 2, n - 1} {
				w := slices.Clone(v)
				if got := Select(w, k); got != sorted[k] || w[k] != got {
					t.Fatalf("n=%d kind=%d k=%d: got %d (w[k]=%d), want %d", n, kind, k, got, w[k], sorted[k])
				}
				if slices.Max(w[:k+1]) != w[k] || slices.Min(w[k:]) != w[k] {
					t.Fatalf("n=%d kind=%d k=%d: not partitioned around v[k]", n, kind, k)
				}
			}
		}
	}
}
