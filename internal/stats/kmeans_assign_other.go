//go:build !amd64

package stats

import "unsafe"

// sqDist8 is the portable kernel on architectures without an assembly one.
func sqDist8(t, x *float64, d int, out *[lanes]float64) {
	sqDist8Go(unsafe.Slice(t, d*lanes), unsafe.Slice(x, d), out)
}
