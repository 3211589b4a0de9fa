package sim

// Event kinds of the discrete-event loop.
const (
	evAppArrive = iota + 1
	evJobStart
	evStageSubmit
	evTaskEnd
	evOffer
	evTick
	evAllocate
	evSpeculate
	evHangEnd
)

// event is one scheduled happening. Events at the same time run in the
// order they were scheduled (seq), which keeps runs deterministic.
type event struct {
	at   int64
	seq  uint64
	kind uint8
	app  *appRun
	st   *stageRun
	task *taskRun
	gen  uint32 // a task's generation when scheduled; stale events are dropped
}

// eventQueue is a binary min-heap of events by (at, seq).
type eventQueue struct {
	h   []event
	seq uint64
}

func (q *eventQueue) less(i, j int) bool {
	a, b := &q.h[i], &q.h[j]
	if a.at != b.at {
		return a.at < b.at
	}
	return a.seq < b.seq
}

func (q *eventQueue) push(e event) {
	q.seq++
	e.seq = q.seq
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(i, p) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *eventQueue) pop() (event, bool) {
	if len(q.h) == 0 {
		return event{}, false
	}
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h[last] = event{}
	q.h = q.h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(q.h) {
			break
		}
		m := l
		if r := l + 1; r < len(q.h) && q.less(r, l) {
			m = r
		}
		if !q.less(m, i) {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	return top, true
}

func (q *eventQueue) len() int { return len(q.h) }
