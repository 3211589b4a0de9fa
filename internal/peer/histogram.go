package peer

import "math"

// histogram is one node's decayed histogram of labels over its last
// window samples (Ganesha §4.3): a sample a steps old weighs decay^a, and
// samples older than the window weigh nothing. Labels are 0..bins-1 (the
// profile's components, then "unknown").
type histogram struct {
	ring  []uint8 // the window's labels, oldest at pos once full
	pos   int
	n     int // samples in the window
	h     []float64
	decay float64
	tail  float64 // decay^window, the weight the oldest sample reaches as it leaves
}

func newHistogram(bins, window int, decay float64) histogram {
	return histogram{ring: make([]uint8, window), h: make([]float64, bins), decay: decay,
		tail: math.Pow(decay, float64(window))}
}

// add records label as the newest sample.
func (h *histogram) add(label int) {
	for i := range h.h {
		h.h[i] *= h.decay
	}
	if h.n == len(h.ring) {
		old := h.ring[h.pos]
		h.h[old] = max(0, h.h[old]-h.tail)
	} else {
		h.n++
	}
	h.h[label]++
	h.ring[h.pos] = uint8(label)
	h.pos++
	if h.pos == len(h.ring) {
		h.pos = 0
		h.recompute() // bound the drift of the incremental update
	}
}

// recompute rebuilds the weights from the ring exactly.
func (h *histogram) recompute() {
	clear(h.h)
	w := 1.0
	for a := 0; a < h.n; a++ {
		i := h.pos - 1 - a
		if i < 0 {
			i += len(h.ring)
		}
		h.h[h.ring[i]] += w
		w *= h.decay
	}
}

// normalize writes the histogram as a probability distribution into p and
// returns its Shannon entropy in nats.
func (h *histogram) normalize(p []float64) float64 {
	s := 0.0
	for _, v := range h.h {
		s += v
	}
	e := 0.0
	for i, v := range h.h {
		q := 0.0
		if s > 0 {
			q = v / s
		}
		p[i] = q
		if q > 0 {
			e -= q * math.Log(q)
		}
	}
	return e
}

// jsDistance is the square root of the Jensen–Shannon divergence (in nats,
// as stats.JSDistance and scipy, so within [0, √ln 2 ≈ 0.833]) between distributions p and q of entropies hp and hq:
// JSD = H((p+q)/2) − (H(p)+H(q))/2 (Lin, 1991, eq. 4.1), the distance
// Ganesha compares histograms with (§4.3). With the entropies computed once
// per node, a pair costs one logarithm per non-empty bin.
func jsDistance(p, q []float64, hp, hq float64) float64 {
	hm := 0.0
	for i, a := range p {
		m := 0.5 * (a + q[i])
		if m > 0 {
			hm -= m * math.Log(m)
		}
	}
	d := hm - 0.5*(hp+hq)
	if d <= 0 {
		return 0
	}
	return math.Sqrt(min(d, math.Ln2))
}
