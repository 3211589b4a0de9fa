//go:build !unix

package peer

// cpuNanos is unknown off Unix.
func cpuNanos() int64 { return 0 }
