package codec

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/clusterlens/clusterlens/internal/lines"
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
	// window is the history the decoder keeps (zstd), 0 when not known.
	window int64
	// classify, when set, turns a decoder error into a codec-specific one
	// (or returns nil for the usual classification).
	classify func(error) error
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
	if s.classify != nil && err != io.EOF {
		if e := s.classify(err); e != nil {
			return e
		}
	}
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

// zstdOptions keep a decoder small: one goroutine and low memory. The
// window limit is set per decoder (zstdDecoder).
var zstdOptions = []zstd.DOption{
	zstd.WithDecoderConcurrency(1),
	zstd.WithDecoderLowmem(true),
}

// zstdPool keeps idle decoders of the default window limit that decoded
// small windows: creating one allocates megabytes, and a rolling log may
// have hundreds of small parts. A decoder that held a large window is
// dropped rather than kept with its history buffer.
var zstdPool sync.Pool

// zstdPooledWindow is the largest window whose decoder goes back to the pool.
const zstdPooledWindow = 8 << 20

// zstdDecoder returns a decoder accepting windows up to maxWindow, and
// whether it may go back to the pool.
func zstdDecoder(maxWindow int64) (*zstd.Decoder, bool, error) {
	pooled := maxWindow == DefaultMaxWindow
	if pooled {
		if dec, _ := zstdPool.Get().(*zstd.Decoder); dec != nil {
			return dec, true, nil
		}
	}
	opts := append(zstdOptions[:len(zstdOptions):len(zstdOptions)], zstd.WithDecoderMaxWindow(uint64(max(maxWindow, zstd.MinWindowSize))))
	dec, err := zstd.NewReader(nil, opts...)
	return dec, pooled, err
}

// zstdWindow reads the window the first frame of a zstd stream declares:
// the history a decoder must keep (a single-segment frame keeps its whole
// content). ok is false when the header cannot be read (a skippable frame
// first, or a stream too short): the decoder then checks each frame itself.
func zstdWindow(br *bufio.Reader) (window int64, ok bool) {
	head, _ := br.Peek(zstd.HeaderMaxSize)
	var h zstd.Header
	if h.Decode(head) != nil || h.Skippable {
		return 0, false
	}
	w := h.WindowSize
	if h.SingleSegment {
		w = max(h.FrameContentSize, zstd.MinWindowSize)
	}
	if w > 1<<62 {
		w = 1 << 62
	}
	return int64(w), true
}

func newZstdReader(name string, r io.Reader, maxWindow int64) (io.ReadCloser, error) {
	if maxWindow <= 0 {
		maxWindow = DefaultMaxWindow
	}
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < zstd.HeaderMaxSize {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	window, known := zstdWindow(br)
	if known && window > maxWindow {
		return nil, windowError(name, 0, window, maxWindow)
	}
	cr := &countReader{r: br}
	dec, pooled, err := zstdDecoder(maxWindow)
	if err != nil {
		return nil, &Error{Name: name, Codec: Zstd, Where: "frame", Detail: "new decoder", Err: err}
	}
	if err := dec.Reset(cr); err != nil {
		dec.Close()
		return nil, &Error{Name: name, Codec: Zstd, Where: "frame", Detail: "reset decoder", Err: err}
	}
	release := func() {
		if pooled && window <= zstdPooledWindow && dec.Reset(nil) == nil {
			zstdPool.Put(dec)
			return
		}
		dec.Close()
	}
	sr := &streamReader{name: name, codec: Zstd, where: "frame", cr: cr, dec: dec, close: release, window: window}
	sr.classify = func(err error) error {
		if errors.Is(err, zstd.ErrWindowSizeExceeded) || errors.Is(err, zstd.ErrDecoderSizeExceeded) {
			// A later frame declares more than the limit (the first was checked above).
			return windowError(name, cr.n, 0, maxWindow)
		}
		return nil
	}
	return sr, nil
}

// windowError refuses a zstd frame whose window (0: not known) is over the
// limit, naming both.
func windowError(name string, off, window, limit int64) error {
	detail := fmt.Sprintf("a frame's window is over the limit of %s", lines.IBytes(uint64(limit)))
	if window > 0 {
		detail = fmt.Sprintf("window of %s (%d bytes), limit %s", lines.IBytes(uint64(window)), window, lines.IBytes(uint64(limit)))
	}
	return &Error{Name: name, Codec: Zstd, Where: "frame", Offset: off, Detail: detail, Err: ErrWindowTooLarge}
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
