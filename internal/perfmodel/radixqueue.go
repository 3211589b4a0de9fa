package perfmodel

import "math/bits"

// taskQueue holds running tasks by finish time for the replay's timing
// wheel (taskWheel), those finishing beyond its window: a radix heap
// (Ahuja, Mehlhorn, Orlin and Tarjan), a monotone priority queue. The
// replay's clock never goes back and every task finishes at or after the
// instant it launched, so keys never fall below the last one popped. A task
// sits in the bucket of the highest bit in which its finish time differs
// from that last key; popping empties the lowest bucket, redistributing
// the first non-empty one when it must, so a task moves a few times at most
// instead of sifting through a heap on every pop. Tasks finishing at the
// same instant pop in any order: the replay handles everything due at an
// instant before it launches more, and nothing it schedules depends on that
// order.
type taskQueue struct {
	last    int64 // key of the last pop: every key is >= last
	n       int
	buckets [65][]taskItem // buckets[k]: keys whose highest bit differing from last is bit k-1 (0: equal)
	full    uint64         // bit k-1 set: buckets[k] is not empty (k >= 1)
	minT    int64          // the least key, when minOK
	minOK   bool
}

// Len is the number of tasks queued.
func (q *taskQueue) Len() int { return q.n }

func (q *taskQueue) bucket(t int64) int { return bits.Len64(uint64(t ^ q.last)) }

// push queues x. A key below the last popped (which the replay never
// produces) is still handled correctly, by rebuilding the buckets.
func (q *taskQueue) push(x taskItem) {
	if x.t < q.last {
		q.rebase(x.t)
	}
	q.put(x)
	q.n++
	if q.minOK && x.t < q.minT {
		q.minT = x.t
	}
}

// put adds x to its bucket.
func (q *taskQueue) put(x taskItem) {
	k := q.bucket(x.t)
	q.buckets[k] = append(q.buckets[k], x)
	if k > 0 {
		q.full |= 1 << (k - 1)
	}
}

// rebase lowers last to t and re-buckets every task.
func (q *taskQueue) rebase(t int64) {
	var all []taskItem
	for k := range q.buckets {
		all = append(all, q.buckets[k]...)
		q.buckets[k] = q.buckets[k][:0]
	}
	q.last, q.full = t, 0
	for _, x := range all {
		q.put(x)
	}
}

// min is the least key; the queue must not be empty.
func (q *taskQueue) min() int64 {
	if q.minOK {
		return q.minT
	}
	if len(q.buckets[0]) > 0 {
		q.minT = q.last
	} else {
		b := q.buckets[q.firstBucket()]
		m := b[0].t
		for _, x := range b[1:] {
			m = min(m, x.t)
		}
		q.minT = m
	}
	q.minOK = true
	return q.minT
}

// firstBucket is the lowest non-empty bucket; the queue must not be empty.
func (q *taskQueue) firstBucket() int {
	if len(q.buckets[0]) > 0 {
		return 0
	}
	return 1 + bits.TrailingZeros64(q.full)
}

// pop removes and returns a task with the least key; the queue must not be
// empty.
func (q *taskQueue) pop() taskItem {
	if len(q.buckets[0]) == 0 {
		m := q.min()
		k := q.firstBucket()
		b := q.buckets[k]
		q.buckets[k] = b[:0]
		q.full &^= 1 << (k - 1)
		q.last = m
		for _, x := range b {
			q.put(x) // into a bucket below k: x agrees with m above bit k-1
		}
	}
	b := q.buckets[0]
	x := b[len(b)-1]
	q.buckets[0] = b[:len(b)-1]
	q.n--
	q.minT, q.minOK = q.last, len(q.buckets[0]) > 0
	return x
}
