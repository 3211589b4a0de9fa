package dataflow

import (
	"cmp"
	"math/bits"
	"slices"
)

// smallSort is the length below which a comparison sort beats clearing
// the radix sort's 65,536 counters.
const smallSort = 4096

// keyed is a sort key with the index it belongs to.
type keyed struct {
	key uint64
	idx int32
}

// radixSort sorts p by key, stably, with a least-significant-digit radix
// sort over 16-bit digits, only as many passes as the largest key needs.
// buf must be as long as p; it returns the sorted data and the other slice,
// free for reuse.
func radixSort(p, buf []keyed) (sorted, scratch []keyed) {
	if len(p) < smallSort {
		slices.SortStableFunc(p, func(a, b keyed) int { return cmp.Compare(a.key, b.key) })
		return p, buf
	}
	var hi uint64
	for i := range p {
		hi |= p[i].key
	}
	passes := (bits.Len64(hi) + 15) / 16
	var count [1 << 16]int
	for pass := range passes {
		shift := uint(16 * pass)
		clear(count[:])
		for i := range p {
			count[(p[i].key>>shift)&0xffff]++
		}
		sum := 0
		for d, c := range count {
			count[d] = sum
			sum += c
		}
		for i := range p {
			d := (p[i].key >> shift) & 0xffff
			buf[count[d]] = p[i]
			count[d]++
		}
		p, buf = buf, p
	}
	return p, buf
}

// timeKeys turns times into radix keys relative to their minimum.
func timeKeys(dst []keyed, times func(i int) int64, n int) []keyed {
	dst = dst[:0]
	lo := int64(0)
	for i := range n {
		if t := times(i); i == 0 || t < lo {
			lo = t
		}
	}
	for i := range n {
		dst = append(dst, keyed{key: uint64(times(i) - lo), idx: int32(i)})
	}
	return dst
}
