//go:build !unix

package sharedtest

import "time"

// ProcessCPU is unknown off Unix.
func ProcessCPU() time.Duration { return 0 }
