package peer

import "math"

// meanWindow is one node's decayed mean of its vectors over its last
// window samples, weighted as histogram weighs labels (Ganesha §4.3): a
// sample a steps old weighs decay^a, and samples older than the window
// weigh nothing. The window's vectors are kept as float32 (half the memory
// per node; the means are of normalised values, so 7 digits are plenty).
type meanWindow struct {
	ring  []float32 // the window's vectors (d each), oldest at pos once full
	d     int
	pos   int
	n     int // samples in the window
	sum   []float64
	w     float64 // the samples' total weight
	decay float64
	tail  float64 // decay^window, the weight the oldest sample reaches as it leaves
}

func newMeanWindow(d, window int, decay float64) meanWindow {
	return meanWindow{ring: make([]float32, d*window), d: d, sum: make([]float64, d), decay: decay,
		tail: math.Pow(decay, float64(window))}
}

// add records z as the newest sample.
func (m *meanWindow) add(z []float64) {
	window := len(m.ring) / m.d
	old := m.ring[m.pos*m.d : (m.pos+1)*m.d]
	full := m.n == window
	for j, v := range z {
		m.sum[j] *= m.decay
		if full {
			m.sum[j] -= m.tail * float64(old[j])
		}
		old[j] = float32(v)
		m.sum[j] += float64(old[j])
	}
	m.w *= m.decay
	if full {
		m.w -= m.tail
	} else {
		m.n++
	}
	m.w++
	m.pos++
	if m.pos == window {
		m.pos = 0
		m.recompute() // bound the drift of the incremental update
	}
}

// recompute rebuilds the sums from the ring exactly.
func (m *meanWindow) recompute() {
	window := len(m.ring) / m.d
	clear(m.sum)
	m.w = 0
	w := 1.0
	for a := 0; a < m.n; a++ {
		i := m.pos - 1 - a
		if i < 0 {
			i += window
		}
		for j, v := range m.ring[i*m.d : (i+1)*m.d] {
			m.sum[j] += w * float64(v)
		}
		m.w += w
		w *= m.decay
	}
}

// mean returns metric j's decayed mean over the window (0 when empty).
func (m *meanWindow) mean(j int) float64 {
	if m.w <= 0 {
		return 0
	}
	return m.sum[j] / m.w
}
