package stats

import "math"

// Cosine is the cosine similarity a·b / (|a| |b|), as scikit-learn's
// cosine_similarity computes it. When either vector is all zeros the
// similarity is 0 (scikit-learn's convention); vectors of different
// lengths give NaN.
func Cosine(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.NaN()
	}
	var dot, na, nb float64
	for i, x := range a {
		y := b[i]
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}
