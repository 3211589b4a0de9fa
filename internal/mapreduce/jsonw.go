package mapreduce

import (
	"github.com/clusterlens/clusterlens/internal/jsonscan"

	"strconv"
)

// jw appends compact JSON by hand, as Avro's JsonEncoder prints it: keys in
// schema order, strings escaped, non-ASCII text as UTF-8.
type jw struct{ b []byte }

func (j *jw) raw(s string) { j.b = append(j.b, s...) }

// str writes `"key":"value"` preceded by a comma unless first.
func (j *jw) str(key, v string, first bool) {
	j.key(key, first)
	j.b = jsonscan.AppendString(j.b, v)
}

func (j *jw) int(key string, v int64, first bool) {
	j.key(key, first)
	if uint64(v) < 10 { // one digit, as most counters of an attempt
		j.b = append(j.b, byte('0'+v))
		return
	}
	j.b = strconv.AppendInt(j.b, v, 10)
}

// ustr writes an Avro union ["null","string"] value: {"string":"v"}, or null.
func (j *jw) ustr(key, v string, null bool) {
	j.key(key, false)
	if null {
		j.raw("null")
		return
	}
	j.raw(`{"string":`)
	j.b = jsonscan.AppendString(j.b, v)
	j.b = append(j.b, '}')
}

func (j *jw) key(k string, first bool) {
	if !first {
		j.b = append(j.b, ',')
	}
	j.b = append(j.b, '"')
	j.b = append(j.b, k...)
	j.b = append(j.b, '"', ':')
}
