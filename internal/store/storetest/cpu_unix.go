//go:build unix

package storetest

import "syscall"

// cpuSeconds is this process's user+system CPU time: on a shared machine
// throughput per CPU second says more than per wall second.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
