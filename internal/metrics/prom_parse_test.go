package metrics

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"testing"
)

// promSample is a matrix answer in Prometheus's own format (the example of
// https://prometheus.io/docs/prometheus/latest/querying/api/#range-queries),
// with the special values and a warning added.
const promSample = `{
   "status" : "success",
   "data" : {
      "resultType" : "matrix",
      "result" : [
         {
            "metric" : {"__name__" : "up", "job" : "prometheus", "instance" : "localhost:9090"},
            "values" : [[1435781430.781, "1"], [1435781445.781, "NaN"], [1435781460.781, "+Inf"]]
         },
         {
            "metric" : {"__name__" : "up", "job" : "node", "instance" : "localhost:9091"},
            "values" : [[1435781430.781, "0"], [1435781445.781, "-Inf"], [1435781460.781, "1e3"]]
         }
      ]
   },
   "warnings": ["PromQL info: metric might not be a counter"]
}`

func TestPromParseMatrix(t *testing.T) {
	type series struct {
		inst string
		pts  []promPoint
	}
	var got []series
	resp, err := promParseMatrix(strings.NewReader(promSample), func(inst string, pts []promPoint) error {
		got = append(got, series{inst, append([]promPoint(nil), pts...)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.status != "success" || len(resp.warnings) != 1 {
		t.Fatalf("envelope %+v", resp)
	}
	if len(got) != 2 || got[0].inst != "localhost:9090" || got[1].inst != "localhost:9091" {
		t.Fatalf("series %+v", got)
	}
	p := got[0].pts
	if len(p) != 3 || p[0] != (promPoint{1435781430781, 1}) || !math.IsNaN(p[1].v) || !math.IsInf(p[2].v, 1) || p[2].ms != 1435781460781 {
		t.Fatalf("points %+v", p)
	}
	if q := got[1].pts; !math.IsInf(q[1].v, -1) || q[2].v != 1000 {
		t.Fatalf("points %+v", q)
	}
}

func TestPromParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"status":"error","errorType":"bad_data","error":"parse error at char 3"}`, ""},
		{`{"status":"success","data":{"resultType":"vector","result":[]}}`, `resultType "matrix"`},
		{`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,2]]}]}}`, "value string"},
		{`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"x"]]}]}}`, `got "x"`},
		{`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"1",3]]}]}}`, "two elements"},
		{`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{}`, "offset"},
		{`{"data":{"result":[]}}`, "no status"},
		{`[]`, "an object"},
		{`{"status":"success"} {}`, "end of the document"},
	} {
		resp, err := promParseMatrix(strings.NewReader(c.in), func(string, []promPoint) error { return nil })
		if c.want == "" {
			if err != nil || resp.status != "error" || resp.errorType != "bad_data" || resp.err == "" {
				t.Errorf("%s: %+v %v", c.in, resp, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", c.in, err, c.want)
		}
	}
}

// FuzzPromParse checks that the streaming parser never panics and that,
// whenever encoding/json reads the same answer as a well-formed matrix, the
// two agree on every series and point.
func FuzzPromParse(f *testing.F) {
	f.Add([]byte(promSample))
	f.Add([]byte(`{"status":"error","errorType":"timeout","error":"query timed out","warnings":["w"]}`))
	f.Add([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"instance":"a\u0062:1"},"values":[[1.5,"-0"],[2,"Inf"]]}]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		type series struct {
			inst string
			pts  []promPoint
		}
		var got []series
		resp, err := promParseMatrix(bytes.NewReader(in), func(inst string, pts []promPoint) error {
			got = append(got, series{inst, append([]promPoint(nil), pts...)})
			return nil
		})
		if err != nil {
			return
		}
		var ref struct {
			Status string
			Data   struct {
				ResultType string
				Result     []struct {
					Metric map[string]string
					Values [][2]json.RawMessage
				}
			}
		}
		if json.Unmarshal(in, &ref) != nil || ref.Status != resp.status || !promWellFormed(in) {
			return
		}
		if len(ref.Data.Result) != len(got) {
			t.Fatalf("%d series, encoding/json reads %d", len(got), len(ref.Data.Result))
		}
		for i, s := range ref.Data.Result {
			if s.Metric["instance"] != got[i].inst || len(s.Values) != len(got[i].pts) {
				t.Fatalf("series %d: %q %d points, encoding/json reads %q %d", i, got[i].inst, len(got[i].pts), s.Metric["instance"], len(s.Values))
			}
			for j, v := range s.Values {
				sec, err1 := strconv.ParseFloat(string(v[0]), 64)
				var str string
				err2 := json.Unmarshal(v[1], &str)
				val, err3 := strconv.ParseFloat(str, 64)
				if err1 != nil || err2 != nil || err3 != nil {
					t.Fatalf("parser accepted point %s,%s", v[0], v[1])
				}
				p := got[i].pts[j]
				if p.ms != int64(math.Round(sec*1000)) || !(p.v == val || math.IsNaN(p.v) && math.IsNaN(val)) {
					t.Fatalf("point %d/%d: %+v, encoding/json reads %v %v", i, j, p, sec, val)
				}
			}
		}
	})
}

// promWellFormed reports whether in has no duplicate object keys
// (encoding/json keeps the last, the streaming parser every one) and no key
// that encoding/json would fold onto a field of the envelope.
func promWellFormed(in []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(in))
	var walk func() bool
	walk = func() bool {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		switch t {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return false
				}
				ks := strings.ToLower(k.(string))
				if seen[ks] {
					return false
				}
				for _, f := range []string{"status", "data", "resultType", "result", "metric", "values"} {
					if strings.EqualFold(k.(string), f) && k.(string) != f {
						return false
					}
				}
				seen[ks] = true
				if !walk() {
					return false
				}
			}
			_, err = dec.Token()
			return err == nil
		case json.Delim('['):
			for dec.More() {
				if !walk() {
					return false
				}
			}
			_, err = dec.Token()
			return err == nil
		}
		return true
	}
	return walk()
}
