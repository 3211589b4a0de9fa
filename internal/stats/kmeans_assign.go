package stats

import "math"

// centerBlocks holds k-means centers transposed in blocks of eight,
// t[(b·D + j)·8 + l] = center 8b+l, coordinate j, so that the distances
// from one sample to eight centers accumulate in registers together.
// Padding lanes are +Inf so they never win.
type centerBlocks struct {
	k, d int
	t    []float64
}

func newCenterBlocks(c *Dense) *centerBlocks {
	blocks := (c.N + lanes - 1) / lanes
	cb := &centerBlocks{k: c.N, d: c.D, t: make([]float64, blocks*c.D*lanes)}
	for i := range cb.t {
		cb.t[i] = math.Inf(1)
	}
	for q := range c.N {
		b, l := q/lanes, q%lanes
		for j, v := range c.Row(q) {
			cb.t[(b*c.D+j)*lanes+l] = v
		}
	}
	return cb
}

// nearest returns the closest center to x (the first on a tie, like
// numpy's argmin) and its squared distance, summed over coordinates in
// order exactly as sqDist does.
func (cb *centerBlocks) nearest(x []float64) (int, float64) {
	d := cb.d
	x = x[:d]
	best, bd := 0, math.Inf(1)
	var dist [lanes]float64
	for b := 0; b*lanes < cb.k; b++ {
		t := cb.t[b*d*lanes : (b+1)*d*lanes]
		sqDist8(&t[0], &x[0], d, &dist)
		// Padding lanes are +Inf and never win. A tree of comparisons
		// (ties to the lower index) compiles to conditional moves with a
		// short dependency chain; the winner is unpredictable, so branches
		// would mispredict.
		v, l := argmin2(dist[0], 0, dist[1], 1)
		v1, l1 := argmin2(dist[2], 2, dist[3], 3)
		v2, l2 := argmin2(dist[4], 4, dist[5], 5)
		v3, l3 := argmin2(dist[6], 6, dist[7], 7)
		v, l = argmin2(v, l, v1, l1)
		v2, l2 = argmin2(v2, l2, v3, l3)
		v, l = argmin2(v, l, v2, l2)
		bd, best = argmin2(bd, best, v, b*lanes+l)
	}
	return best, bd
}

// argmin2 returns the smaller value and its index, the first on a tie
// (inputs are never NaN: data and centers are finite).
func argmin2(va float64, ia int, vb float64, ib int) (float64, int) {
	if vb < va {
		ia = ib
	}
	return min(va, vb), ia
}

// sqDist8Go writes the squared distances from x to the eight centers of
// one block of t (laid out as in centerBlocks) with eight register
// accumulators. It is the reference for the assembly kernel and the kernel
// on other architectures.
func sqDist8Go(t, x []float64, out *[lanes]float64) {
	var a0, a1, a2, a3, a4, a5, a6, a7 float64
	for j, xj := range x {
		c := t[j*lanes : j*lanes+lanes : j*lanes+lanes]
		e0, e1, e2, e3 := xj-c[0], xj-c[1], xj-c[2], xj-c[3]
		e4, e5, e6, e7 := xj-c[4], xj-c[5], xj-c[6], xj-c[7]
		a0 += e0 * e0
		a1 += e1 * e1
		a2 += e2 * e2
		a3 += e3 * e3
		a4 += e4 * e4
		a5 += e5 * e5
		a6 += e6 * e6
		a7 += e7 * e7
	}
	*out = [lanes]float64{a0, a1, a2, a3, a4, a5, a6, a7}
}
