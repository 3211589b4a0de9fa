package collector

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/promtext"
	"github.com/clusterlens/clusterlens/internal/wire"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

func TestIngestStoresOnceAndFlagsDuplicates(t *testing.T) {
	var seen []uint64
	s, st := newTestServer(t, func(c *Config) { c.OnBatch = func(b *wire.Batch) { seen = append(seen, b.Seq) } })
	h := s.Handler()
	for i, seq := range []uint64{1, 2, 1, 2, 3} {
		body := wire.EncodeBatch(testBatch("n1", seq, 40))
		rec := post(h, testToken, wire.Encoding, body)
		if rec.Code != http.StatusOK {
			t.Fatalf("post %d: %d %s", i, rec.Code, rec.Body)
		}
		var rep ingestReply
		if err := json.Unmarshal(rec.Body.Bytes(), &rep); err != nil {
			t.Fatal(err)
		}
		if want := i >= 2 && i <= 3; rep.Dup != want || rep.Seq != seq || rep.Samples != 40 {
			t.Errorf("post %d: reply %+v, want seq %d dup %v", i, rep, seq, want)
		}
	}
	// Uncompressed bodies are accepted too.
	if rec := post(h, testToken, "", wire.AppendBatch(nil, testBatch("n2", 1, 3))); rec.Code != http.StatusOK {
		t.Fatalf("identity: %d %s", rec.Code, rec.Body)
	}
	if st.Batches() != 4 || len(seen) != 4 || seen[2] != 3 {
		t.Fatalf("stored %d batches, OnBatch saw %v; want 4 and [1 2 3 1]", st.Batches(), seen)
	}
	m := scrape(t, h)
	for name, want := range map[string]float64{
		"clusterlens_collector_batches_ingested_total":  4,
		"clusterlens_collector_samples_ingested_total":  123,
		"clusterlens_collector_duplicate_batches_total": 2,
	} {
		if got := m[name]; got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := m["clusterlens_collector_ingest_seconds_count"]; got != 6 {
		t.Errorf("latency histogram count %v, want 6", got)
	}
}

func TestIngestRejects(t *testing.T) {
	s, st := newTestServer(t, func(c *Config) { c.MaxBodyBytes = 4096 })
	h := s.Handler()
	good := wire.EncodeBatch(testBatch("n1", 1, 10))
	big := wire.AppendBatch(nil, testBatch("n1", 2, 1000))
	cases := []struct {
		name, token, enc string
		body             []byte
		code             int
		reason, msg      string
	}{
		{"no token", "", wire.Encoding, good, 401, reasonUnauthorized, "missing or wrong bearer token"},
		{"wrong token", testToken + "x", wire.Encoding, good, 401, reasonUnauthorized, "missing or wrong bearer token"},
		{"too large", testToken, "", big, 413, reasonTooLarge, "exceeds the limit of 4096"},
		{"encoding", testToken, "gzip", good, 415, reasonEncoding, `content encoding "gzip": want zstd or identity`},
		{"not zstd", testToken, wire.Encoding, []byte("hello"), 400, reasonMalformed, "malformed batch: zstd:"},
		{"truncated", testToken, "", wire.AppendBatch(nil, testBatch("n1", 1, 10))[:50], 400, reasonMalformed, "malformed batch: at offset"},
	}
	for _, c := range cases {
		rec := post(h, c.token, c.enc, c.body)
		body := rec.Body.String()
		if rec.Code != c.code || !strings.Contains(body, c.msg) || strings.Count(body, "\n") != 1 {
			t.Errorf("%s: %d %q, want %d and one line containing %q", c.name, rec.Code, body, c.code, c.msg)
		}
	}
	// A chunked body (no Content-Length) over the limit is cut off too.
	req := httptest.NewRequest(http.MethodPost, "/v1/batches", struct{ *bytes.Reader }{bytes.NewReader(big)})
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer "+testToken)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 413 {
		t.Errorf("chunked too large: %d %s", rec.Code, rec.Body)
	}
	req = httptest.NewRequest(http.MethodGet, "/v1/batches", nil)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 405 {
		t.Errorf("GET: %d", rec.Code)
	}
	st.Fail(errors.New("disk full"))
	if rec := post(h, testToken, wire.Encoding, good); rec.Code != 503 || rec.Header().Get("Retry-After") == "" ||
		!strings.Contains(rec.Body.String(), "store: disk full") {
		t.Errorf("store down: %d %q", rec.Code, rec.Body)
	}
	if st.Batches() != 0 {
		t.Errorf("rejected batches were stored")
	}
	m := scrape(t, h)
	for reason, want := range map[string]float64{reasonUnauthorized: 2, reasonTooLarge: 2, reasonEncoding: 1, reasonMalformed: 2, reasonMethod: 1, reasonStore: 1} {
		if got := m[`clusterlens_collector_rejected_batches_total{reason="`+reason+`"}`]; got != want {
			t.Errorf("rejects %s = %v, want %v", reason, got, want)
		}
	}
}

func TestHealthzAndExtraCollectors(t *testing.T) {
	s, _ := newTestServer(t, nil)
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
	if rec.Code != 200 || rec.Body.String() != "ok\n" {
		t.Fatalf("healthz: %d %q", rec.Code, rec.Body)
	}
	if _, err := New(Config{Store: nil, Token: "x"}); err == nil {
		t.Error("New without a store succeeded")
	}
	if _, err := New(Config{Store: nil}); !errors.Is(err, ErrNoToken) {
		t.Errorf("New without a token: %v", err)
	}
	m := scrape(t, s.Handler())
	if _, ok := m["go_goroutines"]; !ok {
		t.Error("default registry lacks the Go collector")
	}

	// A caller's registry receives the collector's metrics and serves the
	// caller's own (an online analysis counting alarms, say).
	alarms := promtext.NewCounter("peer_alarms_total", "test")
	reg := promtext.NewRegistry(alarms)
	s2, _ := newTestServer(t, func(c *Config) { c.Registry = reg })
	alarms.Add(3)
	m = scrape(t, s2.Handler())
	if m["peer_alarms_total"] != 3 || s2.Registry() != reg {
		t.Errorf("caller's counter = %v, want 3", m["peer_alarms_total"])
	}
	if _, ok := m["clusterlens_collector_batches_ingested_total"]; !ok {
		t.Error("collector metrics missing from the caller's registry")
	}
}

// scrape reads /metrics with Prometheus's own text parser and returns each
// counter, gauge and histogram count by name{labels}.
func scrape(t *testing.T, h http.Handler) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("/metrics: %d", rec.Code)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(rec.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	out := map[string]float64{}
	for name, f := range fams {
		for _, m := range f.Metric {
			key := name
			for _, l := range m.Label {
				key += `{` + l.GetName() + `="` + l.GetValue() + `"}`
			}
			switch {
			case m.Counter != nil:
				out[key] = m.Counter.GetValue()
			case m.Gauge != nil:
				out[key] = m.Gauge.GetValue()
			case m.Histogram != nil:
				out[key+"_count"] = float64(m.Histogram.GetSampleCount())
			}
		}
	}
	return out
}
