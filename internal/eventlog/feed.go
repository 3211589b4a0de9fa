package eventlog

import (
	"bytes"
	"fmt"
	"io"

	"github.com/clusterlens/clusterlens/internal/lines"
)

// feed decodes the lines of r, numbered from firstLine+1, read in blocks
// (lines.BlockReader). growing is FeedLines: it stops before a last line
// the stream ends inside (returned as tail) and leaves the end of input
// unlabelled. consumed and lines are the bytes and lines of r taken.
func (d *Decoder) feed(name string, r io.Reader, firstLine int64, growing bool) (consumed, lineCount int64, tail []byte, err error) {
	br := lines.NewBlockReader(r, d.MaxLine, d.blockSize)
	max := br.Max()
	var b lines.Block
	var base int64 // lines of r before the block
	for {
		if err := br.Next(&b); err != nil {
			if err == io.EOF {
				if !growing {
					d.endOfInput()
				}
				return br.Offset(), base, nil, nil
			}
			d.app.Quality.Truncated = true
			d.app.Quality.Add(name, d.line, "read error: "+err.Error())
			return consumed, d.line - firstLine, nil, fmt.Errorf("read %q after line %d: %w", name, d.line, err)
		}
		c := b.Lines(max)
		for l, ok := c.Next(); ok; l, ok = c.Next() {
			if growing && !l.Complete {
				// A last line without its newline is left for the next pass.
				if t := bytes.TrimRight(l.Bytes, "\r"); len(bytes.TrimSpace(t)) > 0 {
					tail = bytes.Clone(t)
				}
				return c.Offset(), base + l.Number - 1, tail, nil
			}
			d.line = firstLine + base + l.Number
			d.decodeRead(l, max)
			consumed = c.End()
		}
		base += c.Lines()
		br.Release(&b)
	}
}
