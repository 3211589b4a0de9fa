package codec

import (
	"errors"
	"fmt"
	"io"
)

// errClosed is returned by reads after Close.
var errClosed = errors.New("codec: read after close")

// blockDecoder decodes one block of a framed stream at a time.
type blockDecoder interface {
	// next returns the next block's decoded bytes, which stay valid until the
	// following call, or io.EOF at a clean end of stream, or an *Error. It
	// never returns both data and an error.
	next() ([]byte, error)
}

// blockReader turns a blockDecoder into an io.ReadCloser. Every complete
// block is delivered before the error that stops the stream.
type blockReader struct {
	dec blockDecoder
	buf []byte
	err error
}

func newBlockReader(dec blockDecoder) *blockReader { return &blockReader{dec: dec} }

// Read implements io.Reader.
func (b *blockReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for len(b.buf) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		b.buf, b.err = b.dec.next()
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	return n, nil
}

// WriteTo implements io.WriterTo, sparing io.Copy one copy per block.
func (b *blockReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for {
		if len(b.buf) > 0 {
			n, err := w.Write(b.buf)
			total += int64(n)
			b.buf = b.buf[n:]
			if err != nil {
				return total, err
			}
			if len(b.buf) > 0 {
				return total, io.ErrShortWrite
			}
		}
		if b.err != nil {
			if b.err == io.EOF {
				return total, nil
			}
			return total, b.err
		}
		b.buf, b.err = b.dec.next()
	}
}

// Close releases the decoder's buffers. It does not close the source.
func (b *blockReader) Close() error {
	b.buf, b.err, b.dec = nil, errClosed, nil
	return nil
}

// source is the compressed input of a block decoder; it tracks the offset
// for error messages.
type source struct {
	name  string
	codec Codec
	r     io.Reader
	off   int64 // bytes consumed so far
}

func newSource(name string, c Codec, r io.Reader) *source {
	return &source{name: name, codec: c, r: r}
}

// full reads exactly len(p) bytes. Like io.ReadFull it returns io.EOF when no
// byte was read and io.ErrUnexpectedEOF when some were.
func (s *source) full(p []byte) (int, error) {
	n, err := io.ReadFull(s.r, p)
	s.off += int64(n)
	return n, err
}

// payload reads exactly n bytes into buf's storage, growing it as data
// arrives, so that a block declaring a large size in a short stream costs no
// more memory than the stream holds. At end of input it returns what it read
// and io.ErrUnexpectedEOF.
func (s *source) payload(buf []byte, n int) ([]byte, error) {
	if cap(buf) >= n {
		buf = buf[:n]
		k, err := s.full(buf)
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return buf[:k], err
	}
	buf = buf[:0]
	for len(buf) < n {
		step := min(n-len(buf), max(64<<10, len(buf)))
		if cap(buf)-len(buf) < step {
			nb := make([]byte, len(buf), len(buf)+step)
			copy(nb, buf)
			buf = nb
		}
		k, err := s.full(buf[len(buf) : len(buf)+step])
		buf = buf[:len(buf)+k]
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return buf, err
		}
	}
	return buf, nil
}

// fail builds an *Error about the thing (where) that starts at offset at.
func (s *source) fail(where string, at int64, cause error, format string, args ...any) *Error {
	return &Error{Name: s.name, Codec: s.codec, Where: where, Offset: at, Detail: fmt.Sprintf(format, args...), Err: cause}
}

// truncated builds the error for input that ends inside the thing at offset
// at; a read error other than end of input is passed on as the cause.
func (s *source) truncated(where string, at int64, err error, want, got int) *Error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return s.fail(where, at, io.ErrUnexpectedEOF, "truncated: want %d bytes, got %d", want, got)
	}
	return s.fail(where, at, err, "read")
}

func be32(b []byte) uint32 {
	return uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
}
func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
func be16(b []byte) int { return int(b[0])<<8 | int(b[1]) }
