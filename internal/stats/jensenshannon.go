package stats

import "math"

// JSDivergence is the Jensen–Shannon divergence of two histograms in nats:
// ½KL(p‖m) + ½KL(q‖m) with m = (p+q)/2. p and q are normalised to sum 1
// first (like scipy.spatial.distance.jensenshannon); empty bins contribute
// 0 (0·log 0 = 0). Histograms of different lengths, with a negative or
// NaN bin, or summing to 0 give NaN.
func JSDivergence(p, q []float64) float64 {
	if len(p) != len(q) {
		return math.NaN()
	}
	var sp, sq float64
	for i := range p {
		if !(p[i] >= 0) || !(q[i] >= 0) {
			return math.NaN()
		}
		sp += p[i]
		sq += q[i]
	}
	if sp == 0 || sq == 0 || math.IsInf(sp, 0) || math.IsInf(sq, 0) {
		return math.NaN()
	}
	var js float64
	for i := range p {
		a, b := p[i]/sp, q[i]/sq
		m := (a + b) / 2
		if a > 0 {
			js += a * math.Log(a/m)
		}
		if b > 0 {
			js += b * math.Log(b/m)
		}
	}
	return max(js/2, 0)
}

// JSDistance is the square root of JSDivergence, the metric Ganesha (Pan et
// al. 2009, §4.3) compares nodes' label histograms with. It equals
// scipy.spatial.distance.jensenshannon(p, q) (natural log).
func JSDistance(p, q []float64) float64 {
	return math.Sqrt(JSDivergence(p, q))
}
