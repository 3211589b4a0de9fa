package clickhouse

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/clusterlens/clusterlens/internal/model"
)

// ClickHouse's RowBinary format (docs: Formats, RowBinary): each row's
// columns in order, Int64/UInt64/Float64 as 8 little-endian bytes, String
// as its length in unsigned LEB128 then its bytes. No escaping is needed,
// and a Float64 keeps its exact bits, NaN and infinities included.

// maxString bounds a decoded string, so that corrupt input cannot make the
// decoder allocate gigabytes (ClickHouse's own limit is 1 GiB).
const maxString = 1 << 30

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendInt64(b []byte, v int64) []byte { return binary.LittleEndian.AppendUint64(b, uint64(v)) }

func appendUint64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

func appendFloat64(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

// appendSample encodes s as a row of the samples table: time, host, type,
// target, value, text.
func appendSample(b []byte, s *model.Sample) []byte {
	b = appendInt64(b, s.Time)
	b = appendString(b, s.Host)
	b = appendString(b, s.Type)
	b = appendString(b, s.Target)
	b = appendFloat64(b, s.Value)
	return appendString(b, s.Text)
}

// rowReader decodes RowBinary rows from a stream, counting the bytes read
// so that errors give the position.
type rowReader struct {
	r   *bufio.Reader
	off int64
	buf []byte
	num [8]byte
}

func newRowReader(r io.Reader) *rowReader {
	return &rowReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// errFormat marks input that is not the RowBinary expected.
var errFormat = errors.New("malformed RowBinary")

// atEOF reports whether the stream ended cleanly before a row.
func (d *rowReader) atEOF() (bool, error) {
	_, err := d.r.Peek(1)
	if err == io.EOF {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("at byte %d: %w", d.off, err)
	}
	return false, nil
}

func (d *rowReader) fixed() (uint64, error) {
	if _, err := io.ReadFull(d.r, d.num[:]); err != nil {
		return 0, d.fail("8-byte number", err)
	}
	d.off += 8
	return binary.LittleEndian.Uint64(d.num[:]), nil
}

func (d *rowReader) fail(what string, err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w: at byte %d: want %s: %w", errFormat, d.off, what, err)
}

// bytes reads a String into a scratch buffer valid until the next call.
func (d *rowReader) bytes() ([]byte, error) {
	n, err := binary.ReadUvarint(d.r)
	if err != nil {
		return nil, d.fail("string length", err)
	}
	if n > maxString {
		return nil, fmt.Errorf("%w: at byte %d: string of %d bytes, over the %d limit", errFormat, d.off, n, maxString)
	}
	d.off += int64(uvarintLen(n))
	if uint64(cap(d.buf)) < n {
		d.buf = make([]byte, n)
	}
	d.buf = d.buf[:n]
	if _, err := io.ReadFull(d.r, d.buf); err != nil {
		return nil, d.fail(fmt.Sprintf("string of %d bytes", n), err)
	}
	d.off += int64(n)
	return d.buf, nil
}

func uvarintLen(n uint64) int {
	l := 1
	for n >= 0x80 {
		n >>= 7
		l++
	}
	return l
}

// sample decodes a row of host, type, target, time, value, text (the
// order of Query's SELECT) into s. The strings of s are reused when they
// repeat the previous row's, as they do within a series.
func (d *rowReader) sample(s *model.Sample) error {
	if err := d.reuse(&s.Host); err != nil {
		return err
	}
	if err := d.reuse(&s.Type); err != nil {
		return err
	}
	if err := d.reuse(&s.Target); err != nil {
		return err
	}
	t, err := d.fixed()
	if err != nil {
		return err
	}
	v, err := d.fixed()
	if err != nil {
		return err
	}
	s.Time, s.Value = int64(t), math.Float64frombits(v)
	b, err := d.bytes()
	if err != nil {
		return err
	}
	s.Text = ""
	if len(b) > 0 {
		s.Text = string(b)
	}
	return nil
}

// reuse reads a String into *f, allocating only when it differs from *f.
func (d *rowReader) reuse(f *string) error {
	b, err := d.bytes()
	if err != nil {
		return err
	}
	if string(b) != *f {
		*f = string(b)
	}
	return nil
}
