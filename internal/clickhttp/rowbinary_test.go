package clickhttp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"
)

// TestBytesShortInputCorruptLength: a 5-byte input that declares a 1 GiB
// string fails with a positioned error and allocates about a read step, not
// the declared length (FuzzRowReader grew the worker to 1.3 GB before).
func TestBytesShortInputCorruptLength(t *testing.T) {
	in := binary.AppendUvarint(nil, maxString)
	in = append(in, 'x')
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := NewRowReader(bytes.NewReader(in)).Bytes()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "at byte 5: want string of 1073741824 bytes") {
		t.Fatalf("err = %v", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*readStep {
		t.Errorf("allocated %d bytes for a %d-byte input", got, len(in))
	}
}

// TestBytesLongString: a string longer than a read step reads whole.
func TestBytesLongString(t *testing.T) {
	want := bytes.Repeat([]byte("ab"), readStep+3)
	in := append(binary.AppendUvarint(nil, uint64(len(want))), want...)
	got, err := NewRowReader(bytes.NewReader(in)).Bytes()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("read %d bytes, err %v", len(got), err)
	}
}
