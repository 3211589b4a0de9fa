package metrics

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// fakeProm answers query_range with one series per request whose points
// cover the requested range at the requested step, values "NaN" at t%5==0
// and otherwise the time in seconds, and records every request.
type fakeProm struct {
	mu   sync.Mutex
	reqs []map[string]string
}

func (f *fakeProm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil || r.URL.Path != "/prom/api/v1/query_range" {
		http.Error(w, "bad request", 400)
		return
	}
	q := map[string]string{}
	for _, k := range []string{"query", "start", "end", "step"} {
		q[k] = r.Form.Get(k)
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, q)
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if strings.Contains(q["query"], "bad") {
		w.WriteHeader(400)
		fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"1:1: parse error: unexpected identifier"}`)
		return
	}
	start, _ := strconv.ParseFloat(q["start"], 64)
	end, _ := strconv.ParseFloat(q["end"], 64)
	step, _ := strconv.ParseFloat(q["step"], 64)
	if (end-start)/step+1 > PromMaxPoints {
		w.WriteHeader(400)
		fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"}`)
		return
	}
	var b strings.Builder
	b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"instance":"10.0.0.7:9100","job":"node"},"values":[`)
	for t, i := start, 0; t <= end+1e-9; t, i = t+step, i+1 {
		if i > 0 {
			b.WriteByte(',')
		}
		v := strconv.FormatFloat(t, 'f', -1, 64)
		if int64(t)%5 == 0 {
			v = "NaN"
		}
		fmt.Fprintf(&b, `[%s,"%s"]`, strconv.FormatFloat(t, 'f', 3, 64), v)
	}
	b.WriteString(`]}]},"warnings":["careful"]}`)
	fmt.Fprint(w, b.String())
}

func TestPromSourceChunksAndMaps(t *testing.T) {
	fake := &fakeProm{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	var warnings []string
	p := &PromSource{URL: srv.URL + "/prom/", MaxPoints: 5, Scrape: time.Second, Selector: `job="node"`,
		Hosts: map[string]string{"10.0.0.7": "node007.example"}, Warn: func(w string) { warnings = append(warnings, w) }}
	from := time.UnixMilli(1_700_000_001_000)
	to := from.Add(11 * time.Second) // 12 points: chunks of 5, 5, 2
	got := map[string][]int64{}
	err := p.Read(context.Background(), from, to, func(s *model.Sample) error {
		if s.Host != "node007.example" || s.Target != "" {
			t.Fatalf("sample %+v", s)
		}
		if float64(s.Time)/1000 != s.Value {
			t.Fatalf("sample %+v: value is not its time", s)
		}
		got[s.Type] = append(got[s.Type], s.Time)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(model.NodeMetricNames) {
		t.Fatalf("%d metrics, want %d", len(got), len(model.NodeMetricNames))
	}
	for name, times := range got {
		// 12 points minus the NaNs at ...005 and ...010.
		if len(times) != 10 || times[0] != from.UnixMilli() || times[9] != to.UnixMilli() {
			t.Fatalf("%s: times %v", name, times)
		}
	}
	if len(fake.reqs) != 3*len(promQueries) || len(warnings) != len(fake.reqs) {
		t.Fatalf("%d requests, %d warnings, want %d", len(fake.reqs), len(warnings), 3*len(promQueries))
	}
	wantChunks := [][2]string{{"1700000001.000", "1700000005.000"}, {"1700000006.000", "1700000010.000"}, {"1700000011.000", "1700000012.000"}}
	for i, r := range fake.reqs {
		c := wantChunks[i/len(promQueries)]
		if r["start"] != c[0] || r["end"] != c[1] || r["step"] != "1" {
			t.Fatalf("request %d: %v, want %v", i, r, c)
		}
		if !strings.Contains(r["query"], `job="node"`) || !strings.Contains(r["query"], "node_") {
			t.Fatalf("request %d: query %q lacks the selector", i, r["query"])
		}
		if strings.Contains(r["query"], "rate(") && !strings.Contains(r["query"], "[4000ms]") {
			t.Fatalf("request %d: query %q: want a 4 s rate window for a 1 s scrape", i, r["query"])
		}
	}
}

func TestPromSourceErrors(t *testing.T) {
	fake := &fakeProm{}
	srv := httptest.NewServer(fake)
	defer srv.Close()
	now := time.Now()
	noop := func(*model.Sample) error { return nil }
	p := &PromSource{URL: srv.URL + "/prom", Selector: `bad="1"`}
	err := p.Read(context.Background(), now, now, noop)
	if err == nil || !strings.Contains(err.Error(), "bad_data: 1:1: parse error") || !strings.Contains(err.Error(), "400") {
		t.Fatalf("error %v, want Prometheus's error type and message", err)
	}
	p = &PromSource{URL: srv.URL + "/other"}
	if err := p.Read(context.Background(), now, now, noop); err == nil || !strings.Contains(err.Error(), "want a JSON answer") {
		t.Fatalf("error %v", err)
	}
	if err := p.Read(context.Background(), now, now.Add(-time.Second), noop); err == nil || !strings.Contains(err.Error(), "before it starts") {
		t.Fatalf("error %v", err)
	}
	// A day at 5 s is 17,281 points: split in two, so the fake's limit is
	// never hit.
	p = &PromSource{URL: srv.URL + "/prom", Step: 5 * time.Second}
	n := 0
	day := time.Unix(1_700_000_001, 0)
	if err := p.Read(context.Background(), day, day.Add(24*time.Hour), func(*model.Sample) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if want := 17281 * len(model.NodeMetricNames); n < want || n > want {
		t.Fatalf("%d samples over a day, want %d", n, want)
	}
}

func TestPromHost(t *testing.T) {
	names := map[string]string{"10.0.0.1": "n1", "h:9100": "exact"}
	for in, want := range map[string]string{
		"10.0.0.1:9100": "n1", "h:9100": "exact", "h:9200": "h", "[::1]:9100": "::1", "[fe80::1]": "fe80::1", "plain": "plain", "": "",
	} {
		if got := PromHost(in, names); got != want {
			t.Errorf("PromHost(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPromExpr(t *testing.T) {
	q := promQuery{expr: `a{} / b{mode="x"}[$W]`}
	if got := promExpr(q, 4*time.Second, ""); got != `a / b{mode="x"}[4000ms]` {
		t.Fatal(got)
	}
	if got := promExpr(q, time.Minute, `job="n"`); got != `a{job="n"} / b{mode="x",job="n"}[60000ms]` {
		t.Fatal(got)
	}
}

// TestPromSourceNoInstance checks that a series without an instance label
// is skipped with a warning while the others are read.
func TestPromSourceNoInstance(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[`+
			`{"metric":{"job":"x"},"values":[[1700000000,"1"]]},`+
			`{"metric":{"instance":"a:1"},"values":[[1700000000,"2"]]}]}}`)
	}))
	defer srv.Close()
	var warned int
	p := &PromSource{URL: srv.URL, Warn: func(string) { warned++ }}
	at := time.Unix(1700000000, 0)
	n := 0
	err := p.Read(context.Background(), at, at, func(s *model.Sample) error {
		if s.Host != "a" || s.Value != 2 {
			t.Fatalf("sample %+v", s)
		}
		n++
		return nil
	})
	if err != nil || n != len(model.NodeMetricNames) || warned != len(promQueries) {
		t.Fatalf("err %v, %d samples, %d warnings", err, n, warned)
	}
}
