package stats

import (
	"cmp"
	"slices"
)

// Select reorders v so that v[k] is the value a sort would put there, with
// no greater value before it and no smaller one after, and returns v[k]
// (0-based). It is a three-way quickselect with a median-of-three pivot,
// linear on average and safe with many equal values. v must not hold NaN;
// k must be in [0, len(v)).
func Select[T cmp.Ordered](v []T, k int) T {
	lo, hi := 0, len(v)
	for hi-lo > 16 {
		a, b, c := v[lo], v[lo+(hi-lo)/2], v[hi-1]
		p := max(min(a, b), min(max(a, b), c))
		// [lo,lt) < p, [lt,i) == p, [gt,hi) > p.
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch x := v[i]; {
			case x < p:
				v[lt], v[i] = x, v[lt]
				lt++
				i++
			case x > p:
				gt--
				v[i], v[gt] = v[gt], x
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return p
		}
	}
	slices.Sort(v[lo:hi])
	return v[k]
}
