package eventlog

import (
	"github.com/clusterlens/clusterlens/internal/jsonscan"

	"strconv"
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
	j.b = jsonscan.AppendString(j.b, k)
	j.b = append(j.b, ':')
	j.comma = false
}

func (j *jsonBuf) str(s string) {
	j.sep()
	j.b = jsonscan.AppendString(j.b, s)
	j.comma = true
}

func (j *jsonBuf) int(v int64) {
	j.sep()
	j.b = appendInt(j.b, v)
	j.comma = true
}

// appendInt is strconv.AppendInt in base 10 with a shortcut for one digit:
// most of a task's metrics are 0.
func appendInt(b []byte, v int64) []byte {
	if uint64(v) < 10 {
		return append(b, byte('0'+v))
	}
	return strconv.AppendInt(b, v, 10)
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

// nint writes a field that follows another in its object from the
// ready-made text f (`,"Key":`) and v: the hot loops' keys are constants,
// so their separator and quotes need not be appended one by one.
func (j *jsonBuf) nint(f string, v int64) {
	j.b = append(j.b, f...)
	j.b = appendInt(j.b, v)
	j.comma = true
}

// raw appends ready-made JSON text that ends with a complete value.
func (j *jsonBuf) raw(s string) {
	j.b = append(j.b, s...)
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
