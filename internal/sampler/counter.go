package sampler

import "math"

// counterDelta returns how much a monotonic kernel counter advanced from
// prev to cur, and false when the interval must be skipped.
//
// A counter that went backwards either wrapped or was reset (a driver
// reloaded, a device re-created, a fixture replaced). The two cannot be told
// apart for certain, so the rule is explicit: it wrapped when prev lay in
// the top quarter of its width (32 bits if prev fits in 32 bits, else 64)
// and cur lies in the bottom quarter; the delta is then taken modulo the
// width. Anything else that goes backwards is a reset and the interval is
// skipped for that counter, so no huge or negative rate is ever emitted.
func counterDelta(prev, cur uint64) (uint64, bool) {
	if cur >= prev {
		return cur - prev, true
	}
	if prev <= math.MaxUint32 {
		const quarter = 1 << 30
		if prev >= 3*quarter && cur < quarter {
			return (math.MaxUint32 - prev) + cur + 1, true
		}
		return 0, false
	}
	const quarter = 1 << 62
	if prev >= 3*quarter && cur < quarter {
		return (math.MaxUint64 - prev) + cur + 1, true
	}
	return 0, false
}
