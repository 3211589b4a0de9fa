package stats

// sqDist8 is sqDist8Go in SSE2 assembly (kmeans_assign_amd64.s), with
// bit-identical results.
//
//go:noescape
func sqDist8(t, x *float64, d int, out *[lanes]float64)
