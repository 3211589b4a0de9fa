//go:build !unix

package dataflow

// cpuNanos is unknown off Unix.
func cpuNanos() int64 { return 0 }
