package stats

// logProbs writes log(w_k·N(x | μ_k, Σ_k)) for every component into dst
// (length K), using scratch xs (length D): per block of eight components
// the squared Mahalanobis distances from mahal8.
func (c *gmmCache) logProbs(x, xs, dst []float64) {
	d, k := c.d, c.k
	xs = xs[:d]
	x = x[:d]
	ref := c.ref[:d]
	for j := range xs {
		xs[j] = x[j] - ref[j]
	}
	dst = dst[:k]
	packed := d * (d + 1) / 2 * lanes
	var q [lanes]float64
	for b := 0; b*lanes < k; b++ {
		m := c.m[b*packed : (b+1)*packed]
		cc := c.c[b*d*lanes : (b+1)*d*lanes]
		mahal8(&m[0], &cc[0], &xs[0], d, &q)
		base := b * lanes
		for l := 0; l < lanes && base+l < k; l++ {
			dst[base+l] = c.base[base+l] - 0.5*q[l]
		}
	}
}

// mahal8Go computes, for eight interleaved components (m and c laid out as
// in gmmCache, one block), q[l] = ‖L⁻¹(x−ref) − L⁻¹(μ−ref)‖² row by row
// with eight register accumulators. It is the reference for the assembly
// kernel and the kernel on other architectures.
func mahal8Go(m, c, xs []float64, q *[lanes]float64) {
	d := len(xs)
	var q0, q1, q2, q3, q4, q5, q6, q7 float64
	off := 0
	for j := range d {
		cj := c[j*lanes : j*lanes+lanes : j*lanes+lanes]
		a0, a1, a2, a3, a4, a5, a6, a7 := -cj[0], -cj[1], -cj[2], -cj[3], -cj[4], -cj[5], -cj[6], -cj[7]
		for _, xi := range xs[:j+1] {
			r := m[off : off+lanes : off+lanes]
			a0 += r[0] * xi
			a1 += r[1] * xi
			a2 += r[2] * xi
			a3 += r[3] * xi
			a4 += r[4] * xi
			a5 += r[5] * xi
			a6 += r[6] * xi
			a7 += r[7] * xi
			off += lanes
		}
		q0 += a0 * a0
		q1 += a1 * a1
		q2 += a2 * a2
		q3 += a3 * a3
		q4 += a4 * a4
		q5 += a5 * a5
		q6 += a6 * a6
		q7 += a7 * a7
	}
	*q = [lanes]float64{q0, q1, q2, q3, q4, q5, q6, q7}
}
