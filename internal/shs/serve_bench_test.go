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
// largest real application: encode computes and encodes the answer every
// time (Get and Marshal), encode-encoder-indent likewise with json.Encoder's
// indentation (Marshal before appendIndented), http serves it through the
// handler as serve does, from the cache after the first request.
func BenchmarkServeStages(b *testing.B) {
	apps := loadDir(b, filepath.Join(sharedtest.Dir(b, "logs"), largestLog))
	ix := NewIndex(apps)
	path := "/api/v1/applications/" + apps[0].ID + "/stages"
	for _, enc := range []struct {
		name    string
		marshal func(any) ([]byte, error)
	}{{"encode", Marshal}, {"encode-encoder-indent", encoderIndent}} {
		b.Run(enc.name, func(b *testing.B) {
			cpuBench(b, func() int {
				v, err := ix.Get(path, nil)
				if err != nil {
					b.Fatal(err)
				}
				body, err := enc.marshal(v)
				if err != nil {
					b.Fatal(err)
				}
				return len(body)
			})
		})
	}
	h := Handler(Static(ix), nil)
	req := httptest.NewRequest(http.MethodGet, path, nil)
	b.Run("http", func(b *testing.B) {
		cpuBench(b, func() int {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatalf("status %d: %s", w.Code, w.Body)
			}
			return w.Body.Len()
		})
	})
}

// cpuBench runs answer, which returns the bytes it answered, reporting the
// process's CPU time per answer beside the wall time.
func cpuBench(b *testing.B, answer func() int) {
	b.SetBytes(int64(answer()))
	b.ReportAllocs()
	cpu0 := sharedtest.ProcessCPU()
	for b.Loop() {
		answer()
	}
	b.ReportMetric(float64(sharedtest.ProcessCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}
