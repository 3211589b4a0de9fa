//go:build unix

package sharedtest

import (
	"syscall"
	"time"
)

// ProcessCPU is the user plus system CPU time the whole process has used so
// far (getrusage RUSAGE_SELF). Benchmarks report work per CPU-second with it:
// on a shared machine it measures work done rather than wall time waited, and
// it counts every goroutine a parallel algorithm starts and the collector's
// work, which the calling thread's own time (RUSAGE_THREAD) misses.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
