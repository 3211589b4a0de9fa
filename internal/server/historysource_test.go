package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/history/historytest"
	"github.com/clusterlens/clusterlens/internal/history/sqlite"
	"github.com/clusterlens/clusterlens/internal/indexer"
	"github.com/clusterlens/clusterlens/internal/shs"
)

// TestStoreListingAtScale: with historytest.ScaleRuns runs in the history
// (10,000 here; docs/PERFORMANCE.md quotes 100,000), serve's first listing
// is ready from the store in under a second of starting, and a listing
// page answers in under 200 ms.
func TestStoreListingAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("scale test")
	}
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs := historytest.FleetRuns(t, historytest.ScaleRuns())
	for i := 0; i < len(runs); i += 1000 {
		e := history.Entry{State: history.LogState{Path: fmt.Sprintf("/fleet/%03d", i/1000)}, Runs: runs[i:min(i+1000, len(runs))]}
		if err := st.Put(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	src := newHistorySource(st, nil, indexer.Options{}, newSourceHealth(nil, slog.New(slog.DiscardHandler)), slog.New(slog.DiscardHandler))
	if err := src.refresh(ctx); err != nil {
		t.Fatal(err)
	}
	ready := time.Since(start)
	h := shs.Handler(src, nil)
	best := time.Duration(1 << 62)
	for range 3 {
		s := time.Now()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/v1/applications?limit=100", nil))
		best = min(best, time.Since(s))
		if rec.Code != http.StatusOK || rec.Body.Len() < 1000 {
			t.Fatalf("listing: %d, %d bytes", rec.Code, rec.Body.Len())
		}
	}
	t.Logf("%d runs: listing ready %s after start; a page of 100 in %s", len(runs), ready.Round(time.Millisecond), best.Round(time.Microsecond))
	if ready > time.Second || best > 200*time.Millisecond {
		t.Errorf("listing ready after %s (want under 1 s), a page in %s (want under 200 ms)", ready, best)
	}
}
