// Package lines reads a stream one line at a time, lines of any length up to
// a limit, holding at most one line in memory. A longer line is skipped as it
// streams past, never buffered whole, and reported with its length, so a
// hostile or broken input (a 2 GB line) costs no more memory than the limit.
// Runs of blank lines can be skipped in bulk, eight bytes at a time.
//
// The Spark event-log and MapReduce history decoders read through it.
package lines

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// DefaultMax is the default longest line: Spark's largest real lines (an
// environment update with a long classpath, a SQL plan) are a few MiB.
const DefaultMax = 8 << 20

// bufSize is the read buffer; lines that fit are returned without a copy.
const bufSize = 64 << 10

// Line is one line of the stream.
type Line struct {
	// Bytes is the line without its "\n" or "\r\n"; nil when TooLong. It is
	// valid until the next call to Next.
	Bytes []byte
	// Number is the line's number, from 1, blank lines skipped included.
	Number int64
	// Len is the line's length in bytes without the newline, also for a
	// line too long to be returned.
	Len int64
	// TooLong is set when Len exceeds the reader's limit: the line was
	// skipped and Bytes is nil.
	TooLong bool
	// Complete is false for a last line that the stream ended (or failed)
	// inside, before its newline.
	Complete bool
}

// Reader returns the lines of a stream.
type Reader struct {
	br   *bufio.Reader
	buf  []byte // assembles lines longer than the read buffer
	max  int64
	n    int64 // lines consumed
	off  int64 // bytes consumed
	err  error // sticky: returned once the line it cut off was returned
	skip bool
}

// NewReader reads r with a line limit of max bytes (DefaultMax when max <=
// 0). r is used directly when it is a bufio.Reader of at least 64 KiB.
func NewReader(r io.Reader, max int64) *Reader { return newReaderSize(r, max, bufSize) }

func newReaderSize(r io.Reader, max int64, size int) *Reader {
	if max <= 0 {
		max = DefaultMax
	}
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < size {
		br = bufio.NewReaderSize(r, size)
	}
	return &Reader{br: br, max: max}
}

// SkipBlank makes Next skip lines that hold nothing but "\n" or "\r\n",
// many at a time; their numbers still count.
func (r *Reader) SkipBlank() { r.skip = true }

// Max returns the line limit.
func (r *Reader) Max() int64 { return r.max }

// Offset returns the number of bytes consumed so far.
func (r *Reader) Offset() int64 { return r.off }

// Lines returns the number of lines consumed so far, blank ones skipped
// included.
func (r *Reader) Lines() int64 { return r.n }

// Buffered returns the underlying buffered reader, for a caller that
// switches to reading the rest of the stream in another form; Offset stops
// counting what is read through it.
func (r *Reader) Buffered() *bufio.Reader { return r.br }

// Next returns the next line. At the end of the stream it returns io.EOF;
// a read error is returned after the line it cut off (Complete false).
func (r *Reader) Next() (Line, error) {
	for {
		if r.err != nil {
			return Line{}, r.err
		}
		if r.skip {
			r.skipBlank()
		}
		frag, err := r.br.ReadSlice('\n')
		r.off += int64(len(frag))
		if err == bufio.ErrBufferFull {
			return r.long(frag)
		}
		if err != nil {
			r.err = err
			if len(frag) == 0 {
				return Line{}, err
			}
		}
		r.n++
		b := frag
		if err == nil {
			b = trimNewline(frag)
			if r.skip && len(b) == 0 {
				continue
			}
		}
		l := Line{Bytes: b, Number: r.n, Len: int64(len(b)), Complete: err == nil}
		if l.Len > r.max {
			l.Bytes, l.TooLong = nil, true
		}
		return l, nil
	}
}

// long reads the rest of a line longer than the read buffer: assembled in
// buf up to the limit, skipped beyond it.
func (r *Reader) long(frag []byte) (Line, error) {
	r.buf = append(r.buf[:0], frag...)
	total := int64(len(frag))
	tooLong := false
	var prev byte // the byte before frag, to tell "\r\n" split across reads
	var err error = bufio.ErrBufferFull
	for err == bufio.ErrBufferFull {
		prev = frag[len(frag)-1]
		frag, err = r.br.ReadSlice('\n')
		r.off += int64(len(frag))
		total += int64(len(frag))
		if tooLong {
			continue
		}
		if total > r.max+2 { // room for "\r\n"
			tooLong = true
			r.buf = r.buf[:0]
			continue
		}
		r.buf = r.grow(r.buf, len(frag))
		r.buf = append(r.buf, frag...)
	}
	complete := err == nil
	if !complete {
		r.err = err
	}
	r.n++
	if tooLong {
		n := total
		if complete {
			n-- // "\n"
			if len(frag) >= 2 && frag[len(frag)-2] == '\r' || len(frag) == 1 && prev == '\r' {
				n--
			}
		}
		return Line{Number: r.n, Len: n, TooLong: true, Complete: complete}, nil
	}
	line := r.buf
	if complete {
		line = trimNewline(line)
	}
	if int64(len(line)) > r.max {
		return Line{Number: r.n, Len: int64(len(line)), TooLong: true, Complete: complete}, nil
	}
	return Line{Bytes: line, Number: r.n, Len: int64(len(line)), Complete: complete}, nil
}

// grow makes room for n more bytes in b, never beyond the limit: a line
// under the limit costs at most about twice its size.
func (r *Reader) grow(b []byte, n int) []byte {
	need := len(b) + n
	if need <= cap(b) {
		return b
	}
	c := max(2*cap(b), need, bufSize)
	c = min(c, int(r.max)+2)
	c = max(c, need)
	nb := make([]byte, len(b), c)
	copy(nb, b)
	return nb
}

// skipBlank consumes whole lines of "\n" or "\r\n" from the buffer, eight
// bytes at a time through runs of newlines.
func (r *Reader) skipBlank() {
	const nl8 = 0x0a0a0a0a0a0a0a0a
	for {
		if _, err := r.br.Peek(1); err != nil {
			return
		}
		buf, _ := r.br.Peek(r.br.Buffered())
		i, end, lines := 0, 0, int64(0)
		for i < len(buf) {
			if i+8 <= len(buf) && binary.LittleEndian.Uint64(buf[i:]) == nl8 {
				i += 8
				lines += 8
				end = i
				continue
			}
			switch buf[i] {
			case '\n':
				i++
				lines++
				end = i
				continue
			case '\r':
				if i+1 < len(buf) && buf[i+1] == '\n' {
					i += 2
					lines++
					end = i
					continue
				}
			}
			break
		}
		r.br.Discard(end)
		r.off += int64(end)
		r.n += lines
		if end < len(buf) || end == 0 {
			return
		}
	}
}

func trimNewline(b []byte) []byte {
	n := len(b)
	if n > 0 && b[n-1] == '\n' {
		n--
		if n > 0 && b[n-1] == '\r' {
			n--
		}
	}
	return b[:n]
}

// ErrTooLong is wrapped by errors about lines over a reader's limit.
var ErrTooLong = errors.New("line too long")

// TooLong describes a skipped line of n bytes over the limit max, for a
// data-quality record.
func TooLong(n, max int64) string {
	return fmt.Sprintf("line of %d bytes (%s) over the %s line limit: skipped unread", n, IBytes(uint64(n)), IBytes(uint64(max)))
}
