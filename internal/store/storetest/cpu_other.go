//go:build !unix

package storetest

// cpuSeconds is 0 where getrusage is missing: the benchmarks then report
// samples per wall second only.
func cpuSeconds() float64 { return 0 }
