package mapreduce

import (
	"strconv"
	"unicode/utf8"
)

// jw appends compact JSON by hand, as Avro's JsonEncoder prints it: keys in
// schema order, strings escaped, non-ASCII text as UTF-8.
type jw struct{ b []byte }

func (j *jw) raw(s string) { j.b = append(j.b, s...) }

// str writes `"key":"value"` preceded by a comma unless first.
func (j *jw) str(key, v string, first bool) {
	j.key(key, first)
	j.b = appendQuoted(j.b, v)
}

func (j *jw) int(key string, v int64, first bool) {
	j.key(key, first)
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
	j.b = appendQuoted(j.b, v)
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

// appendQuoted appends s quoted; invalid UTF-8 becomes U+FFFD.
func appendQuoted(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
