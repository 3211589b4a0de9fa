package perfmodel

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// runningTasks is what the replay asks of its queue of running tasks.
type runningTasks interface {
	Len() int
	push(taskItem)
	pop() taskItem
	min() int64
}

// TestTaskQueueOrder drives the radix heap as the replay does (pops at the
// current minimum, pushes at or after it, many equal keys) and checks every
// pop against a sorted reference; it also pushes keys below the last pop
// (which the replay never does) and negative keys.
func TestTaskQueueOrder(t *testing.T) {
	checkQueueOrder(t, func() runningTasks { return &taskQueue{} }, nil)
}

// TestTaskWheelOrder is TestTaskQueueOrder for the timing wheel, whose keys
// span from the same instant to far beyond its window, and whose clock the
// replay advances between pops.
func TestTaskWheelOrder(t *testing.T) {
	checkQueueOrder(t, func() runningTasks { return newTaskWheel() }, func(q runningTasks, now int64) {
		q.(*taskWheel).advance(now)
	})
}

func checkQueueOrder(t *testing.T, newQueue func() runningTasks, advance func(runningTasks, int64)) {
	rng := rand.New(rand.NewPCG(21, 22))
	for round := range 200 {
		q := newQueue()
		var ref []int64
		now := int64(0)
		if round%5 == 4 {
			now = -rng.Int64N(1 << 40)
		}
		if advance != nil {
			advance(q, now)
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
				if advance != nil && rng.IntN(4) == 0 && (len(ref) == 0 || ref[0] > now) {
					now += rng.Int64N(1 + min(1<<20, slices.Min(append(ref, now+1<<20))-now))
					advance(q, now) // no task finishes before now
				}
				continue
			}
			k := now + rng.Int64N(1<<uint(rng.IntN(40)))
			if round%7 == 6 && rng.IntN(50) == 0 {
				k = now - rng.Int64N(1000) - 1 // below the last pop
			}
			q.push(taskItem{t: k, i: int32(step)})
			ref = append(ref, k)
		}
	}
}
