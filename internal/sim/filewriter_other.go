//go:build !linux

package sim

import (
	"errors"
	"os"
)

// errDirectRefused never matches: there is no direct I/O here.
var errDirectRefused = errors.New("direct I/O refused")

// openDirect creates path; direct I/O is used on Linux only.
func openDirect(path string) (*os.File, bool, error) {
	f, err := os.Create(path)
	return f, false, err
}

// clearDirect has nothing to turn off.
func clearDirect(*os.File) error { return nil }
