package lines

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// blockLine is a line as a BlockReader gives it: numbered in the stream,
// with where it starts.
type blockLine struct {
	Line
	text        string
	offset, end int64
}

// readBlocks reads in through a BlockReader of the given block size and
// limit, releasing each block before the next.
func readBlocks(in io.Reader, max int64, size int) (out []blockLine, offset int64, err error) {
	br := NewBlockReader(in, max, size)
	var b Block
	var base int64
	for {
		if err := br.Next(&b); err != nil {
			return out, br.Offset(), err
		}
		c := b.Lines(br.Max())
		for l, ok := c.Next(); ok; l, ok = c.Next() {
			l.Number += base
			out = append(out, blockLine{Line: l, text: string(l.Bytes), offset: c.Offset(), end: c.End()})
		}
		base += c.Lines()
		br.Release(&b)
	}
}

// readLines reads in through a Reader skipping blank lines.
func readLines(in io.Reader, max int64) (out []blockLine, err error) {
	r := NewReader(in, max)
	r.SkipBlank()
	for {
		l, err := r.Next()
		if err != nil {
			return out, err
		}
		out = append(out, blockLine{Line: l, text: string(l.Bytes)})
	}
}

var errCut = errors.New("cut")

// FuzzBlockReader checks that blocks give the lines a Reader gives (numbers,
// texts, lengths, lines over the limit, an incomplete last line, the error
// after them), whatever the block size, and where each line starts.
func FuzzBlockReader(f *testing.F) {
	f.Add([]byte("a\r\n\n\nb\nccc"), uint16(2), uint8(3), false)
	f.Add(bytes.Repeat([]byte("\n"), 100), uint16(0), uint8(1), true)
	f.Add([]byte("0123456789abcdefghij\r\n0123456789abcdefghijk\n\r\r\n  \n"), uint16(20), uint8(7), false)
	f.Add([]byte("short\nlonger than the block\r\nx\n"), uint16(100), uint8(4), true)
	f.Fuzz(func(t *testing.T, in []byte, limit uint16, size uint8, fail bool) {
		max := int64(limit) + 1
		stream := func() io.Reader {
			var r io.Reader = bytes.NewReader(in)
			if fail {
				r = io.MultiReader(r, iotest.ErrReader(errCut))
			}
			return iotest.HalfReader(r)
		}
		want, werr := readLines(stream(), max)
		got, offset, gerr := readBlocks(stream(), max, int(size)+1)
		if !errors.Is(gerr, werr) {
			t.Fatalf("error %v, want %v", gerr, werr)
		}
		if offset != int64(len(in)) {
			t.Fatalf("offset %d at the end of %d bytes", offset, len(in))
		}
		if len(got) != len(want) {
			t.Fatalf("%d lines, want %d:\n%+v\n%+v", len(got), len(want), got, want)
		}
		for i, g := range got {
			w := want[i]
			if g.Number != w.Number || g.text != w.text || g.Len != w.Len || g.TooLong != w.TooLong || g.Complete != w.Complete {
				t.Fatalf("line %d = %+v, want %+v", i, g, w)
			}
			if g.offset < 0 || g.offset > int64(len(in)) || (g.offset > 0 && in[g.offset-1] != '\n') ||
				int64(bytes.Count(in[:g.offset], []byte("\n")))+1 != g.Number {
				t.Fatalf("line %d (%+v) said to start at %d", i, g, g.offset)
			}
			if !g.TooLong && !bytes.HasPrefix(in[g.offset:], []byte(g.text)) {
				t.Fatalf("line %d %q is not at %d", i, g.text, g.offset)
			}
			if raw := g.end - g.offset; g.end > int64(len(in)) || raw < g.Len || raw > g.Len+2 ||
				(g.Complete && in[g.end-1] != '\n') || (!g.Complete && g.end != int64(len(in))) {
				t.Fatalf("line %d (%+v) said to end at %d", i, g, g.end)
			}
		}
	})
}

// TestBlockReaderLongLines reads lines longer than the block, under and
// over the limit, with the long buffer handed back between blocks.
func TestBlockReaderLongLines(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 100)
	in := bytes.Join([][]byte{[]byte("a"), long, []byte("b"), append(long, long...), long[:50], []byte("c")}, []byte("\r\n"))
	got, _, err := readBlocks(bytes.NewReader(in), 120, 16)
	if err != io.EOF {
		t.Fatal(err)
	}
	want := []struct {
		text    string
		n       int64
		tooLong bool
	}{{"a", 1, false}, {string(long), 100, false}, {"b", 1, false}, {"", 200, true}, {string(long[:50]), 50, false}, {"c", 1, false}}
	if len(got) != len(want) {
		t.Fatalf("%d lines: %+v", len(got), got)
	}
	for i, w := range want {
		if g := got[i]; g.text != w.text || g.Len != w.n || g.TooLong != w.tooLong || g.Number != int64(i+1) {
			t.Errorf("line %d: %+v, want %+v", i+1, g, w)
		}
	}
}

// TestBlockReaderWaits checks that Waits tells when Next would wait for a
// Release: while a block holds a line longer than a block.
func TestBlockReaderWaits(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 100)
	br := NewBlockReader(bytes.NewReader(append(long, "\nb\n"...)), 1000, 16)
	if br.Waits() {
		t.Fatal("Waits before any block")
	}
	var b Block
	for len(b.Bytes()) < len(long) {
		if err := br.Next(&b); err != nil {
			t.Fatal(err)
		}
	}
	if !br.Waits() {
		t.Fatal("Waits = false while the long line's block is held")
	}
	br.Release(&b)
	if br.Waits() {
		t.Fatal("Waits = true after the long line's block was released")
	}
}
