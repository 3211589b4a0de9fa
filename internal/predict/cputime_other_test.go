//go:build !unix

package predict

import "time"

var cpuStart = time.Now()

// cpuNanos falls back to wall time where getrusage is missing.
func cpuNanos() int64 { return int64(time.Since(cpuStart)) }
