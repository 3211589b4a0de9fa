package collector

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// discardStore accepts every batch; the benchmark measures the handler.
type discardStore struct{ store.Store }

func (discardStore) Append(_ context.Context, _ *wire.Batch) (bool, error) { return false, nil }

// BenchmarkIngest is the collector's cost per 40-sample batch (one node's
// second): authentication, body read, zstd and wire decoding, reply and
// metrics, with a store that keeps nothing.
func BenchmarkIngest(b *testing.B) {
	s, err := New(Config{Store: discardStore{}, Token: testToken, Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handler()
	batch := testBatch("node-017", 1, 40)
	body := wire.EncodeBatch(batch)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	rec := httptest.NewRecorder()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, "/v1/batches", bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Encoding", wire.Encoding)
		rec.Body.Reset()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
	b.ReportMetric(float64(len(batch.Samples))*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}
