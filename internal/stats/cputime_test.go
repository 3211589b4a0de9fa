package stats

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// threadCPU is the CPU time consumed by the calling OS thread. On a shared
// machine it measures work done rather than wall time waited.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	const rusageThread = 1 // RUSAGE_THREAD (Linux)
	if err := syscall.Getrusage(rusageThread, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuTimer reports CPU ns/op alongside a benchmark's wall-clock ns/op; the
// goroutine is locked to its thread so the thread's CPU time is its own.
func cpuTimer(b *testing.B) func() {
	runtime.LockOSThread()
	start := threadCPU()
	return func() {
		b.ReportMetric(float64((threadCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		runtime.UnlockOSThread()
	}
}
