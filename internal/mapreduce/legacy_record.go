package mapreduce

import (
	"bytes"
	"errors"
	"strconv"
)

// A legacy history record (org.apache.hadoop.mapred.JobHistory, Hadoop
// 0.18 to 1.x) is a type word and KEY="VALUE" pairs:
//
//	MapAttempt TASK_TYPE="MAP" TASKID="task_..." START_TIME="1240336754665" .
//
// Values escape '"', '=', '.' and '\' with a backslash (0.20+; StringUtils
// escapeString), may span lines (ERROR stack traces), and 0.20+ records end
// with " .".

type kv struct {
	key, val []byte // val raw, still escaped
}

type record struct {
	typ    []byte
	fields []kv
	buf    []byte // scratch for unescaped values
}

var errRecord = errors.New("not a KEY=\"VALUE\" record")

// parse splits rec into its type and fields; the slices alias rec.
func (r *record) parse(rec []byte) error {
	r.fields = r.fields[:0]
	i := bytes.IndexByte(rec, ' ')
	if i <= 0 {
		return errRecord
	}
	r.typ = rec[:i]
	for _, c := range r.typ {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
			return errRecord
		}
	}
	for i < len(rec) {
		for i < len(rec) && (rec[i] == ' ' || rec[i] == '\t' || rec[i] == '\n' || rec[i] == '\r') {
			i++
		}
		if i >= len(rec) || (rec[i] == '.' && len(bytes.TrimSpace(rec[i+1:])) == 0) {
			break
		}
		k := i
		for i < len(rec) && (rec[i] >= 'A' && rec[i] <= 'Z' || rec[i] >= 'a' && rec[i] <= 'z' ||
			rec[i] >= '0' && rec[i] <= '9' || rec[i] == '_') {
			i++
		}
		if i == k || i+1 >= len(rec) || rec[i] != '=' || rec[i+1] != '"' {
			return errRecord
		}
		key := rec[k:i]
		i += 2
		v := i
		for i < len(rec) && rec[i] != '"' {
			if rec[i] == '\\' {
				i++
			}
			i++
		}
		if i >= len(rec) {
			return errRecord
		}
		r.fields = append(r.fields, kv{key: key, val: rec[v:i]})
		i++
	}
	if len(r.fields) == 0 {
		return errRecord
	}
	return nil
}

// raw returns the still-escaped value of key, and whether it is present.
func (r *record) raw(key string) ([]byte, bool) {
	for _, f := range r.fields {
		if string(f.key) == key {
			return f.val, true
		}
	}
	return nil, false
}

// str returns the unescaped value of key ("" when absent).
func (r *record) str(key string) string {
	v, ok := r.raw(key)
	if !ok {
		return ""
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v)
	}
	r.buf = unescapeLegacy(r.buf[:0], v)
	return string(r.buf)
}

// num returns the integer value of key (0 when absent or not a number).
func (r *record) num(key string) int64 {
	v, ok := r.raw(key)
	if !ok {
		return 0
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// unescapeLegacy drops the backslash of every "\x" pair.
func unescapeLegacy(dst, v []byte) []byte {
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		dst = append(dst, v[i])
	}
	return dst
}

// parseCounters reads a COUNTERS value (already unescaped once) into c. The
// 0.20+ form is Counters.makeEscapedCompactString's
// {(group)(display)[(name)(display)(value)]...}..., with '(', ')', '[', ']',
// '{', '}' and '\' escaped by a backslash; the 0.18 form is
// "Group display.Counter display:value,...".
func parseCounters(c *counters, v []byte) bool {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return false
	}
	if v[0] != '{' {
		return parseCounters18(c, v)
	}
	p := counterParser{s: v}
	for p.i < len(p.s) {
		if !p.expect('{') {
			return c.seen
		}
		group, ok := p.paren(&p.g)
		if !ok {
			return c.seen
		}
		if _, ok := p.paren(&p.d); !ok {
			return c.seen
		}
		for p.i < len(p.s) && p.s[p.i] == '[' {
			p.i++
			name, ok1 := p.paren(&p.n)
			_, ok2 := p.paren(&p.d)
			val, ok3 := p.paren(&p.v)
			if !ok1 || !ok2 || !ok3 || !p.expect(']') {
				return c.seen
			}
			n, err := strconv.ParseInt(string(val), 10, 64)
			if err == nil {
				addCounter(c, group, name, n)
			}
		}
		if !p.expect('}') {
			return c.seen
		}
	}
	return c.seen
}

type counterParser struct {
	s          []byte
	i          int
	g, d, n, v []byte // scratch per token kind
}

func (p *counterParser) expect(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// paren reads "(...)" with backslash escapes into *buf.
func (p *counterParser) paren(buf *[]byte) ([]byte, bool) {
	if !p.expect('(') {
		return nil, false
	}
	*buf = (*buf)[:0]
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\\' && p.i+1 < len(p.s):
			*buf = append(*buf, p.s[p.i+1])
			p.i += 2
		case c == ')':
			p.i++
			return *buf, true
		default:
			*buf = append(*buf, c)
			p.i++
		}
	}
	return nil, false
}

// parseCounters18 reads the 0.18 "Group.Counter:value,..." form.
func parseCounters18(c *counters, v []byte) bool {
	for len(v) > 0 {
		item := v
		if i := bytes.IndexByte(v, ','); i >= 0 {
			item, v = v[:i], v[i+1:]
		} else {
			v = nil
		}
		colon := bytes.LastIndexByte(item, ':')
		dot := bytes.IndexByte(item, '.')
		if colon < 0 || dot < 0 || dot > colon {
			continue
		}
		n, err := strconv.ParseInt(string(item[colon+1:]), 10, 64)
		if err != nil {
			continue
		}
		addCounter(c, item[:dot], item[dot+1:colon], n)
	}
	return c.seen
}
