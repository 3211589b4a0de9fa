package eventlog

import (
	"bytes"
	"cmp"
	"math/bits"
	"slices"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// liveStage tracks one stage attempt's SQL metric values (Spark's
// LiveStageMetrics): per declared metric, one value per task index, zero
// until a task of that index reports one.
type liveStage struct {
	id, attempt int32
	numTasks    int32
	types       map[int64]model.SQLMetricType // the metrics tracked, as declared at job start
	done        []uint64                      // task indexes a successful attempt completed
	metrics     map[int64]*stageMetric        // the tracked metrics some task reported
	// slots index the declared metrics by id - lo when their ids are
	// dense (accumulator ids are numbered in order): one slice index per
	// task update instead of two map lookups. Built at the first update.
	lo      int64
	slots   []metricSlot
	indexed bool
}

// metricSlot is a declared metric in liveStage.slots.
type metricSlot struct {
	m        *stageMetric
	typ      model.SQLMetricType
	declared bool
}

// stageMetric is one tracked metric of a stage attempt: its values, and
// (not for sums) its largest value with the first task that reported it.
type stageMetric struct {
	typ     model.SQLMetricType
	seen    bool
	vals    indexValues
	hasMax  bool
	max     int64
	maxTask int64
}

// indexValues holds one metric's values by task index in pages of 64, so
// that memory follows the indexes reported rather than the task count the
// log declares (Spark allocates an array of numTasks longs per metric).
// Pages of the first nearPages*64 indexes are in a slice, the others (a
// hostile log's huge indexes) in a map.
type indexValues struct {
	near []*valuePage
	far  map[int32]*valuePage
	set  int64 // indexes written
}

const nearPages = 1 << 14

type valuePage struct {
	v   [64]int64
	set uint64
}

// page returns the page of index i, nil when there is none and !create.
func (iv *indexValues) page(i int32, create bool) *valuePage {
	k := i >> 6
	if k >= 0 && k < nearPages {
		if int(k) < len(iv.near) && iv.near[k] != nil {
			return iv.near[k]
		}
		if !create {
			return nil
		}
		if int(k) >= len(iv.near) {
			iv.near = append(iv.near, make([]*valuePage, int(k)+1-len(iv.near))...)
		}
		iv.near[k] = &valuePage{}
		return iv.near[k]
	}
	p := iv.far[k]
	if p == nil && create {
		if iv.far == nil {
			iv.far = map[int32]*valuePage{}
		}
		p = &valuePage{}
		iv.far[k] = p
	}
	return p
}

func (iv *indexValues) put(i int32, v int64) {
	p := iv.page(i, true)
	bit := uint64(1) << (uint(i) & 63)
	if p.set&bit == 0 {
		p.set |= bit
		iv.set++
	}
	p.v[i&63] = v
}

// each calls fn with every page and its number.
func (iv *indexValues) each(fn func(k int32, p *valuePage)) {
	for k, p := range iv.near {
		if p != nil {
			fn(int32(k), p)
		}
	}
	for k, p := range iv.far {
		fn(k, p)
	}
}

// appendTo appends the written values (in no particular order).
func (iv *indexValues) appendTo(dst []int64) []int64 {
	iv.each(func(_ int32, p *valuePage) {
		for m := p.set; m != 0; m &= m - 1 {
			dst = append(dst, p.v[bits.TrailingZeros64(m)])
		}
	})
	return dst
}

// completed reports whether a successful attempt of index i was recorded.
func (st *liveStage) completed(i int32) bool {
	w := int(i) >> 6
	return i >= 0 && w < len(st.done) && st.done[w]&(1<<(uint(i)&63)) != 0
}

func (st *liveStage) complete(i int32) {
	if i < 0 {
		return
	}
	w := int(i) >> 6
	for len(st.done) <= w {
		st.done = append(st.done, 0)
	}
	st.done[w] |= 1 << (uint(i) & 63)
}

// update stores a task end's updates of the tracked metrics
// (LiveStageMetrics.updateTaskMetrics). An update that is not a whole
// number, or a task index beyond the stage's task count, stops the rest of
// the task's updates as the exception does in Spark.
func (st *liveStage) update(t *taskEvent) {
	idx := t.index
	if st.completed(idx) {
		return
	}
	if ok := st.apply(t.accumRaw, t.ups, idx, t.id); ok && t.finish != 0 && !t.failed && !t.killed {
		st.complete(idx)
	}
}

// apply stores the tracked updates among a task's accumulable updates
// (read from its list raw when the line was parsed).
func (st *liveStage) apply(raw []byte, ups []accumUpdate, idx int32, task int64) bool {
	for _, u := range ups {
		m := st.track(u.id)
		if m == nil {
			continue
		}
		v, good := javaLong(raw[u.off:u.end])
		if !good {
			return false
		}
		m.seen = true // Spark creates the metric's array before it stores
		if idx < 0 || idx >= st.numTasks {
			return false // the array index is out of bounds
		}
		m.vals.put(idx, v)
		if m.typ != model.MetricSum {
			if !m.hasMax {
				m.hasMax, m.max, m.maxTask = true, v, task
			} else if v > m.max {
				m.max, m.maxTask = v, task
			}
		}
	}
	return true
}

// track returns the stage's state of metric id, nil when it is not
// tracked.
func (st *liveStage) track(id int64) *stageMetric {
	if !st.indexed {
		st.index()
	}
	if st.slots != nil {
		j := uint64(id - st.lo)
		if j >= uint64(len(st.slots)) {
			return nil
		}
		sl := &st.slots[j]
		if sl.m == nil && sl.declared {
			sl.m = st.create(id, sl.typ)
		}
		return sl.m
	}
	if m, ok := st.metrics[id]; ok {
		return m
	}
	var m *stageMetric
	if typ, ok := st.types[id]; ok {
		m = st.create(id, typ)
	} else {
		st.remember(id, nil) // not tracked: one lookup next time
	}
	return m
}

// index builds the stage's slots when the declared ids are dense, taking
// in the metrics a snapshot restored.
func (st *liveStage) index() {
	st.indexed = true
	if len(st.types) == 0 {
		return
	}
	lo, hi := int64(1<<63-1), int64(-1<<63)
	for id := range st.types {
		lo, hi = min(lo, id), max(hi, id)
	}
	if uint64(hi-lo) >= uint64(4*len(st.types)+256) {
		return
	}
	st.lo, st.slots = lo, make([]metricSlot, hi-lo+1)
	for id, typ := range st.types {
		st.slots[id-lo] = metricSlot{m: st.metrics[id], typ: typ, declared: true}
	}
}

func (st *liveStage) create(id int64, typ model.SQLMetricType) *stageMetric {
	m := &stageMetric{typ: typ}
	st.remember(id, m)
	return m
}

func (st *liveStage) remember(id int64, m *stageMetric) {
	if st.metrics == nil {
		st.metrics = map[int64]*stageMetric{}
	}
	st.metrics[id] = m
}

// javaLong reads an update as Spark does: the text of a JSON string or
// number, parsed as a Java long.
func javaLong(raw []byte) (int64, bool) {
	if len(raw) >= 2 && raw[0] == '"' {
		body := raw[1 : len(raw)-1]
		if v, ok := parseDecimal(body); ok {
			return v, true
		}
		if bytes.IndexByte(body, '\\') >= 0 { // escapes: the string's text
			return parseDecimal([]byte(accumText(raw)))
		}
		return 0, false
	}
	return parseDecimal(raw)
}

// aggregate computes the execution's metric values
// (SQLAppStatusListener.aggregateMetrics) once.
func (d *Decoder) aggregate(e *liveExec) {
	if e.done {
		return
	}
	e.done = true
	q := d.sq
	type maxAt struct {
		value, task    int64
		stage, attempt int32
	}
	// Per metric: the stages' values (read one metric at a time into a
	// reused buffer), the indexes that reported nothing, the largest task
	// value, and the driver's updates.
	type acc struct {
		parts  []*stageMetric
		zeros  int64
		max    *maxAt
		driver []int64
	}
	accs := map[int64]*acc{}
	get := func(id int64) *acc {
		a := accs[id]
		if a == nil {
			a = &acc{}
			accs[id] = a
		}
		return a
	}
	for _, sid := range model.ScalaSetOrder(e.stageSeq) {
		st := q.stages[sid]
		if st == nil {
			continue
		}
		for id, m := range st.metrics {
			if _, ok := e.types[id]; !ok || m == nil || !m.seen {
				continue
			}
			a := get(id)
			a.parts = append(a.parts, m)
			a.zeros += int64(max(st.numTasks, 0)) - m.vals.set
			if !m.hasMax {
				continue
			}
			if a.max == nil {
				a.max = &maxAt{m.max, m.maxTask, st.id, st.attempt}
			} else if m.max > a.max.value {
				*a.max = maxAt{m.max, m.maxTask, st.id, st.attempt}
			}
		}
	}
	for _, u := range e.driver {
		id, v := u[0], u[1]
		if _, ok := e.types[id]; !ok {
			continue
		}
		a := get(id)
		if len(a.parts) > 0 && a.max != nil && v > a.max.value {
			a.max = nil // the driver holds the largest value
		}
		a.driver = append(a.driver, v)
	}
	out := make([]model.SQLMetricValue, 0, len(accs))
	var buf []int64
	for id, a := range accs {
		buf = buf[:0]
		for _, m := range a.parts {
			buf = m.vals.appendTo(buf)
		}
		buf = append(buf, a.driver...)
		mv := summarize(e.types[id], buf, a.zeros)
		mv.AccumID = id
		if m := a.max; m != nil {
			mv.MaxTask, mv.MaxStage, mv.MaxAttempt, mv.MaxTaskID = true, m.stage, m.attempt, m.task
		}
		out = append(out, mv)
	}
	slices.SortFunc(out, func(a, b model.SQLMetricValue) int { return cmp.Compare(a.AccumID, b.AccumID) })
	e.x.Metrics = out
}

// summarize reduces one metric's values, vals plus zeros more of value 0,
// as SQLMetrics.stringValue reads them: sums add everything; averages keep
// values above 0, the other types values of 0 and more (-1 is Spark's "not
// set"); vals is reordered.
func summarize(typ model.SQLMetricType, vals []int64, zeros int64) model.SQLMetricValue {
	mv := model.SQLMetricValue{Type: typ}
	if typ == model.MetricSum || typ == model.MetricCount {
		for _, v := range vals {
			mv.Sum += v
		}
		mv.N = int64(len(vals)) + zeros
		return mv
	}
	if typ == model.MetricAverage {
		zeros = 0
	}
	valid := vals[:0]
	lo, hi := int64(1<<63-1), int64(-1<<63)
	for _, v := range vals {
		if v > 0 || v == 0 && typ != model.MetricAverage {
			valid = append(valid, v)
			mv.Sum += v
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	mv.N = int64(len(valid)) + zeros
	if mv.N == 0 {
		return mv
	}
	// As read from the values sorted, the zeros first.
	if zeros == 0 {
		mv.Min = lo
	}
	if len(valid) > 0 {
		mv.Max = hi
	}
	if k := mv.N / 2; k >= zeros {
		mv.Med = stats.Select(valid, int(k-zeros))
	}
	return mv
}
