// Package radix sorts integer keys with a least-significant-digit radix sort
// (Knuth, TAOCP vol. 3, §5.2.5, "sorting by distribution"), as many passes
// as the largest key needs: linear in the number of keys where a comparison
// sort is n log n. The analyses sort hundreds of thousands of task times
// per application with it.
package radix

import (
	"cmp"
	"math/bits"
	"slices"
)

// SmallSort is the length below which a comparison sort beats the radix
// sort's passes.
const SmallSort = 256

// wideFrom is the length from which 16-bit digits (65,536 counters to
// clear per pass) beat 8-bit ones (twice the passes).
const wideFrom = 16384

// Keyed is a sort key with the index of the element it belongs to.
type Keyed struct {
	Key uint64
	Idx int32
}

// Sort sorts p by Key, stably. buf must be at least as long as p; Sort
// returns the sorted keys (p or buf) and the other slice, free for reuse.
func Sort(p, buf []Keyed) (sorted, scratch []Keyed) {
	if len(p) < SmallSort {
		slices.SortStableFunc(p, func(a, b Keyed) int { return cmp.Compare(a.Key, b.Key) })
		return p, buf
	}
	buf = buf[:len(p)]
	var hi uint64
	for i := range p {
		hi |= p[i].Key
	}
	// Sort and Int64s each have their loop: with the key taken by a
	// function, one generic loop ran 2.5 times slower (BenchmarkSort).
	width, count := digits(len(p))
	mask := uint64(len(count) - 1)
	for shift := uint(0); shift < uint(bits.Len64(hi)); shift += width {
		clear(count)
		for i := range p {
			count[(p[i].Key>>shift)&mask]++
		}
		prefix(count)
		for i := range p {
			d := (p[i].Key >> shift) & mask
			buf[count[d]] = p[i]
			count[d]++
		}
		p, buf = buf, p
	}
	return p, buf
}

// Int64s sorts p ascending, negative values included. buf must be at least
// as long as p; it returns the sorted values (p or buf) and the other
// slice, free for reuse.
func Int64s(p, buf []int64) (sorted, scratch []int64) {
	if len(p) < SmallSort {
		slices.Sort(p)
		return p, buf
	}
	buf = buf[:len(p)]
	lo := slices.Min(p)
	var hi uint64
	for _, v := range p {
		hi |= uint64(v - lo)
	}
	width, count := digits(len(p))
	mask := uint64(len(count) - 1)
	for shift := uint(0); shift < uint(bits.Len64(hi)); shift += width {
		clear(count)
		for _, v := range p {
			count[(uint64(v-lo)>>shift)&mask]++
		}
		prefix(count)
		for _, v := range p {
			d := (uint64(v-lo) >> shift) & mask
			buf[count[d]] = v
			count[d]++
		}
		p, buf = buf, p
	}
	return p, buf
}

// digits chooses the digit width for n keys and returns its counters:
// 16-bit digits for long slices, 8-bit ones for shorter.
func digits(n int) (width uint, count []int) {
	if n >= wideFrom {
		return 16, make([]int, 1<<16)
	}
	return 8, make([]int, 1<<8)
}

// prefix turns digit counts into each digit's first output position.
func prefix(count []int) {
	sum := 0
	for d, c := range count {
		count[d] = sum
		sum += c
	}
}

// TimeKeys appends to dst, for i in [0, n), the key times(i) − min(times)
// with index i: times as keys that Sort orders, negative ones included.
func TimeKeys(dst []Keyed, times func(i int) int64, n int) []Keyed {
	lo := int64(0)
	for i := range n {
		if t := times(i); i == 0 || t < lo {
			lo = t
		}
	}
	for i := range n {
		dst = append(dst, Keyed{Key: uint64(times(i) - lo), Idx: int32(i)})
	}
	return dst
}
