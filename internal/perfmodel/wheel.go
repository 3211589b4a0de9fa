package perfmodel

import (
	"math/bits"
	"sync"
)

// wheelBits sets the window of the timing wheel: 2^16 ms (65 s) ahead of
// the replay's clock, which covers the durations of nearly every task.
const (
	wheelBits = 16
	wheelSize = 1 << wheelBits
	wheelMask = wheelSize - 1
)

// taskWheel holds the running tasks of a replay by finish time: a timing
// wheel (Varghese and Lauck, "Hashed and hierarchical timing wheels", SOSP
// 1987, §5, scheme 4) with one slot per millisecond of the next wheelSize
// ms, and a two-level bitmap of the slots that hold tasks to find the next
// one. A task is linked into its slot once and unlinked once, where a heap
// sifts it and a radix heap moves it from bucket to bucket several times.
// Tasks finishing beyond the window (or, which the replay never produces,
// before the last pop) wait in a radix heap, later. Tasks finishing at the
// same instant pop in any order, as the replay allows.
type taskWheel struct {
	now   int64   // the last pop: wheel tasks finish in [now, now+wheelSize)
	head  []int32 // per slot: 1 + the index in items of its first task, 0 when empty
	next  []int32 // per task in items: 1 + the next task of its slot
	items []taskItem
	free  []int32  // indices of unused items
	full  []uint64 // bit s: slot s holds a task
	words []uint64 // bit w: full[w] is not 0
	n     int      // tasks in the wheel
	later taskQueue
	minT  int64 // the least key of all, when minOK
	minOK bool
}

// wheels keeps the wheels' slot arrays between replays: a wheel is empty
// again when its replay ends.
var wheels = sync.Pool{New: func() any {
	return &taskWheel{head: make([]int32, wheelSize), full: make([]uint64, wheelSize/64), words: make([]uint64, wheelSize/64/64)}
}}

// newTaskWheel returns an empty wheel whose clock starts at 0; release it
// once empty.
func newTaskWheel() *taskWheel {
	w := wheels.Get().(*taskWheel)
	w.now, w.n, w.minOK = 0, 0, false
	w.items, w.next, w.free = w.items[:0], w.next[:0], w.free[:0]
	w.later = taskQueue{}
	return w
}

// release returns the wheel's arrays for reuse if it is empty.
func (w *taskWheel) release() {
	if w.n == 0 {
		wheels.Put(w)
	}
}

// Len is the number of tasks queued.
func (w *taskWheel) Len() int { return w.n + w.later.Len() }

// push queues x.
func (w *taskWheel) push(x taskItem) {
	if w.minOK && x.t < w.minT {
		w.minT = x.t
	}
	if x.t < w.now || uint64(x.t-w.now) >= wheelSize {
		w.later.push(x)
		return
	}
	var i int32
	if k := len(w.free); k > 0 {
		i = w.free[k-1]
		w.free = w.free[:k-1]
		w.items[i] = x
	} else {
		i = int32(len(w.items))
		w.items = append(w.items, x)
		w.next = append(w.next, 0)
	}
	s := int(x.t & wheelMask)
	w.next[i] = w.head[s]
	w.head[s] = i + 1
	w.full[s>>6] |= 1 << (s & 63)
	w.words[s>>12] |= 1 << ((s >> 6) & 63)
	w.n++
}

// advance moves the wheel's clock to now, which no queued task finishes
// before: the replay calls it before it launches tasks at now, so that a
// stretch without task ends (a driver gap, a stage's start delay) does not
// leave the window behind.
func (w *taskWheel) advance(now int64) {
	if now > w.now {
		w.now = now
	}
}

// min is the least finish time; the queue must not be empty.
func (w *taskWheel) min() int64 {
	if w.minOK {
		return w.minT
	}
	m := int64(0)
	if w.n > 0 {
		from := int(w.now & wheelMask)
		s := w.nextFull(from)
		if s < 0 {
			s = w.nextFull(0)
		}
		m = w.now + int64((s-from)&wheelMask)
		if w.later.Len() > 0 {
			m = min(m, w.later.min())
		}
	} else {
		m = w.later.min()
	}
	w.minT, w.minOK = m, true
	return m
}

// nextFull is the first slot at or after from holding a task, -1 if none.
func (w *taskWheel) nextFull(from int) int {
	wi := from >> 6
	if b := w.full[wi] & (^uint64(0) << (from & 63)); b != 0 {
		return wi<<6 | bits.TrailingZeros64(b)
	}
	wi++
	for g := wi >> 6; g < len(w.words); g++ {
		b := w.words[g]
		if g == wi>>6 {
			b &= ^uint64(0) << (wi & 63)
		}
		if b != 0 {
			wi = g<<6 | bits.TrailingZeros64(b)
			return wi<<6 | bits.TrailingZeros64(w.full[wi])
		}
	}
	return -1
}

// pop removes and returns a task with the least finish time; the queue must
// not be empty.
func (w *taskWheel) pop() taskItem {
	m := w.min()
	var x taskItem
	if s := int(m & wheelMask); w.n > 0 && m >= w.now && uint64(m-w.now) < wheelSize && w.head[s] > 0 && w.items[w.head[s]-1].t == m {
		i := w.head[s] - 1
		x = w.items[i]
		w.head[s] = w.next[i]
		w.free = append(w.free, i)
		w.n--
		if w.head[s] == 0 {
			if w.full[s>>6] &^= 1 << (s & 63); w.full[s>>6] == 0 {
				w.words[s>>12] &^= 1 << ((s >> 6) & 63)
			}
			w.minOK = false
		}
	} else {
		x = w.later.pop()
		w.minOK = false
	}
	w.advance(m) // not back: a task pushed below the clock may pop later
	return x
}
