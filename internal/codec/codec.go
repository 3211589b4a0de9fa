// Package codec decompresses the stream framings Spark and Hadoop write their
// logs with, as streams: zstd, lz4-java's LZ4BlockOutputStream, xerial
// snappy-java's SnappyOutputStream (and the snappy framing format), Ning
// compress-lzf chunks, and gzip.
//
// Open picks the codec from the first bytes of the stream (magic) and from the
// file name (extension); magic wins when the two disagree. Readers decode one
// block at a time, so memory stays bounded by the largest block (MaxBlockSize)
// whatever the size of the file. A truncated stream yields every complete
// block before the cut and then an error wrapping io.ErrUnexpectedEOF, so a
// partial file gives a partial answer. Errors are *Error values naming the
// file, the byte offset and what was expected.
package codec

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Codec names a compression framing.
type Codec uint8

// The codecs Spark and Hadoop write logs with.
const (
	// None is uncompressed data.
	None Codec = iota
	// Gzip is RFC 1952 gzip, possibly several members concatenated.
	Gzip
	// Zstd is Zstandard frames, as Spark's ZstdOutputStream writes them.
	Zstd
	// LZ4 is lz4-java's LZ4BlockOutputStream framing ("LZ4Block" blocks).
	LZ4
	// Snappy is snappy-java's SnappyOutputStream framing; the snappy framing
	// format (stream identifier "sNaPpY") is accepted too.
	Snappy
	// LZF is Ning compress-lzf's chunk format ("ZV" chunks).
	LZF
	// LZ4Frame is the LZ4 frame format of the lz4 command line (and its
	// legacy format): not what Spark writes, but read when met.
	LZ4Frame
)

// codecs lists every Codec with its Spark short name and file extensions.
var codecs = [...]struct {
	name string
	exts []string
}{
	None:   {"none", nil},
	Gzip:   {"gzip", []string{".gz", ".gzip"}},
	Zstd:   {"zstd", []string{".zstd", ".zst"}},
	LZ4:    {"lz4", []string{".lz4"}},
	Snappy: {"snappy", []string{".snappy"}},
	LZF:    {"lzf", []string{".lzf"}},
	// No extension of its own: ".lz4" means Spark's LZ4Block, and the
	// frame magic tells the two apart.
	LZ4Frame: {"lz4-frame", nil},
}

// Codecs returns every codec except None, in a fixed order.
func Codecs() []Codec { return []Codec{Gzip, Zstd, LZ4, Snappy, LZF} }

// String returns the codec's short name as Spark spells it ("lz4", "zstd", ...),
// "gzip" for gzip and "none" for None.
func (c Codec) String() string {
	if int(c) < len(codecs) {
		return codecs[c].name
	}
	return fmt.Sprintf("codec(%d)", uint8(c))
}

// Extension returns the file extension Spark appends for the codec (".lz4",
// ".zstd", ...), ".gz" for gzip and "" for None.
func (c Codec) Extension() string {
	if int(c) < len(codecs) && len(codecs[c].exts) > 0 {
		return codecs[c].exts[0]
	}
	return ""
}

// ParseName returns the codec named by s: a Spark short name ("lz4", "lzf",
// "snappy", "zstd"), "gzip"/"gz", "none", or a Spark codec class name such as
// "org.apache.spark.io.LZ4CompressionCodec" (as Spark 1.x wrote into
// COMPRESSION_CODEC_ marker files and spark.io.compression.codec). Case is
// ignored. ok is false when s names no known codec.
func ParseName(s string) (c Codec, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if i := strings.LastIndexByte(s, '.'); i >= 0 && strings.HasSuffix(s, "compressioncodec") {
		s = s[i+1:]
	}
	s = strings.TrimSuffix(s, "compressioncodec")
	switch s {
	case "none", "":
		return None, s == "none"
	case "gzip", "gz":
		return Gzip, true
	case "zstd", "zst":
		return Zstd, true
	case "lz4":
		return LZ4, true
	case "snappy":
		return Snappy, true
	case "lzf":
		return LZF, true
	}
	return None, false
}

// FromExtension returns the codec named by the extension of name, ignoring a
// trailing ".inprogress" (Spark writes "app.lz4.inprogress"). Case is ignored.
// It returns None when the extension names no codec.
func FromExtension(name string) Codec {
	name = strings.ToLower(name)
	name = strings.TrimSuffix(name, ".inprogress")
	for c := range codecs {
		for _, ext := range codecs[c].exts {
			if strings.HasSuffix(name, ext) {
				return Codec(c)
			}
		}
	}
	return None
}

// Magic numbers, as they start a stream.
var (
	magicGzip         = []byte{0x1f, 0x8b}
	magicZstd         = []byte{0x28, 0xb5, 0x2f, 0xfd}
	magicLZ4Block     = []byte("LZ4Block")
	magicSnappyJava   = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}
	magicSnappyFramed = []byte{0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'}
	magicLZ4Frame     = []byte{0x04, 0x22, 0x4d, 0x18}
	magicLZ4Legacy    = []byte{0x02, 0x21, 0x4c, 0x18}
)

// HeadSize is how many leading bytes Sniff and Detect need to see.
const HeadSize = 16

// Sniff returns the codec whose magic number starts head, or None when no
// magic matches (plain data, or a stream too short to tell). head should hold
// the first HeadSize bytes of the stream, or all of it when shorter.
func Sniff(head []byte) Codec {
	switch {
	case bytes.HasPrefix(head, magicZstd), isZstdSkippable(head):
		return Zstd
	case bytes.HasPrefix(head, magicLZ4Block):
		return LZ4
	case bytes.HasPrefix(head, magicLZ4Frame), bytes.HasPrefix(head, magicLZ4Legacy):
		return LZ4Frame
	case bytes.HasPrefix(head, magicSnappyJava), bytes.HasPrefix(head, magicSnappyFramed):
		return Snappy
	case len(head) >= 3 && head[0] == 'Z' && head[1] == 'V' && head[2] <= 1:
		return LZF
	case len(head) >= 3 && bytes.HasPrefix(head, magicGzip) && head[2] == 8:
		return Gzip
	}
	return None
}

// isZstdSkippable reports whether head starts with a zstd skippable frame
// (magic 0x184D2A50 to 0x184D2A5F, little endian).
func isZstdSkippable(head []byte) bool {
	return len(head) >= 4 && head[0]&0xf0 == 0x50 && head[1] == 0x2a && head[2] == 0x4d && head[3] == 0x18
}

// Detect chooses the codec of a stream named name whose first bytes are head:
// a magic number wins; otherwise the extension decides, unless head looks like
// plain text (then the extension lied and the data is not compressed);
// otherwise None.
func Detect(name string, head []byte) Codec {
	return detect(name, head, None)
}

func detect(name string, head []byte, hint Codec) Codec {
	if c := Sniff(head); c != None {
		return c
	}
	want := hint
	if want == None {
		want = FromExtension(name)
	}
	if want == None || looksPlain(head) && !startsMagic(want, head) {
		return None
	}
	return want
}

// startsMagic reports whether head, shorter than c's magic number, is its
// beginning: a stream cut inside its magic.
func startsMagic(c Codec, head []byte) bool {
	var m []byte
	switch c {
	case Gzip:
		m = magicGzip
	case Zstd:
		m = magicZstd
	case LZ4:
		m = magicLZ4Block
	case Snappy:
		m = magicSnappyJava
	case LZF:
		m = []byte("ZV\x00")
	}
	return len(head) < len(m) && bytes.HasPrefix(m, head)
}

// looksPlain reports whether head is non-empty text.
func looksPlain(head []byte) bool { return len(head) > 0 && IsText(head) }

// IsText reports whether head is valid UTF-8 (allowing a rune cut at the
// end) without control characters other than tab, newline, carriage return
// and form feed.
func IsText(head []byte) bool {
	for len(head) > 0 {
		r, n := utf8.DecodeRune(head)
		if r == utf8.RuneError && n <= 1 {
			return len(head) < utf8.UTFMax && !utf8.FullRune(head)
		}
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != '\f' || r == 0x7f {
			return false
		}
		head = head[n:]
	}
	return true
}

// Open returns the decompressed stream of r, a file named name, and the codec
// it chose (see Detect). name is used for the extension and in errors. Closing
// the result releases the decoder; it does not close r.
func Open(name string, r io.Reader) (io.ReadCloser, Codec, error) {
	return OpenWith(name, r, Options{})
}

// OpenAs is Open for a stream that is expected to be in codec hint (for
// example a Spark 1.x EVENT_LOG_1 part next to a COMPRESSION_CODEC_lz4 marker,
// which has no extension). A magic number still wins over the hint, and text
// is still read as plain; hint wins over the extension.
func OpenAs(name string, r io.Reader, hint Codec) (io.ReadCloser, Codec, error) {
	return OpenWith(name, r, Options{Hint: hint})
}

// DefaultMaxWindow is the largest zstd window accepted unless Options say
// otherwise: 128 MiB, the zstd command line's default (--memory=128MB),
// which reads the one-frame 128 MiB-window logs that long-range matching
// writes (Databricks Photon).
const DefaultMaxWindow = 128 << 20

// Options tune OpenWith.
type Options struct {
	// Hint is the codec the stream is expected in (see OpenAs); None: none.
	Hint Codec
	// MaxWindow is the largest zstd window (the history a decoder keeps, up
	// to 2^41 bytes in the format) accepted, in bytes; 0: DefaultMaxWindow.
	// A frame that declares more is refused with ErrWindowTooLarge before
	// any memory is allocated for it.
	MaxWindow int64
}

// OpenWith is Open with options.
func OpenWith(name string, r io.Reader, o Options) (io.ReadCloser, Codec, error) {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < HeadSize {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	head, err := br.Peek(HeadSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, None, &Error{Name: name, Where: "header", Detail: "read", Err: err}
	}
	c := detect(name, head, o.Hint)
	rc, err := newReader(c, name, br, o)
	return rc, c, err
}

// NewReader returns a reader decompressing r as codec c, with no detection
// and default options. name appears in errors. Closing the result releases
// the decoder; it does not close r.
func NewReader(c Codec, name string, r io.Reader) (io.ReadCloser, error) {
	return newReader(c, name, r, Options{})
}

func newReader(c Codec, name string, r io.Reader, o Options) (io.ReadCloser, error) {
	switch c {
	case None:
		return io.NopCloser(r), nil
	case Gzip:
		return newGzipReader(name, r), nil
	case Zstd:
		return newZstdReader(name, r, o.MaxWindow)
	case LZ4:
		return newBlockReader(&lz4Decoder{src: newSource(name, LZ4, r)}), nil
	case LZ4Frame:
		return newLZ4FrameReader(name, r), nil
	case Snappy:
		return newBlockReader(&snappyDecoder{src: newSource(name, Snappy, r)}), nil
	case LZF:
		return newBlockReader(&lzfDecoder{src: newSource(name, LZF, r)}), nil
	}
	return nil, fmt.Errorf("codec: %q: unknown codec %v", name, c)
}

// Window returns the history a reader returned by Open, OpenWith or
// NewReader keeps while decoding: the window the zstd stream's first frame
// declares, or 0 for the other codecs (whose buffers are bounded by
// MaxBlockSize). A caller sharing a memory budget among parallel decoders
// reserves it.
func Window(r io.Reader) int64 {
	if s, ok := r.(*streamReader); ok {
		return s.window
	}
	return 0
}
