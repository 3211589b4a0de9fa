package stats

import "math"

// Elbow picks the elbow of a distortion curve: distortions[i] is the
// k-means distortion (inertia) with K = i+1 clusters. The rule is the
// "kneedle" one (Satopää et al., ICDCS-W 2011): both axes are scaled to
// [0, 1] and the elbow is the point farthest below the straight line
// from the first to the last point. The result is the index (so K is the
// result + 1); fewer than three points, or a curve that never falls below
// its chord, give index 0; an empty slice gives -1.
func Elbow(distortions []float64) int {
	n := len(distortions)
	if n == 0 {
		return -1
	}
	if n < 3 {
		return 0
	}
	lo, hi := distortions[0], distortions[0]
	for _, v := range distortions {
		lo = math.Min(lo, v)
		hi = math.Max(hi, v)
	}
	span := hi - lo
	if span == 0 || math.IsNaN(span) || math.IsInf(span, 0) {
		return 0
	}
	first := (distortions[0] - lo) / span
	last := (distortions[n-1] - lo) / span
	best, bestGap := 0, 0.0
	for i, v := range distortions {
		t := float64(i) / float64(n-1)
		chord := first + t*(last-first)
		if gap := chord - (v-lo)/span; gap > bestGap {
			best, bestGap = i, gap
		}
	}
	return best
}
