package model

import "slices"

// ScalaSetOrder returns the distinct Int keys of seq (added in that order) in the order Scala 2.12's immutable Set and Map iterate them,
// which Spark's History Server (built with Scala 2.12) shows: up to four
// elements in insertion order (Set1 to Set4), more in the hash trie's
// order, which sorts by the 5-bit chunks of the improved hash from the
// lowest (HashSet.improve, HashTrieSet's index (hash >>> level) & 0x1f).
func ScalaSetOrder(seq []int32) []int32 {
	out := make([]int32, 0, len(seq))
	for _, v := range seq {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	if len(out) <= 4 {
		return out
	}
	slices.SortStableFunc(out, func(a, b int32) int {
		ha, hb := scalaImprove(a), scalaImprove(b)
		for level := 0; level < 32; level += 5 {
			ca, cb := (ha>>level)&31, (hb>>level)&31
			if ca != cb {
				return int(ca) - int(cb)
			}
		}
		return 0
	})
	return out
}

// scalaImprove is Scala 2.12's HashSet/HashMap improve applied to an Int's
// hash code (the Int itself), as an unsigned value for the chunking.
func scalaImprove(v int32) uint32 {
	h := uint32(v)
	h += ^(h << 9)
	h ^= h >> 14
	h += h << 4
	return h ^ (h >> 10)
}
