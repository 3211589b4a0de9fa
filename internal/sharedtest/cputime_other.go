//go:build !unix

package sharedtest

import "time"

var processStart = time.Now()

// ProcessCPU falls back to the wall time since the process started where
// getrusage is missing: at least the CPU time of one thread, so budgets
// checked against it hold.
func ProcessCPU() time.Duration { return time.Since(processStart) }
