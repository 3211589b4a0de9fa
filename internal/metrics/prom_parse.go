package metrics

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

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

// promParseMatrix streams a query_range answer from r: the envelope's keys
// are read as tokens and the result one series at a time, so memory holds
// one series, never the whole answer. Series are handed to fn as they are
// read, in any field order. Errors give the byte offset and what was
// expected; an answer whose status is not "success" is returned as read,
// with no error, for the caller to report.
func promParseMatrix(r io.Reader, fn promSeriesFunc) (promResponse, error) {
	var resp promResponse
	dec := json.NewDecoder(r)
	dec.UseNumber()
	p := promParser{dec: dec, fn: fn}
	if err := p.delim('{', "an object"); err != nil {
		return resp, err
	}
	for dec.More() {
		key, err := p.key()
		if err != nil {
			return resp, err
		}
		switch key {
		case "status":
			resp.status, err = p.str("status")
		case "errorType":
			resp.errorType, err = p.str("errorType")
		case "error":
			resp.err, err = p.str("error")
		case "warnings", "infos":
			var w []string
			if err = p.decode(&w, key+": an array of strings"); err == nil && key == "warnings" {
				resp.warnings = append(resp.warnings, w...)
			}
		case "data":
			err = p.data()
		default:
			err = p.decode(&json.RawMessage{}, key+": a JSON value")
		}
		if err != nil {
			return resp, err
		}
	}
	if err := p.delim('}', "the end of the object"); err != nil {
		return resp, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return resp, fmt.Errorf("offset %d: want the end of the answer after its object", dec.InputOffset())
	}
	if resp.status == "" {
		return resp, errors.New("no status in the answer")
	}
	return resp, nil
}

// promParser holds the decoder and the scratch of one answer.
type promParser struct {
	dec  *json.Decoder
	fn   promSeriesFunc
	raw  json.RawMessage
	sc   jsonscan.Scanner
	pts  []promPoint
	inst []byte
}

func (p *promParser) fail(what string, err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return fmt.Errorf("offset %d: want %s: %w", p.dec.InputOffset(), what, err)
	}
	return fmt.Errorf("offset %d: want %s", p.dec.InputOffset(), what)
}

func (p *promParser) delim(d json.Delim, what string) error {
	t, err := p.dec.Token()
	if err != nil {
		return p.fail(what, err)
	}
	if t != d {
		return p.fail(fmt.Sprintf("%s, got %v", what, t), nil)
	}
	return nil
}

func (p *promParser) key() (string, error) {
	t, err := p.dec.Token()
	if err != nil {
		return "", p.fail("an object key", err)
	}
	k, ok := t.(string)
	if !ok {
		return "", p.fail(fmt.Sprintf("an object key, got %v", t), nil)
	}
	return k, nil
}

func (p *promParser) str(what string) (string, error) {
	t, err := p.dec.Token()
	if err != nil {
		return "", p.fail(what+": a string", err)
	}
	s, ok := t.(string)
	if !ok {
		return "", p.fail(fmt.Sprintf("%s: a string, got %v", what, t), nil)
	}
	return s, nil
}

func (p *promParser) decode(v any, what string) error {
	if err := p.dec.Decode(v); err != nil {
		return p.fail(what, err)
	}
	return nil
}

// data reads {"resultType": "matrix", "result": [series...]}. A result
// before its resultType is accepted as a matrix; any other type is an error.
func (p *promParser) data() error {
	if err := p.delim('{', "data: an object"); err != nil {
		return err
	}
	for p.dec.More() {
		key, err := p.key()
		if err != nil {
			return err
		}
		switch key {
		case "resultType":
			typ, err := p.str("resultType")
			if err != nil {
				return err
			}
			if typ != "matrix" {
				return p.fail(fmt.Sprintf(`resultType "matrix" (a range query), got %q`, typ), nil)
			}
		case "result":
			if err := p.result(); err != nil {
				return err
			}
		default:
			if err := p.decode(&json.RawMessage{}, "data."+key+": a JSON value"); err != nil {
				return err
			}
		}
	}
	return p.delim('}', "the end of data")
}

func (p *promParser) result() error {
	t, err := p.dec.Token()
	if err != nil {
		return p.fail("result: an array", err)
	}
	if t == nil {
		return nil
	}
	if t != json.Delim('[') {
		return p.fail(fmt.Sprintf("result: an array, got %v", t), nil)
	}
	for i := 0; p.dec.More(); i++ {
		start := p.dec.InputOffset()
		p.raw = p.raw[:0]
		if err := p.dec.Decode(&p.raw); err != nil {
			return p.fail(fmt.Sprintf("result[%d]: a series", i), err)
		}
		if err := p.series(); err != nil {
			return fmt.Errorf("result[%d] at offset %d: %w", i, start, err)
		}
		if err := p.fn(string(p.inst), p.pts); err != nil {
			return err
		}
	}
	return p.delim(']', "the end of result")
}

// series parses {"metric": {labels}, "values": [[t, "v"], ...]} from p.raw
// into p.inst and p.pts. Native-histogram series ("histograms") are skipped.
func (p *promParser) series() error {
	sc := &p.sc
	sc.Reset(p.raw)
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
					p.inst = append(p.inst[:0], v...)
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
	sec := sc.Float()
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
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
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
