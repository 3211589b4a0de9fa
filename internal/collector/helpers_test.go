package collector

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/clusterlens/clusterlens/internal/collector/collectortest"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/wire"
)

const testToken = "s3cret-token"

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newTestServer(t testing.TB, mut func(*Config)) (*Server, *collectortest.MemStore) {
	t.Helper()
	st := collectortest.NewMemStore()
	cfg := Config{Store: st, Token: testToken, Logger: quietLogger()}
	if mut != nil {
		mut(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, st
}

func testBatch(agent string, seq uint64, n int) *wire.Batch {
	b := &wire.Batch{Agent: agent, Seq: seq}
	for i := 0; i < n; i++ {
		b.Samples = append(b.Samples, model.Sample{Time: 1_700_000_000_000 + int64(seq)*1000, Host: agent,
			Type: model.NodeMetricNames[i%len(model.NodeMetricNames)], Target: string(rune('a' + i/len(model.NodeMetricNames))), Value: float64(i)})
	}
	return b
}

// post sends body to the handler with the given token and encoding and
// returns the recorded reply.
func post(h http.Handler, token, encoding string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/v1/batches", bytes.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if encoding != "" {
		req.Header.Set("Content-Encoding", encoding)
	}
	req.Header.Set("Content-Type", wire.ContentType)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}
