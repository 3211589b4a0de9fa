//go:build !linux

package sampler

import (
	"fmt"
	"runtime"
)

func init() { Register("perf", false, newPerfSampler) }

// newPerfSampler: hardware counters are read through Linux's
// perf_event_open; elsewhere the sampler says so.
func newPerfSampler(Config) (Sampler, error) {
	return nil, fmt.Errorf("%w: hardware counters need Linux's perf_event_open, not %s", ErrUnsupported, runtime.GOOS)
}
