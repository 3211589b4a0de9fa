package stats

import (
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// cpuTimer reports the process's CPU ns/op alongside a benchmark's
// wall-clock ns/op: every thread's, since an EM pass runs on GOMAXPROCS
// goroutines (the calling thread's own time missed nearly all of it).
func cpuTimer(b *testing.B) func() {
	start := sharedtest.ProcessCPU()
	return func() {
		b.ReportMetric(float64(sharedtest.ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}
