package metrics

import (
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf8"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
)

// promPoint is one point of a range-query series: Unix milliseconds and
// the value, which may be NaN or ±Inf (Prometheus writes them as the
// strings "NaN", "+Inf", "-Inf").
type promPoint struct {
	ms int64
	v  float64
}

// promResponse is the envelope of a Prometheus HTTP API answer
// (https://prometheus.io/docs/prometheus/latest/querying/api/#format-overview).
type promResponse struct {
	status    string // "success" or "error"
	errorType string
	err       string
	warnings  []string
}

// promSeriesFunc receives each series of a matrix result: the value of its
// instance label ("" when absent) and its points, which are reused after
// the call returns.
type promSeriesFunc func(instance string, pts []promPoint) error

// promParseMatrix streams a query_range answer from r: the envelope is
// walked token by token and the result read one series at a time, so
// memory holds one series, never the whole answer. Series are handed to fn
// as they are read, in any field order. Errors give the byte offset and
// what was expected; an answer whose status is not "success" is returned
// as read, with no error, for the caller to report.
func promParseMatrix(r io.Reader, fn promSeriesFunc) (promResponse, error) {
	var resp promResponse
	p := promParser{j: newSourceJSON(r), fn: fn}
	err := p.j.object("the answer", func(key string) error {
		var err error
		switch key {
		case "status":
			resp.status, err = p.j.str("status")
		case "errorType":
			resp.errorType, err = p.j.str("errorType")
		case "error":
			resp.err, err = p.j.str("error")
		case "warnings":
			resp.warnings, err = p.strings(resp.warnings)
		case "data":
			err = p.data()
		default:
			err = p.j.skip(key)
		}
		return err
	})
	if err != nil {
		return resp, err
	}
	if err := p.j.end(); err != nil {
		return resp, err
	}
	if resp.status == "" {
		return resp, errors.New("no status in the answer")
	}
	return resp, nil
}

// promParser holds the stream and the scratch of one answer.
type promParser struct {
	j    *sourceJSON
	fn   promSeriesFunc
	sc   jsonscan.Scanner
	pts  []promPoint
	inst []byte
}

// strings appends an array of strings (the warnings) to dst.
func (p *promParser) strings(dst []string) ([]string, error) {
	at := p.j.off
	raw, err := p.j.value()
	if err != nil {
		return dst, err
	}
	sc := &p.sc
	sc.Reset(raw)
	if sc.Array() {
		for sc.Next() {
			if sc.Kind() != '"' {
				return dst, fmt.Errorf("offset %d: want warnings, an array of strings", at)
			}
			dst = append(dst, sc.String())
		}
	}
	if err := sc.Err(); err != nil {
		return dst, fmt.Errorf("offset %d: warnings: %w", at, err)
	}
	return dst, sc.End()
}

// data reads {"resultType": "matrix", "result": [series...]}. A result
// before its resultType is accepted as a matrix; any other type is an error.
func (p *promParser) data() error {
	return p.j.object("data", func(key string) error {
		switch key {
		case "resultType":
			at := p.j.off
			typ, err := p.j.str("resultType")
			if err == nil && typ != "matrix" {
				err = fmt.Errorf(`offset %d: want resultType "matrix" (a range query), got %q`, at, typ)
			}
			return err
		case "result":
			return p.result()
		}
		return p.j.skip("data." + key)
	})
}

func (p *promParser) result() error {
	return p.j.array("result", func(i int) error {
		start := p.j.off
		raw, err := p.j.value()
		if err != nil {
			return fmt.Errorf("result[%d]: %w", i, err)
		}
		if err := p.series(raw); err != nil {
			return fmt.Errorf("result[%d] at offset %d: %w", i, start, err)
		}
		return p.fn(string(p.inst), p.pts)
	})
}

// series parses {"metric": {labels}, "values": [[t, "v"], ...]} from raw
// into p.inst and p.pts. Native-histogram series ("histograms") are skipped.
func (p *promParser) series(raw []byte) error {
	sc := &p.sc
	sc.Reset(raw)
	p.pts, p.inst = p.pts[:0], p.inst[:0]
	if !sc.Object() {
		return wantErr(sc, "a series object")
	}
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "metric":
			if !sc.Object() {
				if sc.Err() != nil {
					return sc.Err()
				}
				continue
			}
			for l := sc.Key(); l != nil; l = sc.Key() {
				v := sc.Bytes()
				if string(l) == "instance" {
					p.inst = appendValidUTF8(p.inst[:0], v)
				}
			}
		case "values":
			if !sc.Array() {
				if sc.Err() != nil {
					return sc.Err()
				}
				continue
			}
			for sc.Next() {
				pt, err := promScanPoint(sc)
				if err != nil {
					return fmt.Errorf("values[%d]: %w", len(p.pts), err)
				}
				p.pts = append(p.pts, pt)
			}
		default:
			sc.Skip()
		}
		if sc.Err() != nil {
			return sc.Err()
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return sc.End()
}

// promScanPoint reads [unixSeconds, "value"].
func promScanPoint(sc *jsonscan.Scanner) (promPoint, error) {
	if !sc.Array() || !sc.Next() {
		return promPoint{}, wantErr(sc, "a [time, value] pair")
	}
	if sc.Kind() != '0' {
		return promPoint{}, wantErr(sc, "a number of seconds")
	}
	num := sc.SkipRaw()
	sec, ok := csvFloat(num)
	if !ok && sc.Err() == nil {
		return promPoint{}, fmt.Errorf("want a number of seconds, got %q", num)
	}
	if !sc.Next() || sc.Kind() != '"' {
		return promPoint{}, wantErr(sc, "a value string")
	}
	raw := sc.Bytes()
	if sc.Next() {
		return promPoint{}, errors.New("want two elements in a [time, value] pair")
	}
	if sc.Err() != nil {
		return promPoint{}, sc.Err()
	}
	v, ok := csvFloat(raw)
	if !ok {
		return promPoint{}, fmt.Errorf("want a number, NaN or ±Inf as the value, got %q", raw)
	}
	ms := sec * 1000
	if math.IsNaN(ms) || math.Abs(ms) > 1<<62 {
		return promPoint{}, fmt.Errorf("time %v seconds out of range", sec)
	}
	return promPoint{ms: int64(math.Round(ms)), v: v}, nil
}

// wantErr returns the scanner's error, or one saying what was wanted.
func wantErr(sc *jsonscan.Scanner, what string) error {
	if err := sc.Err(); err != nil {
		return err
	}
	return fmt.Errorf("offset %d: want %s", sc.Offset(), what)
}

// appendValidUTF8 appends s with each byte that is not UTF-8 read as
// U+FFFD, as encoding/json (and so Prometheus's own clients) read a JSON
// string; the scanner hands strings over as their bytes.
func appendValidUTF8(dst, s []byte) []byte {
	if utf8.Valid(s) {
		return append(dst, s...)
	}
	for len(s) > 0 {
		r, n := utf8.DecodeRune(s)
		dst = utf8.AppendRune(dst, r) // RuneError for an invalid byte, n = 1
		s = s[n:]
	}
	return dst
}
