package codec

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Writer compresses a stream in one of Spark's framings, so that the
// simulator and tests can write logs Spark (and Open) can read.
type Writer interface {
	io.WriteCloser
	// Flush writes buffered data as complete blocks, like lz4-java with
	// syncFlush, snappy-java's flush and LZF's finishBlockOnFlush (Spark's
	// own lz4 streams do not sync on flush: they write only full blocks).
	Flush() error
}

// DefaultBlockSize is the block size Spark uses for lz4 and snappy
// (spark.io.compression.lz4.blockSize, spark.io.compression.snappy.blockSize).
const DefaultBlockSize = 32 << 10

// NewWriter returns a Writer compressing into w as codec c with Spark's
// default settings. Close writes the stream's end; it does not close w.
func NewWriter(c Codec, w io.Writer) (Writer, error) {
	switch c {
	case None:
		return nopWriter{w}, nil
	case Gzip:
		zw, _ := gzipWriters.Get().(*gzip.Writer)
		if zw == nil {
			return &pooledWriter{Writer: gzip.NewWriter(w), pool: &gzipWriters}, nil
		}
		zw.Reset(w)
		return &pooledWriter{Writer: zw, pool: &gzipWriters}, nil
	case Zstd:
		zw, _ := zstdWriters.Get().(*zstd.Encoder)
		if zw == nil {
			var err error
			zw, err = zstd.NewWriter(w, zstdWriterOptions...)
			if err != nil {
				return nil, fmt.Errorf("codec: zstd writer: %w", err)
			}
		} else {
			zw.Reset(w)
		}
		return &pooledWriter{Writer: zw, pool: &zstdWriters}, nil
	case LZ4:
		return newLZ4Writer(w, DefaultBlockSize), nil
	case Snappy:
		return &blockWriter{w: w, size: DefaultBlockSize, enc: &snappyEncoder{}}, nil
	case LZF:
		return &blockWriter{w: w, size: lzfMaxChunk, enc: &lzfEncoder{}}, nil
	}
	return nil, fmt.Errorf("codec: unknown codec %v", c)
}

// zstdWriterOptions are Spark's zstd settings (ZStdCompressionCodec through
// zstd-jni's ZstdOutputStreamNoFinalizer): level 1
// (spark.io.compression.zstd.level), which is klauspost's SpeedFastest;
// the 512 KiB window (windowLog 19) libzstd uses at level 1 for a stream of
// unknown size; and no content checksum, zstd-jni's default. One encoder
// goroutine: the caller writes from one goroutine anyway, and blocks are
// then compressed as they fill, without hand-offs.
var zstdWriterOptions = []zstd.EOption{
	zstd.WithEncoderLevel(zstd.SpeedFastest),
	zstd.WithEncoderConcurrency(1),
	zstd.WithWindowSize(1 << 19),
	zstd.WithEncoderCRC(false),
}

// Encoders of zstd and gzip allocate much when created: keep idle ones.
var zstdWriters, gzipWriters sync.Pool

// pooledWriter returns its encoder to a pool when closed.
type pooledWriter struct {
	Writer
	pool *sync.Pool
}

// Write compresses b.
func (p *pooledWriter) Write(b []byte) (int, error) {
	if p.Writer == nil {
		return 0, errClosed
	}
	return p.Writer.Write(b)
}

// Flush writes buffered data as complete blocks.
func (p *pooledWriter) Flush() error {
	if p.Writer == nil {
		return errClosed
	}
	return p.Writer.Flush()
}

// Close ends the stream and releases the encoder.
func (p *pooledWriter) Close() error {
	if p.Writer == nil {
		return errClosed
	}
	err := p.Writer.Close()
	if err == nil {
		p.pool.Put(p.Writer)
	}
	p.Writer = nil
	return err
}

type nopWriter struct{ io.Writer }

func (nopWriter) Flush() error { return nil }
func (nopWriter) Close() error { return nil }

// blockEncoder frames blocks for blockWriter.
type blockEncoder interface {
	header() []byte               // stream header, written before the first block
	block(dst, src []byte) []byte // appends the framed block of src to dst
	trailer() []byte              // stream end, written by Close
}

// blockWriter buffers up to size bytes and writes them as one framed block.
type blockWriter struct {
	w       io.Writer
	size    int
	enc     blockEncoder
	buf     []byte
	out     []byte
	started bool
	err     error
}

func (b *blockWriter) Write(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.buf == nil {
		b.buf = make([]byte, 0, b.size)
	}
	n := 0
	for len(p) > 0 {
		k := min(len(p), b.size-len(b.buf))
		b.buf = append(b.buf, p[:k]...)
		p, n = p[k:], n+k
		if len(b.buf) == b.size {
			if err := b.Flush(); err != nil {
				return n, err
			}
		}
	}
	return n, nil
}

// Flush writes the buffered bytes as one block.
func (b *blockWriter) Flush() error {
	if b.err != nil {
		return b.err
	}
	b.out = b.out[:0]
	if !b.started {
		b.out = append(b.out, b.enc.header()...)
		b.started = true
	}
	if len(b.buf) > 0 {
		b.out = b.enc.block(b.out, b.buf)
		b.buf = b.buf[:0]
	}
	if len(b.out) > 0 {
		_, b.err = b.w.Write(b.out)
	}
	return b.err
}

// Close flushes and writes the stream's end.
func (b *blockWriter) Close() error {
	if err := b.Flush(); err != nil {
		return err
	}
	if t := b.enc.trailer(); len(t) > 0 {
		_, b.err = b.w.Write(t)
	}
	if b.err == nil {
		b.err = errClosed
		return nil
	}
	return b.err
}

// lz4Encoder writes lz4-java blocks of at most blockSize bytes.
type lz4Encoder struct {
	token byte
	c     lz4.Compressor
}

func newLZ4Writer(w io.Writer, blockSize int) *blockWriter {
	level := 0
	for 1<<(lz4LevelBase+level) < blockSize {
		level++
	}
	return &blockWriter{w: w, size: blockSize, enc: &lz4Encoder{token: byte(level)}}
}

func (e *lz4Encoder) header() []byte { return nil }

func (e *lz4Encoder) block(dst, src []byte) []byte {
	start := len(dst)
	dst = append(dst, magicLZ4Block...)
	dst = append(dst, make([]byte, lz4HeaderLen-len(magicLZ4Block)+lz4.CompressBlockBound(len(src)))...)
	body := dst[start+lz4HeaderLen:]
	n, err := e.c.CompressBlock(src, body)
	method := byte(lz4MethodLZ4)
	if err != nil || n == 0 || n >= len(src) {
		method, n = lz4MethodRaw, copy(body, src)
	}
	h := dst[start:]
	h[8] = method | e.token
	binary.LittleEndian.PutUint32(h[9:], uint32(n))
	binary.LittleEndian.PutUint32(h[13:], uint32(len(src)))
	binary.LittleEndian.PutUint32(h[17:], lz4Checksum(src))
	return dst[:start+lz4HeaderLen+n]
}

func (e *lz4Encoder) trailer() []byte {
	t := make([]byte, lz4HeaderLen)
	copy(t, magicLZ4Block)
	t[8] = lz4MethodRaw | e.token
	return t
}

// snappyEncoder writes snappy-java's framing.
type snappyEncoder struct{}

func (snappyEncoder) header() []byte {
	h := make([]byte, snappyJavaHeaderLen)
	copy(h, magicSnappyJava)
	binary.BigEndian.PutUint32(h[8:], 1)  // version
	binary.BigEndian.PutUint32(h[12:], 1) // compatible version
	return h
}

func (snappyEncoder) block(dst, src []byte) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, 4+snappy.MaxEncodedLen(len(src)))...)
	enc := snappy.Encode(dst[start+4:], src)
	binary.BigEndian.PutUint32(dst[start:], uint32(len(enc)))
	return dst[:start+4+len(enc)]
}

func (snappyEncoder) trailer() []byte { return nil }

// lzfEncoder writes Ning compress-lzf chunks.
type lzfEncoder struct{ table lzfTable }

func (*lzfEncoder) header() []byte  { return nil }
func (*lzfEncoder) trailer() []byte { return nil }

func (e *lzfEncoder) block(dst, src []byte) []byte {
	start := len(dst)
	dst = append(dst, make([]byte, 7+lzfBound(len(src)))...)
	n := lzfEncode(&e.table, src, dst[start+7:])
	if n+7 >= len(src)+5 {
		dst = append(dst[:start], 'Z', 'V', lzfTypeUncompressed, byte(len(src)>>8), byte(len(src)))
		return append(dst, src...)
	}
	copy(dst[start:], []byte{'Z', 'V', lzfTypeCompressed, byte(n >> 8), byte(n), byte(len(src) >> 8), byte(len(src))})
	return dst[:start+7+n]
}
