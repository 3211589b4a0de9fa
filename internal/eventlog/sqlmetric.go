package eventlog

import (
	"bytes"
	"cmp"
	"math/bits"
	"slices"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
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
type indexValues struct {
	pages map[int32]*valuePage
	set   int64 // indexes written
}

type valuePage struct {
	v   [64]int64
	set uint64
}

func (iv *indexValues) put(i int32, v int64) {
	p := iv.pages[i>>6]
	if p == nil {
		if iv.pages == nil {
			iv.pages = map[int32]*valuePage{}
		}
		p = &valuePage{}
		iv.pages[i>>6] = p
	}
	bit := uint64(1) << (uint(i) & 63)
	if p.set&bit == 0 {
		p.set |= bit
		iv.set++
	}
	p.v[i&63] = v
}

// appendTo appends the written values (in no particular order).
func (iv *indexValues) appendTo(dst []int64) []int64 {
	for _, p := range iv.pages {
		for m := p.set; m != 0; m &= m - 1 {
			dst = append(dst, p.v[bits.TrailingZeros64(m)])
		}
	}
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
	if ok := st.apply(t.accumRaw, idx, t.id); ok && t.finish != 0 && !t.failed && !t.killed {
		st.complete(idx)
	}
}

// apply walks an accumulable list and stores the tracked updates. The
// list was validated when the task's line was read (SkipRaw), so it is
// walked here without validating again (scanAccums).
func (st *liveStage) apply(raw []byte, idx int32, task int64) bool {
	ok := true
	scanAccums(raw, func(id int64, up []byte) bool {
		m := st.track(id)
		if m == nil {
			return true
		}
		v, good := javaLong(up)
		if !good {
			ok = false
			return false
		}
		m.seen = true // Spark creates the metric's array before it stores
		if idx < 0 || idx >= st.numTasks {
			ok = false // the array index is out of bounds
			return false
		}
		m.vals.put(idx, v)
		if m.typ != model.MetricSum {
			if !m.hasMax {
				m.hasMax, m.max, m.maxTask = true, v, task
			} else if v > m.max {
				m.max, m.maxTask = v, task
			}
		}
		return true
	})
	return ok
}

// track returns the stage's state of metric id, nil when it is not
// tracked; untracked ids are remembered too, so that the common case is
// one map lookup.
func (st *liveStage) track(id int64) *stageMetric {
	if m, ok := st.metrics[id]; ok {
		return m
	}
	if st.metrics == nil {
		st.metrics = map[int64]*stageMetric{}
	}
	var m *stageMetric
	if typ, ok := st.types[id]; ok {
		m = &stageMetric{typ: typ}
	}
	st.metrics[id] = m
	return m
}

// scanAccums calls fn with the ID and raw Update of every entry of a
// validated accumulable list that has both, in order, until fn returns
// false. It trusts the JSON to be well formed, so it walks without the
// checks the validating scanner makes.
func scanAccums(b []byte, fn func(id int64, update []byte) bool) {
	i := skipWS(b, 0)
	if i >= len(b) || b[i] != '[' {
		return
	}
	i++
	for {
		i = skipWS(b, i)
		if i >= len(b) || b[i] == ']' {
			return
		}
		if b[i] == ',' {
			i++
			continue
		}
		if b[i] != '{' {
			i = skipTrusted(b, i)
			continue
		}
		var id int64
		var up []byte
		hasID := false
		// Spark writes every entry as {"ID":n,"Name":"...","Update":...
		// and the rest: read those directly, then skip to the entry's end.
		if e, ok := sparkEntry(b, i); ok {
			id, up, hasID, i = e.id, e.update, true, e.end
			// The rest is usually `,"Value":v` and one of Spark's fixed
			// tails: step over it without looking at each key.
			if end, ok := sparkTail(b, i); ok {
				i = end
				if !fn(id, up) {
					return
				}
				continue
			}
		} else {
			i++
		}
		for i < len(b) {
			i = skipWS(b, i)
			if i >= len(b) {
				break
			}
			if b[i] == '}' {
				i++
				break
			}
			if b[i] == ',' {
				i = skipWS(b, i+1)
			}
			ke := stringEnd(b, i)
			key := b[min(i+1, ke):max(ke-1, i+1)]
			i = skipWS(b, skipWS(b, ke)+1) // past the colon
			ve := skipTrusted(b, i)
			switch string(key) {
			case "ID":
				id, hasID = parseID(b[i:ve])
			case "Update":
				up = b[i:ve]
			}
			i = ve
		}
		if hasID && up != nil && !fn(id, up) {
			return
		}
	}
}

// accumEntry is the start of an accumulable entry in Spark's key order.
type accumEntry struct {
	id     int64
	update []byte
	end    int // where the keys after Update start
}

// sparkEntry reads `{"ID":n,"Name":"...","Update":v` at b[i].
func sparkEntry(b []byte, i int) (accumEntry, bool) {
	const idKey, nameKey, updateKey = `{"ID":`, `,"Name":`, `,"Update":`
	var e accumEntry
	if !hasPrefixAt(b, i, idKey) {
		return e, false
	}
	j := i + len(idKey)
	k := j
	for k < len(b) && b[k] >= '0' && b[k] <= '9' {
		k++
	}
	id, ok := parseDecimal(b[j:k])
	if !ok || !hasPrefixAt(b, k, nameKey) || k+len(nameKey) >= len(b) || b[k+len(nameKey)] != '"' {
		return e, false
	}
	k = stringEnd(b, k+len(nameKey))
	if !hasPrefixAt(b, k, updateKey) {
		return e, false
	}
	j = k + len(updateKey)
	k = skipTrusted(b, j)
	return accumEntry{id: id, update: b[j:k], end: k}, true
}

// sparkTails are how Spark ends an accumulable entry after its value.
var sparkTails = [...]string{
	`,"Internal":true,"Count Failed Values":true,"Metadata":"sql"}`,
	`,"Internal":true,"Count Failed Values":true}`,
	`,"Internal":false,"Count Failed Values":false}`,
}

// sparkTail reads `,"Value":v` and a known tail at b[i] and returns the
// index after the entry.
func sparkTail(b []byte, i int) (int, bool) {
	const valueKey = `,"Value":`
	if !hasPrefixAt(b, i, valueKey) {
		return 0, false
	}
	i = skipTrusted(b, i+len(valueKey))
	for _, t := range sparkTails {
		if hasPrefixAt(b, i, t) {
			return i + len(t), true
		}
	}
	return 0, false
}

func hasPrefixAt(b []byte, i int, p string) bool {
	return i+len(p) <= len(b) && string(b[i:i+len(p)]) == p
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the string that opens at b[i].
func stringEnd(b []byte, i int) int {
	if e := jsonscan.StringEnd(b, i); e >= 0 {
		return e
	}
	return len(b)
}

// skipTrusted returns the index after the well-formed value at b[i].
func skipTrusted(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = stringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] > ' ' {
		i++
	}
	return i
}

// parseID reads an accumulator id, a number or a quoted number.
func parseID(b []byte) (int64, bool) {
	if len(b) >= 2 && b[0] == '"' {
		b = b[1 : len(b)-1]
	}
	return parseDecimal(b)
}

// parseDecimal parses an optionally signed decimal long as Java's
// Long.parseLong does, without allocating.
func parseDecimal(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg, b = b[0] == '-', b[1:]
	}
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	switch {
	case neg && v <= 1<<63:
		return -int64(v), true
	case !neg && v < 1<<63:
		return int64(v), true
	}
	return 0, false
}

// javaLong reads an update as Spark does: the text of a JSON string or
// number, parsed as a Java long.
func javaLong(raw []byte) (int64, bool) {
	if len(raw) >= 2 && raw[0] == '"' {
		body := raw[1 : len(raw)-1]
		if bytes.IndexByte(body, '\\') >= 0 {
			return parseDecimal([]byte(accumText(raw)))
		}
		return parseDecimal(body)
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
	for _, v := range vals {
		if v > 0 || v == 0 && typ != model.MetricAverage {
			valid = append(valid, v)
		}
	}
	mv.N = int64(len(valid)) + zeros
	if mv.N == 0 {
		return mv
	}
	slices.Sort(valid)
	for _, v := range valid {
		mv.Sum += v
	}
	// The zeros sort first.
	at := func(k int64) int64 {
		if k < zeros {
			return 0
		}
		return valid[k-zeros]
	}
	mv.Min, mv.Med, mv.Max = at(0), at(mv.N/2), at(mv.N-1)
	return mv
}
