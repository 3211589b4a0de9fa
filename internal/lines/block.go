package lines

import (
	"bytes"
	"encoding/binary"
	"io"
)

// DefaultBlock is the size of the blocks a BlockReader reads: large enough
// that the page cache's copies cost less system time per byte than 64 KiB
// reads, small enough that a block is still in the core's L2 cache when it
// is parsed (1 MiB blocks decoded 3–7% fewer bytes per CPU-second;
// docs/PERFORMANCE.md).
const DefaultBlock = 256 << 10

// BlockReader reads a stream in blocks of whole lines, each read straight
// into its block's buffer: a line is copied only when a block ends inside
// it (to the next block) or when it is longer than a block (assembled in
// one buffer the reader keeps for that, up to the limit). Lines keep the
// Reader's meaning: a line over the limit is skipped unread and reported
// with its length, blank lines are skipped and counted, a last line the
// stream ends inside is reported incomplete.
//
// Blocks are owned by the caller, who may hand them to other goroutines
// to read; the reader must be told when a block's lines are no longer
// used (Release) before the block is filled again.
type BlockReader struct {
	r   io.Reader
	max int64
	// size is the next block's size: a sixteenth of the full size first (a
	// small log costs no more than a small read buffer), doubling to full.
	size  int
	full  int
	carry []byte // the start of a line the previous block cut off
	off   int64  // stream offset of carry[0]
	err   error  // the stream's end or failure, once the data before it is out
	long  chan []byte
}

// Block is a run of whole lines of a stream, or one line that was skipped.
type Block struct {
	buf     []byte // the block's buffer
	data    []byte // whole lines, in buf or in the reader's long buffer
	long    bool   // data is in the reader's long buffer
	skipped Line   // a line over the limit: data is empty
	offset  int64  // stream offset of data[0] (or of the skipped line)
	size    int64  // stream bytes of the skipped line, its newline included
	cut     bool   // the stream ended or failed inside data's last line
}

// NewBlockReader reads r in blocks of size bytes (DefaultBlock when size
// <= 0) with a line limit of limit bytes (DefaultMax when limit <= 0).
func NewBlockReader(r io.Reader, limit int64, size int) *BlockReader {
	if limit <= 0 {
		limit = DefaultMax
	}
	if size <= 0 {
		size = DefaultBlock
	}
	br := &BlockReader{r: r, max: limit, size: max(size/16, 1), full: size, long: make(chan []byte, 1)}
	br.long <- nil
	return br
}

// Max returns the line limit.
func (r *BlockReader) Max() int64 { return r.max }

// Offset returns the stream bytes returned in blocks so far.
func (r *BlockReader) Offset() int64 { return r.off }

// read reads into p once, keeping the stream's end or error; a reader
// that keeps returning nothing fails as bufio's does.
func (r *BlockReader) read(p []byte) int {
	for range 100 {
		n, err := r.r.Read(p)
		if err != nil {
			r.err = err
		}
		if n > 0 || err != nil {
			return n
		}
	}
	r.err = io.ErrNoProgress
	return 0
}

// Next fills b with the next lines. It returns io.EOF once the stream
// ended and every line was returned, or the read error that stopped it
// (after the lines read before it, the last one incomplete).
func (r *BlockReader) Next(b *Block) error {
	if len(r.carry) == 0 && r.err != nil {
		return r.err
	}
	if cap(b.buf) < r.size {
		b.buf = make([]byte, r.size)
	}
	buf := b.buf[:r.size]
	r.size = min(2*r.size, r.full)
	n := copy(buf, r.carry) // memmove: the carry may be in buf itself
	r.carry = nil
	*b = Block{buf: b.buf, offset: r.off}
	for n < len(buf) && r.err == nil {
		n += r.read(buf[n:])
	}
	if r.err != nil {
		// The stream ended (or failed) within the buffer: every line is out.
		b.data, b.cut = buf[:n], n > 0 && buf[n-1] != '\n'
		r.off += int64(n)
		r.carry = nil
		if n == 0 {
			return r.err
		}
		return nil
	}
	if i := bytes.LastIndexByte(buf, '\n'); i >= 0 {
		b.data = buf[:i+1]
		r.carry = buf[i+1:]
		r.off += int64(i + 1)
		return nil
	}
	return r.longLine(b, buf)
}

// longLine reads a line longer than a block, whose first bytes fill buf:
// into the long buffer up to the limit, or skipped past it.
func (r *BlockReader) longLine(b *Block, buf []byte) error {
	long := <-r.long
	long = append(long[:0], buf...)
	// Up to limit+1 bytes: a line (with its newline) of more than limit is
	// over the limit, whatever follows it.
	limit := int(min(r.max+2, int64(^uint(0)>>2))) // room for "\r\n"
	nl := -1
	for nl < 0 && len(long) <= limit && r.err == nil {
		if len(long) == cap(long) {
			grown := make([]byte, len(long), min(max(2*cap(long), len(long)+r.size), limit+1))
			copy(grown, long)
			long = grown
		}
		chunk := long[len(long):min(cap(long), len(long)+r.size)]
		m := r.read(chunk)
		if i := bytes.IndexByte(chunk[:m], '\n'); i >= 0 {
			nl = len(long) + i
		}
		long = long[:len(long)+m]
	}
	switch {
	case nl >= 0 && nl <= limit-1: // the line and its newline fit the limit
		b.data, b.long = long[:nl+1], true
		r.carry = long[nl+1:]
		r.off += int64(nl + 1)
		r.skipOver(b, long)
		return nil
	case r.err != nil && nl < 0 && len(long) <= limit:
		b.data, b.long, b.cut = long, true, true
		r.off += int64(len(long))
		r.carry = nil
		r.skipOver(b, long)
		return nil
	}
	// Over the limit: the rest of the line is read through buf and dropped.
	total := int64(len(long))
	prev := long[len(long)-1]
	if nl >= 0 {
		total = int64(nl + 1)
		r.carry = long[nl+1:]
		if nl > 0 {
			prev = long[nl-1]
		}
	}
	r.long <- long
	for nl < 0 && r.err == nil {
		m := r.read(buf)
		if i := bytes.IndexByte(buf[:m], '\n'); i >= 0 {
			nl = i
			if i > 0 {
				prev = buf[i-1]
			}
			total += int64(i + 1)
			r.carry = buf[i+1 : m]
			break
		}
		if m > 0 {
			prev = buf[m-1]
		}
		total += int64(m)
	}
	b.skipped = Line{Number: 1, Len: total, TooLong: true, Complete: nl >= 0}
	if nl >= 0 {
		b.skipped.Len-- // "\n"
		if prev == '\r' {
			b.skipped.Len--
		}
	}
	b.size = total
	r.off += total
	return nil
}

// lineLen is the length of the block's one line without its newline.
func (b *Block) lineLen() int64 {
	n := len(b.data)
	if !b.cut {
		n = len(trimNewline(b.data))
	}
	return int64(n)
}

// skipOver turns the block's one line, in the long buffer, into a line
// skipped when it is over the limit, and gives the buffer back.
func (r *BlockReader) skipOver(b *Block, long []byte) {
	if n := b.lineLen(); n > r.max {
		b.skipped = Line{Number: 1, Len: n, TooLong: true, Complete: !b.cut}
		b.size = int64(len(b.data))
		b.data, b.long = nil, false
		r.long <- long
	}
}

// Release tells the reader that b's lines are no longer used.
func (r *BlockReader) Release(b *Block) {
	if b.long {
		r.long <- b.data[:0]
		b.long, b.data = false, nil
	}
}

// Waits reports whether Next may wait for a Release: a block returned
// earlier holds the reader's buffer for lines longer than a block.
func (r *BlockReader) Waits() bool { return len(r.long) == 0 }

// Bytes returns the block's data: its lines with their newlines.
func (b *Block) Bytes() []byte { return b.data }

// Lines returns a cursor over the block's lines, limited to max bytes.
func (b *Block) Lines(max int64) Cursor { return Cursor{b: b, max: max} }

// Cursor walks the lines of a block.
type Cursor struct {
	b     *Block
	max   int64
	pos   int
	n     int64 // lines passed
	start int   // where the last line returned starts
	done  bool
}

// Next returns the block's next line that is not blank (blank lines, "\n"
// or "\r\n", are passed and counted), numbered from 1 within the block;
// false at the block's end.
func (c *Cursor) Next() (Line, bool) {
	b := c.b
	if c.done {
		return Line{}, false
	}
	if b.data == nil {
		c.done = true
		if !b.skipped.TooLong {
			return Line{}, false
		}
		c.n = 1
		return b.skipped, true
	}
	data := b.data
	i := c.pos
	// Runs of blank lines, eight bytes at a time.
	const nl8 = 0x0a0a0a0a0a0a0a0a
	for i < len(data) {
		if i+8 <= len(data) && binary.LittleEndian.Uint64(data[i:]) == nl8 {
			i += 8
			c.n += 8
			continue
		}
		if data[i] == '\n' {
			i++
			c.n++
			continue
		}
		if data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i += 2
			c.n++
			continue
		}
		break
	}
	if i >= len(data) {
		c.pos, c.done = i, true
		return Line{}, false
	}
	c.start = i
	c.n++
	j := bytes.IndexByte(data[i:], '\n')
	var l Line
	if j < 0 { // the stream ended inside the last line
		l = Line{Bytes: data[i:], Number: c.n, Len: int64(len(data) - i)}
		c.pos = len(data)
	} else {
		line := trimNewline(data[i : i+j+1])
		l = Line{Bytes: line, Number: c.n, Len: int64(len(line)), Complete: true}
		c.pos = i + j + 1
	}
	if l.Len > c.max {
		l.Bytes, l.TooLong = nil, true
	}
	return l, true
}

// Lines returns the lines passed so far, blank ones included; once Next
// returned false, the block's line count.
func (c *Cursor) Lines() int64 { return c.n }

// End returns the stream offset after the last line returned and its
// newline.
func (c *Cursor) End() int64 {
	if c.b.data == nil {
		return c.b.offset + c.b.size
	}
	return c.b.offset + int64(c.pos)
}

// Offset returns the stream offset where the last line returned starts.
func (c *Cursor) Offset() int64 {
	if c.b.data == nil {
		return c.b.offset
	}
	return c.b.offset + int64(c.start)
}
