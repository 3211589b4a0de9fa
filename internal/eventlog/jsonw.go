package eventlog

import (
	"strconv"
	"unicode/utf8"
)

// jsonBuf appends JSON by hand, the way Jackson's JsonGenerator (which
// Spark's JsonProtocol drives) prints it: compact, keys in call order,
// non-ASCII text as UTF-8, control characters escaped.
type jsonBuf struct {
	b     []byte
	comma bool // a value was written in the current object or array
}

// open starts an object or array.
func (j *jsonBuf) open(c byte) {
	j.sep()
	j.b = append(j.b, c)
	j.comma = false
}

// close ends an object or array.
func (j *jsonBuf) close(c byte) {
	j.b = append(j.b, c)
	j.comma = true
}

func (j *jsonBuf) sep() {
	if j.comma {
		j.b = append(j.b, ',')
	}
}

// key writes an object key (k must need no escaping) and the colon.
func (j *jsonBuf) key(k string) {
	j.sep()
	j.b = append(j.b, '"')
	j.b = append(j.b, k...)
	j.b = append(j.b, '"', ':')
	j.comma = false
}

// keyEsc writes an object key that may need escaping.
func (j *jsonBuf) keyEsc(k string) {
	j.sep()
	j.b = appendString(j.b, k)
	j.b = append(j.b, ':')
	j.comma = false
}

func (j *jsonBuf) str(s string) {
	j.sep()
	j.b = appendString(j.b, s)
	j.comma = true
}

func (j *jsonBuf) int(v int64) {
	j.sep()
	j.b = strconv.AppendInt(j.b, v, 10)
	j.comma = true
}

func (j *jsonBuf) bool(v bool) {
	j.sep()
	j.b = strconv.AppendBool(j.b, v)
	j.comma = true
}

func (j *jsonBuf) null() {
	j.sep()
	j.b = append(j.b, "null"...)
	j.comma = true
}

// float writes a double as Jackson does for whole numbers ("1.0") and
// Go's shortest form otherwise.
func (j *jsonBuf) float(v float64) {
	j.sep()
	n := len(j.b)
	j.b = strconv.AppendFloat(j.b, v, 'g', -1, 64)
	whole := true
	for _, c := range j.b[n:] {
		if c == '.' || c == 'e' || c == 'n' || c == 'N' || c == 'I' {
			whole = false
			break
		}
	}
	if whole {
		j.b = append(j.b, '.', '0')
	}
	j.comma = true
}

// Field helpers: key then value.
func (j *jsonBuf) kstr(k, v string)       { j.key(k); j.str(v) }
func (j *jsonBuf) kint(k string, v int64) { j.key(k); j.int(v) }
func (j *jsonBuf) kbool(k string, v bool) { j.key(k); j.bool(v) }

// kmap writes an object of string values (Spark's mapToJson/propertiesToJson).
func (j *jsonBuf) kmap(k string, kv [][2]string) {
	j.key(k)
	j.open('{')
	for _, p := range kv {
		j.keyEsc(p[0])
		j.str(p[1])
	}
	j.close('}')
}

// line ends the event: closes nothing, appends the newline and resets state.
func (j *jsonBuf) newline() {
	j.b = append(j.b, '\n')
	j.comma = false
}

const hexDigits = "0123456789abcdef"

// plain marks the bytes a JSON string holds as they are: printable ASCII
// other than the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendString appends s as a quoted JSON string. Invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	i := 0
	for i < len(s) && plain[s[i]] {
		i++
	}
	if i == len(s) { // the common case: nothing to escape
		b = append(b, s...)
		return append(b, '"')
	}
	start := 0
	for i < len(s) {
		c := s[i]
		if plain[c] {
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
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
