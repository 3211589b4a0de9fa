package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"

	"github.com/clusterlens/clusterlens/internal/model"
)

// The agent's wire format, version 1 ("CLB1"): what an agent POSTs to the
// collector, and what its spool keeps on disk. The body of a request is the
// encoding below compressed as one zstd frame (HTTP Content-Encoding: zstd).
//
//	magic    "CLB" 0x01
//	agent    uvarint length, bytes
//	seq      uvarint (≥ 1)
//	strings  uvarint count, then each: uvarint length, bytes
//	samples  uvarint count, then each:
//	           time    zigzag varint, milliseconds since the previous
//	                   sample's time (the first: since the Unix epoch)
//	           host    uvarint index into strings
//	           type    uvarint index into strings
//	           target  uvarint index into strings
//	           value   8 bytes, IEEE 754 float64 bits, little endian
//	           text    uvarint length, bytes (0: no text)
//
// Strings (the string table, agent, text) are UTF-8. Nothing follows the
// last sample. A new version gets a new fourth magic byte; a decoder refuses
// versions it does not know.
const (
	// ContentType is the Content-Type of an encoded batch.
	ContentType = "application/x-clusterlens-batch"
	// Encoding is the Content-Encoding of an encoded batch.
	Encoding = "zstd"
	// Version is the version this package writes.
	Version = 1
)

var wireMagic = [3]byte{'C', 'L', 'B'}

// minSampleBytes is the smallest encoding of one sample (1-byte time, host,
// type, target and text length, 8-byte value); it bounds what a count read
// from untrusted input may preallocate.
const minSampleBytes = 13

// Limits bound what DecodeBatch accepts from an untrusted peer.
type Limits struct {
	MaxBytes   int // decompressed size of the encoding
	MaxSamples int // samples in one batch
	MaxString  int // length of any one string (agent, table entry, text)
}

// DefaultLimits are generous for one agent's batch (a second of a busy
// node is ~40 samples; JVM thread stacks make texts of a few KiB).
var DefaultLimits = Limits{MaxBytes: 64 << 20, MaxSamples: 1 << 20, MaxString: 1 << 20}

// ErrMalformed is wrapped by every error about a malformed encoding, so callers
// can tell bad input (reject it) from their own failures.
var ErrMalformed = errors.New("malformed batch")

// AppendBatch appends b's uncompressed wire encoding to dst. Invalid UTF-8
// in its strings is replaced by U+FFFD.
func AppendBatch(dst []byte, b *Batch) []byte {
	dst = append(dst, wireMagic[:]...)
	dst = append(dst, Version)
	dst = appendString(dst, b.Agent)
	dst = binary.AppendUvarint(dst, b.Seq)

	index := make(map[string]uint64, 64)
	var table []string
	intern := func(s string) {
		if _, ok := index[s]; !ok {
			index[s] = uint64(len(table))
			table = append(table, s)
		}
	}
	for i := range b.Samples {
		s := &b.Samples[i]
		intern(s.Host)
		intern(s.Type)
		intern(s.Target)
	}
	dst = binary.AppendUvarint(dst, uint64(len(table)))
	for _, s := range table {
		dst = appendString(dst, s)
	}

	dst = binary.AppendUvarint(dst, uint64(len(b.Samples)))
	var prev int64
	for i := range b.Samples {
		s := &b.Samples[i]
		dst = binary.AppendVarint(dst, s.Time-prev)
		prev = s.Time
		dst = binary.AppendUvarint(dst, index[s.Host])
		dst = binary.AppendUvarint(dst, index[s.Type])
		dst = binary.AppendUvarint(dst, index[s.Target])
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(s.Value))
		dst = appendString(dst, s.Text)
	}
	return dst
}

// appendString appends s, its invalid UTF-8 (a log line with binary
// bytes) replaced by U+FFFD so that the collector does not refuse the
// whole batch for it.
func appendString(dst []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	dst = binary.AppendUvarint(dst, uint64(len(s)))
	return append(dst, s...)
}

var (
	encoderOnce sync.Once
	encoder     *zstd.Encoder
)

// EncodeBatch returns b's wire encoding compressed as one zstd frame: the
// body of an agent's request. It is safe for concurrent use.
func EncodeBatch(b *Batch) []byte {
	encoderOnce.Do(func() {
		// Options are constants that cannot fail.
		encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	})
	raw := AppendBatch(make([]byte, 0, 64+len(b.Samples)*16), b)
	return encoder.EncodeAll(raw, make([]byte, 0, len(raw)/3+64))
}

// Decoder decodes compressed batches under fixed Limits. It is safe for
// concurrent use.
type Decoder struct {
	lim Limits
	dec *zstd.Decoder
}

// NewDecoder returns a Decoder enforcing lim; zero fields take DefaultLimits.
func NewDecoder(lim Limits) (*Decoder, error) {
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = DefaultLimits.MaxBytes
	}
	if lim.MaxSamples <= 0 {
		lim.MaxSamples = DefaultLimits.MaxSamples
	}
	if lim.MaxString <= 0 {
		lim.MaxString = DefaultLimits.MaxString
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(uint64(lim.MaxBytes)))
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	return &Decoder{lim: lim, dec: dec}, nil
}

// Limits returns the limits d enforces.
func (d *Decoder) Limits() Limits { return d.lim }

// Decode decompresses body (one or more zstd frames) and decodes the batch
// in it. Errors about the input wrap ErrMalformed and say what was wrong where.
func (d *Decoder) Decode(body []byte) (*Batch, error) {
	raw, err := d.dec.DecodeAll(body, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: zstd: %w", ErrMalformed, err)
	}
	if len(raw) > d.lim.MaxBytes {
		return nil, fmt.Errorf("%w: decompressed size %d exceeds the limit of %d bytes", ErrMalformed, len(raw), d.lim.MaxBytes)
	}
	return UnmarshalBatch(raw, d.lim)
}

var (
	defaultDecoderOnce sync.Once
	defaultDecoder     *Decoder
)

// DecodeBatch decodes a compressed batch under DefaultLimits.
func DecodeBatch(body []byte) (*Batch, error) {
	defaultDecoderOnce.Do(func() {
		// DefaultLimits are valid, so NewDecoder cannot fail.
		defaultDecoder, _ = NewDecoder(DefaultLimits)
	})
	return defaultDecoder.Decode(body)
}

// UnmarshalBatch decodes an uncompressed wire encoding under lim (zero
// fields: no limit beyond the input's length). Errors wrap ErrMalformed and give
// the byte offset and what was expected there.
func UnmarshalBatch(raw []byte, lim Limits) (*Batch, error) {
	r := wireReader{buf: raw, lim: lim, sample: -1}
	if lim.MaxBytes > 0 && len(raw) > lim.MaxBytes {
		return nil, fmt.Errorf("%w: size %d exceeds the limit of %d bytes", ErrMalformed, len(raw), lim.MaxBytes)
	}
	if len(raw) < 4 || [3]byte(raw[:3]) != wireMagic {
		return nil, fmt.Errorf("%w: want magic \"CLB\" at offset 0", ErrMalformed)
	}
	if raw[3] != Version {
		return nil, fmt.Errorf("%w: wire version %d, this build reads version %d", ErrMalformed, raw[3], Version)
	}
	r.off = 4
	b := &Batch{}
	b.Agent = r.str("agent id")
	if r.err == nil && b.Agent == "" {
		r.fail("a non-empty agent id")
	}
	b.Seq = r.uvarint("sequence number")
	if r.err == nil && b.Seq == 0 {
		r.fail("a sequence number ≥ 1")
	}
	nstr := r.count("string table size", 1, 0)
	table := make([]string, 0, nstr)
	for i := 0; i < nstr && r.err == nil; i++ {
		table = append(table, r.str("string table entry"))
	}
	n := r.count("sample count", minSampleBytes, lim.MaxSamples)
	if r.err != nil {
		return nil, r.err
	}
	b.Samples = make([]model.Sample, n)
	var t int64
	for i := range b.Samples {
		s := &b.Samples[i]
		r.sample = i
		t += r.varint("time delta")
		s.Time = t
		s.Host = r.ref(table, "host")
		s.Type = r.ref(table, "type")
		s.Target = r.ref(table, "target")
		s.Value = math.Float64frombits(r.u64("value"))
		s.Text = r.str("text")
		if r.err != nil {
			return nil, r.err
		}
	}
	r.sample = -1
	if r.err == nil && r.off != len(raw) {
		r.fail(fmt.Sprintf("the end of the batch, %d bytes follow", len(raw)-r.off))
	}
	if r.err != nil {
		return nil, r.err
	}
	return b, nil
}

// wireReader reads the encoding; the first error sticks and later reads
// return zero values.
type wireReader struct {
	buf    []byte
	off    int
	lim    Limits
	sample int // the sample being read, -1 outside the samples
	err    error
}

func (r *wireReader) fail(want string) {
	if r.err != nil {
		return
	}
	if r.sample >= 0 {
		r.err = fmt.Errorf("%w: sample %d at offset %d: want %s", ErrMalformed, r.sample, r.off, want)
		return
	}
	r.err = fmt.Errorf("%w: at offset %d: want %s", ErrMalformed, r.off, want)
}

// rawUvarint reads a uvarint without naming it (no string is built on
// the hot path); ok is false after an earlier error or on bad input, and
// the caller reports it.
func (r *wireReader) rawUvarint() (v uint64, ok bool) {
	if r.err != nil {
		return 0, false
	}
	v, n := binary.Uvarint(r.buf[r.off:])
	if n <= 0 {
		return 0, false
	}
	r.off += n
	return v, true
}

func (r *wireReader) uvarint(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.buf[r.off:])
	if n <= 0 {
		r.fail(what + " (uvarint)")
		return 0
	}
	r.off += n
	return v
}

func (r *wireReader) varint(what string) int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.buf[r.off:])
	if n <= 0 {
		r.fail(what + " (varint)")
		return 0
	}
	r.off += n
	return v
}

func (r *wireReader) u64(what string) uint64 {
	if r.err != nil {
		return 0
	}
	if len(r.buf)-r.off < 8 {
		r.fail(what + " (8 bytes)")
		return 0
	}
	v := binary.LittleEndian.Uint64(r.buf[r.off:])
	r.off += 8
	return v
}

// count reads a count of items each taking at least minSize bytes, so that
// a forged count cannot make the decoder allocate more than the input
// justifies; max (0: none) is the limit the count must respect.
func (r *wireReader) count(what string, minSize, max int) int {
	start := r.off
	v := r.uvarint(what)
	if r.err != nil {
		return 0
	}
	if max > 0 && v > uint64(max) {
		r.off = start
		r.fail(fmt.Sprintf("%s ≤ %d, got %d", what, max, v))
		return 0
	}
	if rest := len(r.buf) - r.off; v > uint64(rest/minSize) {
		r.off = start
		r.fail(fmt.Sprintf("%s that fits the %d remaining bytes, got %d", what, rest, v))
		return 0
	}
	return int(v)
}

func (r *wireReader) str(what string) string {
	start := r.off
	n, ok := r.rawUvarint()
	if !ok {
		r.fail(what + " length (uvarint)")
		return ""
	}
	if r.lim.MaxString > 0 && n > uint64(r.lim.MaxString) {
		r.off = start
		r.fail(fmt.Sprintf("%s of at most %d bytes, got %d", what, r.lim.MaxString, n))
		return ""
	}
	if rest := len(r.buf) - r.off; n > uint64(rest) {
		r.off = start
		r.fail(fmt.Sprintf("%s of %d bytes, only %d remain", what, n, rest))
		return ""
	}
	b := r.buf[r.off : r.off+int(n)]
	if !utf8.Valid(b) {
		r.off = start
		r.fail(what + " in UTF-8")
		return ""
	}
	r.off += int(n)
	return string(b)
}

func (r *wireReader) ref(table []string, what string) string {
	start := r.off
	i, ok := r.rawUvarint()
	if !ok {
		r.fail(what + " index (uvarint)")
		return ""
	}
	if i >= uint64(len(table)) {
		r.off = start
		r.fail(fmt.Sprintf("%s index < %d (string table size), got %d", what, len(table), i))
		return ""
	}
	return table[i]
}
