package lines

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// reference splits b the simple way: every "\n" ends a line, a last line
// without one counts, "\r\n" loses its "\r".
func reference(b []byte) (out []string) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out = append(out, string(b))
			break
		}
		out = append(out, strings.TrimSuffix(string(b[:i]), "\r"))
		b = b[i+1:]
	}
	return out
}

func isBlank(s string) bool { return s == "" }

// readAll collects what Next returns.
func readAll(t *testing.T, r *Reader) (got []Line, texts []string, err error) {
	for {
		l, err := r.Next()
		if err != nil {
			return got, texts, err
		}
		texts = append(texts, string(l.Bytes))
		l.Bytes = nil
		got = append(got, l)
	}
}

func TestLines(t *testing.T) {
	in := "a\r\n\nbc\n\n\n\r\n  \nlast"
	for _, skip := range []bool{false, true} {
		r := NewReader(iotest.OneByteReader(strings.NewReader(in)), 0)
		if skip {
			r.SkipBlank()
		}
		got, texts, err := readAll(t, r)
		if err != io.EOF {
			t.Fatalf("err %v", err)
		}
		want := reference([]byte(in))
		var wantTexts []string
		var wantNums []int64
		for i, w := range want {
			if skip && isBlank(w) {
				continue
			}
			wantTexts = append(wantTexts, w)
			wantNums = append(wantNums, int64(i+1))
		}
		if strings.Join(texts, "|") != strings.Join(wantTexts, "|") {
			t.Fatalf("skip %v: lines %q, want %q", skip, texts, wantTexts)
		}
		for i, l := range got {
			if l.Number != wantNums[i] || l.Len != int64(len(texts[i])) || l.Complete != (i < len(got)-1) {
				t.Errorf("skip %v: line %d = %+v, want number %d", skip, i, l, wantNums[i])
			}
		}
		if r.Offset() != int64(len(in)) {
			t.Errorf("offset %d, want %d", r.Offset(), len(in))
		}
	}
}

func TestLongLineUnderTheLimit(t *testing.T) {
	long := strings.Repeat("x", 300<<10)
	r := NewReader(strings.NewReader("a\n"+long+"\r\nb\n"), 1<<20)
	_, texts, _ := readAll(t, r)
	if len(texts) != 3 || texts[1] != long || texts[2] != "b" {
		t.Fatalf("got %d lines, second of %d bytes", len(texts), len(texts[1]))
	}
}

// TestTooLongLineIsNotBuffered streams a 1 GiB line past a 1 MiB limit: it
// is reported with its length, the lines around it are read, and the reader
// allocates about the limit, not the line.
func TestTooLongLineIsNotBuffered(t *testing.T) {
	const size = 1 << 30
	in := io.MultiReader(strings.NewReader("first\n"), sharedtest.Repeat('x', size), strings.NewReader("\nafter\n"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := NewReader(in, 1<<20)
	got, texts, err := readAll(t, r)
	runtime.ReadMemStats(&after)
	if err != io.EOF || len(got) != 3 {
		t.Fatalf("err %v, %d lines", err, len(got))
	}
	if !got[1].TooLong || got[1].Len != size || texts[1] != "" || got[1].Number != 2 || !got[1].Complete {
		t.Errorf("long line = %+v", got[1])
	}
	if texts[0] != "first" || texts[2] != "after" || got[2].Number != 3 {
		t.Errorf("lines around it: %q", texts)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("allocated %d MiB for a 1 GiB line over a 1 MiB limit", alloc>>20)
	}
}

func TestTooLongLastLineWithoutNewline(t *testing.T) {
	r := NewReader(io.MultiReader(strings.NewReader("a\n"), sharedtest.Repeat('y', 200<<10)), 100<<10)
	got, _, err := readAll(t, r)
	if err != io.EOF || len(got) != 2 || !got[1].TooLong || got[1].Len != 200<<10 || got[1].Complete {
		t.Fatalf("err %v, lines %+v", err, got)
	}
}

func TestExactlyAtTheLimit(t *testing.T) {
	limit := int64(70 << 10)
	line := strings.Repeat("z", int(limit))
	r := NewReader(strings.NewReader(line+"\r\n"+line+"z\n"), limit)
	got, texts, _ := readAll(t, r)
	if len(got) != 2 || got[0].TooLong || texts[0] != line || !got[1].TooLong || got[1].Len != limit+1 {
		t.Fatalf("lines %+v", got)
	}
}

func TestReadErrorAfterPartialLine(t *testing.T) {
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("one\ntw"), iotest.ErrReader(boom)), 0)
	got, texts, err := readAll(t, r)
	if err != boom || len(got) != 2 || texts[1] != "tw" || got[1].Complete {
		t.Fatalf("err %v, lines %q %+v", err, texts, got)
	}
}

// TestBlankRuns checks bulk skipping at every alignment against the
// reference, with a small buffer boundary in the middle of runs.
func TestBlankRuns(t *testing.T) {
	for n := 0; n < 40; n++ {
		in := "x\n" + strings.Repeat("\n", n) + "\r\n" + strings.Repeat("\n", n/3) + "y"
		r := NewReader(iotest.HalfReader(strings.NewReader(in)), 0)
		r.SkipBlank()
		got, texts, _ := readAll(t, r)
		if len(got) != 2 || texts[0] != "x" || texts[1] != "y" || got[1].Number != int64(len(reference([]byte(in)))) {
			t.Fatalf("n=%d: %q %+v", n, texts, got)
		}
	}
}
