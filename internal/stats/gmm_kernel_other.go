//go:build !amd64

package stats

import "unsafe"

// mahal8 is the portable kernel on architectures without an assembly one.
func mahal8(m, c, xs *float64, d int, q *[lanes]float64) {
	packed := d * (d + 1) / 2 * lanes
	mahal8Go(unsafe.Slice(m, packed), unsafe.Slice(c, d*lanes), unsafe.Slice(xs, d), q)
}
