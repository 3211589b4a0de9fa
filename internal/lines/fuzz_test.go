package lines

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

// FuzzReader compares the reader with a plain split on "\n" for any input,
// limit and blank skipping: same lines, numbers and lengths, and lines over
// the limit reported as such.
func FuzzReader(f *testing.F) {
	f.Add([]byte("a\r\n\n\nb\nccc"), uint16(2), true)
	f.Add(bytes.Repeat([]byte("\n"), 100), uint16(0), true)
	f.Add([]byte("0123456789abcdefghij\r\n0123456789abcdefghijk\n\r\r\n"), uint16(20), false)
	f.Fuzz(func(t *testing.T, in []byte, limit uint16, skip bool) {
		max := int64(limit) + 1
		// a 16-byte buffer (bufio's least) takes long lines through the slow path
		r := newReaderSize(iotest.HalfReader(bytes.NewReader(in)), max, 16)
		if skip {
			r.SkipBlank()
		}
		want := reference(in)
		i := 0
		for {
			l, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for skip && i < len(want) && want[i] == "" && l.Number != int64(i+1) {
				i++
			}
			if i >= len(want) {
				t.Fatalf("extra line %+v", l)
			}
			w := want[i]
			i++
			if l.Number != int64(i) {
				t.Fatalf("line %q numbered %d, want %d", w, l.Number, i)
			}
			wlen := int64(len(w))
			if l.TooLong != (wlen > max) {
				t.Fatalf("line %d of %d bytes: too long %v with limit %d", i, wlen, l.TooLong, max)
			}
			if !l.TooLong && string(l.Bytes) != w {
				t.Fatalf("line %d = %q, want %q", i, l.Bytes, w)
			}
			if l.Len != wlen {
				t.Fatalf("line %d: len %d, want %d", i, l.Len, wlen)
			}
		}
		for skip && i < len(want) && want[i] == "" {
			i++
		}
		if i != len(want) {
			t.Fatalf("read %d lines, want %d", i, len(want))
		}
	})
}
