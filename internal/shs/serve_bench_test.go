package shs

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// largestLog is the real log whose application has the largest stages
// answer in shared/data/logs (757 KB: 75 stages with their task
// summaries, 8,630 task attempts on 8 executors).
const largestLog = "rapids-tools/core/src/test/resources/spark-events-profiling/tasks_executors_fail_compressed_eventlog.zstd"

// BenchmarkServeStages answers GET /applications/{id}/stages for the
// largest real application through the HTTP handler, as serve does.
func BenchmarkServeStages(b *testing.B) {
	apps := loadDir(b, filepath.Join(sharedtest.Dir(b, "logs"), largestLog))
	ix := NewIndex(apps)
	h := Handler(Static(ix), nil)
	req := httptest.NewRequest(http.MethodGet, "/api/v1/applications/"+apps[0].ID+"/stages", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		b.Fatalf("status %d: %s", w.Code, w.Body)
	}
	b.SetBytes(int64(w.Body.Len()))
	b.ReportAllocs()
	cpu0 := sharedtest.ProcessCPU()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
	}
	b.ReportMetric(float64(sharedtest.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}
