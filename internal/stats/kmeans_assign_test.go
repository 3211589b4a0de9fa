package stats

import (
	"math"
	"testing"
)

// TestSqDist8MatchesGo checks the platform distance kernel against the
// portable one and against sqDist, bit for bit.
func TestSqDist8MatchesGo(t *testing.T) {
	rng := newRand(9)
	for _, k := range []int{1, 7, 8, 13} {
		for _, d := range []int{1, 3, 14} {
			c := NewDense(k, d)
			for i := range c.X {
				c.X[i] = rng.NormFloat64()
			}
			cb := newCenterBlocks(c)
			x := make([]float64, d)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			wantBest, wantD := 0, math.Inf(1)
			for q := range k {
				if v := sqDist(x, c.Row(q)); v < wantD {
					wantBest, wantD = q, v
				}
			}
			if best, dist := cb.nearest(x); best != wantBest || dist != wantD {
				t.Errorf("k=%d d=%d: nearest (%d, %v), direct (%d, %v)", k, d, best, dist, wantBest, wantD)
			}
			for b := 0; b*lanes < k; b++ {
				var got, want [lanes]float64
				blk := cb.t[b*d*lanes : (b+1)*d*lanes]
				sqDist8(&blk[0], &x[0], d, &got)
				sqDist8Go(blk, x, &want)
				if got != want {
					t.Errorf("k=%d d=%d block %d: kernel %v, portable %v", k, d, b, got, want)
				}
			}
		}
	}
}
