package shs

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"
)

// Date is an epoch-millisecond instant that marshals the way Spark's
// JacksonMessageWriter writes a java.util.Date: "yyyy-MM-dd'T'HH:mm:ss.SSS'GMT'".
type Date int64

// dateLayout is Spark's ISO date format in Go's notation.
const dateLayout = "2006-01-02T15:04:05.000GMT"

// String formats d as Spark does.
func (d Date) String() string {
	return time.UnixMilli(int64(d)).UTC().Format(dateLayout)
}

// MarshalJSON writes d as a quoted Spark date string.
func (d Date) MarshalJSON() ([]byte, error) {
	return strconv.AppendQuote(nil, d.String()), nil
}

// datePtr returns a pointer to Date(ms), for Option[Date] fields.
func datePtr(ms int64) *Date {
	d := Date(ms)
	return &d
}

// Doubles is a sequence of Java doubles. NaN and infinities are written as
// the strings "NaN", "Infinity" and "-Infinity", as Jackson writes them.
type Doubles []float64

// MarshalJSON writes the sequence, quoting non-finite values.
func (ds Doubles) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, v := range ds {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendDouble(b, v)
	}
	return append(b, ']'), nil
}

// appendDouble appends v in JSON, quoting NaN and infinities.
func appendDouble(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, `"NaN"`...)
	case math.IsInf(v, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(v, -1):
		return append(b, `"-Infinity"`...)
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		// Jackson writes whole doubles with a ".0"; keep them doubles in JSON too.
		return strconv.AppendFloat(b, v, 'f', 1, 64)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// Pair is one key and value of a Scala Map or Seq[(String, String)].
type Pair struct {
	Key, Value string
}

// Pairs is a string map that keeps its order; it marshals as a JSON object.
type Pairs []Pair

// MarshalJSON writes the pairs as an object in order.
func (ps Pairs) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeJSONString(&buf, p.Key)
		buf.WriteByte(':')
		writeJSONString(&buf, p.Value)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// Tuples is a Seq[(String, String)]: Jackson writes each tuple as a
// two-element array.
type Tuples []Pair

// MarshalJSON writes the tuples as an array of two-element arrays.
func (ts Tuples) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('[')
	for i, p := range ts {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteByte('[')
		writeJSONString(&buf, p.Key)
		buf.WriteByte(',')
		writeJSONString(&buf, p.Value)
		buf.WriteByte(']')
	}
	buf.WriteByte(']')
	return buf.Bytes(), nil
}

// Counts is a Map[String, Int] kept in insertion order.
type Counts []Count

// Count is one entry of Counts.
type Count struct {
	Key string
	N   int64
}

// MarshalJSON writes the counts as an object in order.
func (cs Counts) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, c := range cs {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeJSONString(&buf, c.Key)
		buf.WriteByte(':')
		buf.Write(strconv.AppendInt(nil, c.N, 10))
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// add increments key's count, appending it when new.
func (cs Counts) add(key string) Counts {
	for i := range cs {
		if cs[i].Key == key {
			cs[i].N++
			return cs
		}
	}
	return append(cs, Count{Key: key, N: 1})
}

// writeJSONString writes s as a JSON string without HTML escaping.
func writeJSONString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	buf.Truncate(buf.Len() - 1)
}

// Marshal writes v as indented JSON the way the History Server does (two
// spaces, no HTML escaping), with a final newline: encoding/json's compact
// form, indented by appendIndented (json.Encoder's own indentation
// re-scanned every byte and took most of the time).
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	if s, ok := v.(streamer); ok {
		err := WriteJSON(&buf, s)
		return buf.Bytes(), err
	}
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	compact := buf.Bytes()
	return appendIndented(make([]byte, 0, len(compact)+len(compact)/2), compact), nil
}
