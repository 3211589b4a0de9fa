package clickhttp

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

// ClickHouse's RowBinary format (docs: Formats, RowBinary): each row's
// columns in order, Int64/UInt64/Float64 as 8 little-endian bytes, UInt8 as
// one byte, String as its length in unsigned LEB128 then its bytes. No
// escaping is needed, and a Float64 keeps its exact bits, NaN and
// infinities included.

// maxString bounds a decoded string, so that corrupt input cannot make the
// decoder allocate gigabytes (ClickHouse's own limit is 1 GiB).
const maxString = 1 << 30

// readStep is how much of a string Bytes allocates ahead of the bytes read.
const readStep = 1 << 20

// AppendString appends a String column.
func AppendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// AppendInt64 appends an Int64 column.
func AppendInt64(b []byte, v int64) []byte { return binary.LittleEndian.AppendUint64(b, uint64(v)) }

// AppendUint64 appends a UInt64 column.
func AppendUint64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// AppendFloat64 appends a Float64 column.
func AppendFloat64(b []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

// AppendBool appends a UInt8 column holding 0 or 1.
func AppendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// RowReader decodes RowBinary rows from a stream, counting the bytes read
// so that errors give the position.
type RowReader struct {
	r   *bufio.Reader
	off int64
	buf []byte
	num [8]byte
}

// NewRowReader returns a reader of the RowBinary rows of r.
func NewRowReader(r io.Reader) *RowReader {
	return &RowReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// ErrFormat marks input that is not the RowBinary expected.
var ErrFormat = errors.New("malformed RowBinary")

// AtEOF reports whether the stream ended cleanly before a row.
func (d *RowReader) AtEOF() (bool, error) {
	_, err := d.r.Peek(1)
	if err == io.EOF {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("at byte %d: %w", d.off, err)
	}
	return false, nil
}

// Fixed reads an 8-byte column (Int64, UInt64 or Float64 bits).
func (d *RowReader) Fixed() (uint64, error) {
	if _, err := io.ReadFull(d.r, d.num[:]); err != nil {
		return 0, d.fail("8-byte number", err)
	}
	d.off += 8
	return binary.LittleEndian.Uint64(d.num[:]), nil
}

// Int64 reads an Int64 column.
func (d *RowReader) Int64() (int64, error) {
	v, err := d.Fixed()
	return int64(v), err
}

// Float64 reads a Float64 column.
func (d *RowReader) Float64() (float64, error) {
	v, err := d.Fixed()
	return math.Float64frombits(v), err
}

// Bool reads a UInt8 column as v != 0.
func (d *RowReader) Bool() (bool, error) {
	c, err := d.r.ReadByte()
	if err != nil {
		return false, d.fail("1-byte number", err)
	}
	d.off++
	return c != 0, nil
}

func (d *RowReader) fail(what string, err error) error {
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%w: at byte %d: want %s: %w", ErrFormat, d.off, what, err)
}

// Bytes reads a String into a scratch buffer valid until the next call.
func (d *RowReader) Bytes() ([]byte, error) {
	n, err := binary.ReadUvarint(d.r)
	if err != nil {
		return nil, d.fail("string length", err)
	}
	if n > maxString {
		return nil, fmt.Errorf("%w: at byte %d: string of %d bytes, over the %d limit", ErrFormat, d.off, n, maxString)
	}
	d.off += int64(uvarintLen(n))
	// Grow with the bytes that actually arrive, a step at a time, so that a
	// corrupt length on a short input costs no more than the input.
	d.buf = d.buf[:0]
	for left := int(n); left > 0; {
		step := min(left, readStep)
		at := len(d.buf)
		d.buf = slices.Grow(d.buf, step)[:at+step]
		if _, err := io.ReadFull(d.r, d.buf[at:]); err != nil {
			return nil, d.fail(fmt.Sprintf("string of %d bytes", n), err)
		}
		left -= step
	}
	d.off += int64(n)
	return d.buf, nil
}

// String reads a String column.
func (d *RowReader) String() (string, error) {
	b, err := d.Bytes()
	return string(b), err
}

// Reuse reads a String into *f, allocating only when it differs from *f.
func (d *RowReader) Reuse(f *string) error {
	b, err := d.Bytes()
	if err != nil {
		return err
	}
	if string(b) != *f {
		*f = string(b)
	}
	return nil
}

func uvarintLen(n uint64) int {
	l := 1
	for n >= 0x80 {
		n >>= 7
		l++
	}
	return l
}
