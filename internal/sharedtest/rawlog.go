package sharedtest

import (
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// RawLog opens an event log for a test's own independent reading (with
// encoding/json, not internal/eventlog): plain, zstd-compressed when its
// name ends in .zstd, gzip-compressed when in .gz. The file is closed when
// the test ends.
func RawLog(t testing.TB, path string) io.Reader {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return z
	}
	if !strings.HasSuffix(path, ".zstd") {
		return f
	}
	z, err := zstd.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	t.Cleanup(z.Close)
	return z
}
