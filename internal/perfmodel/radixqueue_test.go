package perfmodel

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestTaskQueueOrder drives the radix heap as the replay does (pops at the
// current minimum, pushes at or after it, many equal keys) and checks every
// pop against a sorted reference; it also pushes keys below the last pop
// (which the replay never does) and negative keys.
func TestTaskQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for round := range 200 {
		var q taskQueue
		var ref []int64
		now := int64(0)
		if round%5 == 4 {
			now = -rng.Int64N(1 << 40)
		}
		for step := range 2000 {
			if q.Len() != len(ref) {
				t.Fatalf("round %d step %d: %d queued, want %d", round, step, q.Len(), len(ref))
			}
			if len(ref) > 0 && rng.IntN(3) == 0 {
				slices.Sort(ref)
				if m := q.min(); m != ref[0] {
					t.Fatalf("round %d step %d: min %d, want %d", round, step, m, ref[0])
				}
				x := q.pop()
				if x.t != ref[0] {
					t.Fatalf("round %d step %d: popped %d, want %d", round, step, x.t, ref[0])
				}
				now, ref = x.t, ref[1:]
				continue
			}
			k := now + rng.Int64N(1<<uint(rng.IntN(40)))
			if round%7 == 6 && rng.IntN(50) == 0 {
				k = now - rng.Int64N(1000) - 1 // below the last pop
			}
			q.push(taskItem{t: k, i: step})
			ref = append(ref, k)
		}
	}
}
