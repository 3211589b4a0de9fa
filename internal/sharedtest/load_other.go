//go:build !linux

package sharedtest

import (
	"context"
	"testing"
)

// GenerateLoad needs Linux (page-cache advice, anonymous mappings); the
// tests that use it compare with Linux tools and skip elsewhere.
func GenerateLoad(ctx context.Context, t testing.TB, dir string) {
	t.Skip("the load generator needs Linux")
}
