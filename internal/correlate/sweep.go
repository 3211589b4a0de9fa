package correlate

import (
	"cmp"
	"slices"
)

// window is an interval [start, end] (Unix ms) of something that ran on a
// host: a task attempt, or a stage's or job's active period there; id
// says which.
type window struct {
	start, end int64
	id         int32
}

// sortWindows orders windows by start, as sweep needs.
func sortWindows(ws []window) {
	slices.SortFunc(ws, func(a, b window) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.id, b.id)) })
}

// sweep calls fn(row, id) for each sample row and each window it belongs
// to: the row stamped t covers (t-iv, t], and with the clock-skew tolerance
// skew it belongs to a window when (t-iv-skew, t+skew] and [start, end)
// overlap for a positive time. times must be ascending and ws sorted by start
// (sortWindows). The sweep keeps the windows open at the current time in a
// list: each window enters once and leaves once, so the cost is
// O(rows + windows + assignments). active is scratch space, returned for
// reuse.
func sweep(times []int64, iv, skew int64, ws []window, active []window, fn func(row int, id int32)) []window {
	active = active[:0]
	next := 0
	for row, t := range times {
		lo, hi := t-iv-skew, t+skew
		for next < len(ws) && ws[next].start < hi {
			active = append(active, ws[next])
			next++
		}
		k := 0
		for _, w := range active {
			if w.end <= lo {
				continue // closed before this and every later row
			}
			active[k] = w
			k++
			fn(row, w.id)
		}
		active = active[:k]
	}
	return active
}

// member is the rule sweep applies, for one row and window; tests check
// the sweep against it.
func member(t, iv, skew int64, w window) bool {
	return t-iv-skew < w.end && w.start < t+skew
}
