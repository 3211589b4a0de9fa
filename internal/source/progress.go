package source

import (
	"io"
	"sync/atomic"
)

// CountingReader counts the bytes read through it and reports each read to
// a callback, for progress bars. Count is safe to call from another goroutine.
type CountingReader struct {
	r  io.Reader
	n  atomic.Int64
	fn func(n int64)
}

// NewCountingReader returns a reader counting what it reads from r; fn, when
// not nil, is called with the size of every non-empty read.
func NewCountingReader(r io.Reader, fn func(n int64)) *CountingReader {
	return &CountingReader{r: r, fn: fn}
}

// Read implements io.Reader.
func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 {
		c.n.Add(int64(n))
		if c.fn != nil {
			c.fn(int64(n))
		}
	}
	return n, err
}

// Count returns the number of bytes read so far.
func (c *CountingReader) Count() int64 { return c.n.Load() }
