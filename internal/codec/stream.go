package codec

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// countReader counts the bytes read through it and remembers the first
// error of the underlying reader other than io.EOF, so that decoder errors
// can be told apart from read errors and placed at an offset.
type countReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// streamReader adapts a library decoder (zstd, gzip) to this package's
// errors. Offsets in its errors count the compressed bytes consumed when the
// error surfaced; these decoders read ahead, so they are approximate.
type streamReader struct {
	name  string
	codec Codec
	where string
	cr    *countReader
	dec   io.Reader
	init  func() (io.Reader, error) // creates dec on first read; nil once done
	close func()
	err   error
}

func (s *streamReader) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if s.init != nil {
		dec, err := s.init()
		s.init = nil
		if err != nil {
			s.err = s.wrap(err)
			return 0, s.err
		}
		s.dec = dec
	}
	n, err := s.dec.Read(p)
	if err != nil {
		s.err = s.wrap(err)
		if n > 0 {
			return n, nil
		}
	}
	return n, s.err
}

// wrap classifies a decoder error.
func (s *streamReader) wrap(err error) error {
	switch {
	case err == io.EOF:
		return io.EOF
	case s.cr.err != nil && errors.Is(err, s.cr.err):
		return &Error{Name: s.name, Codec: s.codec, Where: s.where, Offset: s.cr.n, Detail: "read", Err: err}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{Name: s.name, Codec: s.codec, Where: s.where, Offset: s.cr.n, Detail: "truncated", Err: io.ErrUnexpectedEOF}
	}
	return &Error{Name: s.name, Codec: s.codec, Where: s.where, Offset: s.cr.n, Err: fmt.Errorf("%w: %w", ErrCorrupt, err)}
}

// Close releases the decoder. It does not close the source.
func (s *streamReader) Close() error {
	if s.close != nil {
		s.close()
		s.close = nil
	}
	s.err = errClosed
	return nil
}

// zstdOptions keep a decoder small: one goroutine, low memory, and windows
// no larger than MaxBlockSize (Spark's are far smaller).
var zstdOptions = []zstd.DOption{
	zstd.WithDecoderConcurrency(1),
	zstd.WithDecoderLowmem(true),
	zstd.WithDecoderMaxWindow(MaxBlockSize),
}

// zstdPool keeps idle decoders: creating one allocates megabytes, and a
// rolling log may have hundreds of small parts.
var zstdPool sync.Pool

func newZstdReader(name string, r io.Reader) (io.ReadCloser, error) {
	cr := &countReader{r: r}
	dec, _ := zstdPool.Get().(*zstd.Decoder)
	if dec == nil {
		var err error
		if dec, err = zstd.NewReader(nil, zstdOptions...); err != nil {
			return nil, &Error{Name: name, Codec: Zstd, Where: "frame", Detail: "new decoder", Err: err}
		}
	}
	if err := dec.Reset(cr); err != nil {
		dec.Close()
		return nil, &Error{Name: name, Codec: Zstd, Where: "frame", Detail: "reset decoder", Err: err}
	}
	release := func() {
		if dec.Reset(nil) == nil {
			zstdPool.Put(dec)
		}
	}
	return &streamReader{name: name, codec: Zstd, where: "frame", cr: cr, dec: dec, close: release}, nil
}

func newGzipReader(name string, r io.Reader) io.ReadCloser {
	cr := &countReader{r: r}
	s := &streamReader{name: name, codec: Gzip, where: "member", cr: cr}
	s.init = func() (io.Reader, error) {
		zr, err := gzip.NewReader(cr)
		if err != nil {
			if err == io.EOF && cr.n == 0 {
				return eofReader{}, nil // an empty file is an empty stream
			}
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		s.close = func() { zr.Close() }
		return zr, nil
	}
	return s
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
