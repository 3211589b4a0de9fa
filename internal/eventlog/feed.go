package eventlog

import (
	"bytes"
	"fmt"
	"io"

	"github.com/clusterlens/clusterlens/internal/lines"
)

// feed decodes the lines of r, numbered from firstLine+1, read in blocks
// (lines.BlockReader), on this goroutine or, with d.Parallel, with the
// task events parsed by workers (parallel.go). growing is FeedLines: it
// stops before a last line the stream ends inside (returned as tail) and
// leaves the end of input unlabelled. consumed and lineCount are the bytes
// and lines of r taken.
func (d *Decoder) feed(name string, r io.Reader, firstLine int64, growing bool) (consumed, lineCount int64, tail []byte, err error) {
	f := &feeding{name: name, first: firstLine, growing: growing, br: lines.NewBlockReader(r, d.MaxLine, d.blockSize)}
	if p := d.Parallel; p != nil && p.Workers > 0 {
		err = d.feedParallel(f, p)
	} else {
		err = d.feedBlocks(f)
	}
	return f.consumed, f.lines, f.tail, err
}

// feeding is where a feed stands in its stream.
type feeding struct {
	name     string
	first    int64 // the line number before the stream's first
	growing  bool
	br       *lines.BlockReader
	base     int64 // the stream's lines before the current block
	consumed int64 // bytes through the last line decoded (the end, at the end)
	lines    int64 // lines taken, once the feed ended
	tail     []byte
	stopped  bool // a growing feed met its unfinished last line
}

// feedBlocks reads and decodes every block on this goroutine.
func (d *Decoder) feedBlocks(f *feeding) error {
	var b lines.Block
	for {
		if err := f.br.Next(&b); err != nil {
			return d.ended(f, err)
		}
		c := b.Lines(f.br.Max())
		d.decodeBlock(f, &c)
		f.br.Release(&b)
		if f.stopped {
			return nil
		}
	}
}

// decodeBlock decodes the lines of a block.
func (d *Decoder) decodeBlock(f *feeding, c *lines.Cursor) {
	for l, ok := c.Next(); ok; l, ok = c.Next() {
		if f.stop(l, c.Offset()) {
			return
		}
		d.line = f.first + f.base + l.Number
		d.decodeRead(l, f.br.Max())
		f.consumed = c.End()
	}
	f.base += c.Lines()
}

// stop reports whether a growing feed ends before line l, which starts at
// offset: the last line, which the writer has not finished. It keeps the
// line (without a CR, nil when blank) as the tail to read next time.
func (f *feeding) stop(l lines.Line, offset int64) bool {
	if !f.growing || l.Complete {
		return false
	}
	if t := bytes.TrimRight(l.Bytes, "\r"); len(bytes.TrimSpace(t)) > 0 {
		f.tail = bytes.Clone(t)
	}
	f.consumed, f.lines, f.stopped = offset, f.base+l.Number-1, true
	return true
}

// ended finishes a feed at the stream's end (io.EOF) or a read error.
func (d *Decoder) ended(f *feeding, err error) error {
	if err == io.EOF {
		if !f.growing {
			d.endOfInput()
		}
		f.consumed, f.lines = f.br.Offset(), f.base
		return nil
	}
	d.app.Quality.Truncated = true
	d.app.Quality.Add(f.name, d.line, "read error: "+err.Error())
	f.lines = d.line - f.first
	return fmt.Errorf("read %q after line %d: %w", f.name, d.line, err)
}
