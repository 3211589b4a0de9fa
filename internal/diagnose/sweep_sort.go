package diagnose

import (
	"cmp"
	"math/bits"
	"slices"
)

// sortSweep sorts sweep events by time. The scheduling-gap sweep handles
// all events of one instant together, so the order among equal times does
// not matter. Long slices (four events per task attempt) are sorted with a
// least-significant-digit radix sort over 16-bit digits of the time since
// the earliest event, as many passes as the time span needs, instead of a
// comparison sort's n log n.
func sortSweep(ev []sweepEvent) {
	if len(ev) < 4096 {
		slices.SortFunc(ev, func(a, b sweepEvent) int { return cmp.Compare(a.t, b.t) })
		return
	}
	lo, hi := ev[0].t, ev[0].t
	for i := range ev {
		lo, hi = min(lo, ev[i].t), max(hi, ev[i].t)
	}
	span := uint64(hi - lo)
	passes := (bits.Len64(span) + 15) / 16
	src, dst := ev, make([]sweepEvent, len(ev))
	var count [1 << 16]int
	for pass := range passes {
		shift := uint(16 * pass)
		clear(count[:])
		for i := range src {
			count[(uint64(src[i].t-lo)>>shift)&0xffff]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for i := range src {
			d := (uint64(src[i].t-lo) >> shift) & 0xffff
			dst[count[d]] = src[i]
			count[d]++
		}
		src, dst = dst, src
	}
	if passes%2 == 1 {
		copy(ev, src)
	}
}
