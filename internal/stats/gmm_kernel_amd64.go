package stats

// mahal8 is mahal8Go in SSE2 assembly (gmm_kernel_amd64.s): two lanes per
// instruction, bit-identical results.
//
//go:noescape
func mahal8(m, c, xs *float64, d int, q *[lanes]float64)
