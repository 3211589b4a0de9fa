package codec

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/snappy"
)

// runtimeMem snapshots the bytes allocated so far.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.total = s.TotalAlloc
}

// snappyFramedWriter writes the snappy framing format (an independent encoder).
func snappyFramedWriter(w io.Writer) io.WriteCloser { return snappy.NewBufferedWriter(w) }

func TestXXH32(t *testing.T) {
	for _, tc := range []struct {
		in   string
		seed uint32
		want uint32
	}{
		{"", 0, 0x02cc5d05},
		{"a", 0, 0x550d7456},
		{"abc", 0, 0x32d153ff},
		{"Nobody inspects the spammish repetition", 0, 0xe2293b2f},
		{"", 1, 0x0b2cb792},
	} {
		if got := xxh32([]byte(tc.in), tc.seed); got != tc.want {
			t.Errorf("xxh32(%q, %d) = %#08x, want %#08x", tc.in, tc.seed, got, tc.want)
		}
	}
}

func TestParseName(t *testing.T) {
	for in, want := range map[string]Codec{
		"lz4": LZ4, "LZ4": LZ4, "lzf": LZF, "snappy": Snappy, "zstd": Zstd, "gzip": Gzip, "gz": Gzip,
		"org.apache.spark.io.LZ4CompressionCodec":    LZ4,
		"org.apache.spark.io.SnappyCompressionCodec": Snappy,
		"org.apache.spark.io.LZFCompressionCodec":    LZF,
		"org.apache.spark.io.ZStdCompressionCodec":   Zstd,
		"none": None,
	} {
		if got, ok := ParseName(in); !ok || got != want {
			t.Errorf("ParseName(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "brotli", "org.apache.spark.io.FooCompressionCodec"} {
		if _, ok := ParseName(in); ok {
			t.Errorf("ParseName(%q) ok, want not", in)
		}
	}
	for _, c := range Codecs() {
		if got, ok := ParseName(c.String()); !ok || got != c {
			t.Errorf("ParseName(%v.String()) = %v", c, got)
		}
		if got := FromExtension("app-1" + c.Extension()); got != c {
			t.Errorf("FromExtension(%q) = %v, want %v", "app-1"+c.Extension(), got, c)
		}
	}
}

func TestDetect(t *testing.T) {
	plain := []byte(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}`)
	stream := func(c Codec) []byte { b, _ := compress(t, c, plain, 0); return b }
	for _, tc := range []struct {
		name string
		head []byte
		want Codec
	}{
		{"app-1", plain, None},
		{"app-1.lz4", plain, None}, // text: the extension lied
		{"app-1.zstd.inprogress", stream(Zstd), Zstd},
		{"app-1.lz4", stream(LZ4), LZ4},
		{"app-1", stream(LZ4), LZ4},
		{"app-1.zstd", stream(LZ4), LZ4}, // magic wins
		{"app-1.snappy", stream(Snappy), Snappy},
		{"app-1", stream(Snappy), Snappy},
		{"app-1", append([]byte{}, magicSnappyFramed...), Snappy},
		{"app-1.lzf", stream(LZF), LZF},
		{"app-1", stream(LZF), LZF},
		{"x.gz", stream(Gzip), Gzip},
		{"x.txt", stream(Gzip), Gzip},
		{"x.lz4", []byte{0, 1, 2, 3}, LZ4}, // binary: trust the extension
		{"x.lz4.inprogress", []byte{0, 1, 2, 3}, LZ4},
		{"x", []byte{0, 1, 2, 3}, None},
		{"x.lz4", nil, LZ4},
		{"x", []byte{0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0}, Zstd}, // skippable frame
	} {
		head := tc.head
		if len(head) > HeadSize {
			head = head[:HeadSize]
		}
		if got := Detect(tc.name, head); got != tc.want {
			t.Errorf("Detect(%q, % x) = %v, want %v", tc.name, head, got, tc.want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	inputs := map[string][]byte{
		"empty":  nil,
		"byte":   []byte("x"),
		"line":   []byte(`{"Event":"SparkListenerApplicationEnd","Timestamp":1}` + "\n"),
		"log":    sampleLog(300 << 10),
		"random": randomBytes(100 << 10),
		"zeros":  make([]byte, 200<<10),
	}
	for _, c := range append(Codecs(), None) {
		for name, plain := range inputs {
			for _, flush := range []int{0, 1000} {
				data, _ := compress(t, c, plain, flush)
				for _, file := range []string{"app" + c.Extension(), "app"} {
					out, got, err := decodeAll(file, data)
					if err != nil {
						t.Errorf("%v/%s/flush %d: %q: %v", c, name, flush, file, err)
						continue
					}
					if !bytes.Equal(out, plain) {
						t.Errorf("%v/%s/flush %d: %q: decoded %d bytes, want %d", c, name, flush, file, len(out), len(plain))
					}
					if len(plain) > 0 && got != c && !(c == None && got == None) {
						t.Errorf("%v/%s: %q detected as %v", c, name, file, got)
					}
				}
			}
		}
	}
}

// TestOneByteReads reads through a reader that returns one byte at a time.
func TestOneByteReads(t *testing.T) {
	plain := sampleLog(50 << 10)
	for _, c := range Codecs() {
		data, _ := compress(t, c, plain, 4000)
		r, _, err := Open("x", iotest.OneByteReader(bytes.NewReader(data)))
		if err != nil {
			t.Fatal(err)
		}
		out, err := io.ReadAll(iotest.OneByteReader(r))
		if err != nil || !bytes.Equal(out, plain) {
			t.Errorf("%v: %d bytes, err %v", c, len(out), err)
		}
	}
}

func TestConcatenatedStreams(t *testing.T) {
	a, b := sampleLog(40<<10), []byte("second stream\n")
	for _, c := range Codecs() {
		sa, _ := compress(t, c, a, 0)
		sb, _ := compress(t, c, b, 0)
		out, _, err := decodeAll("x"+c.Extension(), append(append([]byte{}, sa...), sb...))
		if err != nil || !bytes.Equal(out, append(append([]byte{}, a...), b...)) {
			t.Errorf("%v: concatenated streams: %d bytes, err %v", c, len(out), err)
		}
	}
}

// TestTruncated cuts streams everywhere: reading must deliver a prefix of the
// data holding at least everything flushed before the cut, then end with an
// error wrapping io.ErrUnexpectedEOF (or cleanly, for framings without an
// end mark cut between blocks).
func TestTruncated(t *testing.T) {
	plain := sampleLog(20 << 10)
	for _, c := range Codecs() {
		data, marks := compress(t, c, plain, 1500)
		boundary := map[int]bool{0: true}
		if c == Snappy {
			boundary[snappyJavaHeaderLen] = true // a header alone is an empty stream
		}
		for _, m := range marks {
			boundary[m.compressed] = true
		}
		step := 1
		if testing.Short() {
			step = 7
		}
		for cut := 0; cut < len(data); cut += step {
			out, _, err := decodeAll("x"+c.Extension(), data[:cut])
			if !bytes.HasPrefix(plain, out) {
				t.Fatalf("%v cut %d: output is not a prefix of the input", c, cut)
			}
			want := 0
			for _, m := range marks {
				if m.compressed <= cut {
					want = m.plain
				}
			}
			if len(out) < want {
				t.Errorf("%v cut %d: delivered %d bytes, want at least %d", c, cut, len(out), want)
			}
			clean := cut == 0 || (boundary[cut] && (c == Snappy || c == LZF))
			switch {
			case clean && err != nil:
				t.Errorf("%v cut %d at a block boundary: %v", c, cut, err)
			case !clean && !errors.Is(err, io.ErrUnexpectedEOF):
				t.Errorf("%v cut %d/%d: err %v, want io.ErrUnexpectedEOF", c, cut, len(data), err)
			}
			if err != nil && !strings.Contains(err.Error(), `"x`+c.Extension()+`"`) {
				t.Errorf("%v cut %d: error %q does not name the file", c, cut, err)
			}
		}
	}
}

func TestCorrupt(t *testing.T) {
	plain := sampleLog(10 << 10)
	lz, _ := compress(t, LZ4, plain, 3000)
	sn, _ := compress(t, Snappy, plain, 3000)
	lf, _ := compress(t, LZF, plain, 3000)
	zs, _ := compress(t, Zstd, plain, 0)
	gz, _ := compress(t, Gzip, plain, 0)
	edit := func(b []byte, f func([]byte)) []byte { b = bytes.Clone(b); f(b); return b }
	secondLZ4 := bytes.Index(lz[1:], magicLZ4Block) + 1
	for _, tc := range []struct {
		name string
		data []byte
		is   error
		msg  string
	}{
		{"bad.lz4", edit(lz, func(b []byte) { b[secondLZ4] = 'X' }), ErrCorrupt, `codec: "bad.lz4": block at offset ` + itoa(secondLZ4) + `: bad magic "XZ4Block", want "LZ4Block"`},
		{"sum.lz4", edit(lz, func(b []byte) { b[17] ^= 1 }), ErrCorrupt, "block at offset 0: checksum"},
		{"data.lz4", edit(lz, func(b []byte) { b[lz4HeaderLen+40] ^= 0x55 }), ErrCorrupt, "block at offset 0"},
		{"method.lz4", edit(lz, func(b []byte) { b[8] = 0x35 }), ErrCorrupt, "unknown compression method 0x30"},
		{"huge.lz4", edit(lz, func(b []byte) { binary.LittleEndian.PutUint32(b[13:], 1<<30) }), ErrTooLarge, "limit"},
		{"level.lz4", edit(lz, func(b []byte) { b[8] = 0x20 }), ErrCorrupt, "exceeds the block size 2^10"},
		{"neg.lz4", edit(lz, func(b []byte) { binary.LittleEndian.PutUint32(b[9:], 0xffffffff) }), ErrCorrupt, "negative length"},
		{"end.lz4", edit(lz, func(b []byte) { b[len(b)-1] = 1 }), ErrCorrupt, "end block with checksum"},
		{"magic.snappy", edit(sn, func(b []byte) { b[3] = 'X' }), ErrCorrupt, `header at offset 0: bad magic`},
		{"huge.snappy", edit(sn, func(b []byte) { binary.BigEndian.PutUint32(b[16:], 1<<30) }), ErrTooLarge, "block at offset 16"},
		{"neg.snappy", edit(sn, func(b []byte) { binary.BigEndian.PutUint32(b[16:], 0x90000000) }), ErrCorrupt, "negative length"},
		{"data.snappy", edit(sn, func(b []byte) { b[20] = 0xff; b[21] = 0xff; b[22] = 0xff }), nil, "block at offset 16"},
		{"magic.lzf", edit(lf, func(b []byte) { b[1] = 'W' }), ErrCorrupt, `chunk at offset 0: bad magic "ZW", want "ZV"`},
		{"type.lzf", edit(lf, func(b []byte) { b[2] = 7 }), ErrCorrupt, "chunk type 7"},
		{"len.lzf", edit(lf, func(b []byte) { b[6]-- }), ErrCorrupt, "chunk at offset 0: lzf data"},
		{"magic.zstd", edit(zs, func(b []byte) { b[4] = 0xff; b[5] = 0xff }), ErrCorrupt, "frame at offset"},
		{"data.gz", edit(gz, func(b []byte) { b[len(b)-6] ^= 0xff }), ErrCorrupt, "member at offset"},
	} {
		_, _, err := decodeAll(tc.name, tc.data)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		var ce *Error
		if !errors.As(err, &ce) {
			t.Errorf("%s: %T is not *Error: %v", tc.name, err, err)
		}
		if tc.is != nil && !errors.Is(err, tc.is) {
			t.Errorf("%s: %v does not wrap %v", tc.name, err, tc.is)
		}
		if !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), `"`+tc.name+`"`) {
			t.Errorf("%s: error %q, want it to name the file and contain %q", tc.name, err, tc.msg)
		}
	}
}

// TestHugeDeclarationIsCheap checks that a block declaring MaxBlockSize bytes
// in a short stream fails without allocating that much.
func TestHugeDeclarationIsCheap(t *testing.T) {
	hdr := make([]byte, lz4HeaderLen)
	copy(hdr, magicLZ4Block)
	hdr[8] = lz4MethodRaw | 15
	binary.LittleEndian.PutUint32(hdr[9:], 1<<25)
	binary.LittleEndian.PutUint32(hdr[13:], 1<<25)
	sn := append(snappyEncoder{}.header(), 0x03, 0xff, 0xff, 0xff)
	for name, data := range map[string][]byte{"x.lz4": hdr, "x.snappy": sn} {
		var before, after runtimeMem
		before.read()
		_, _, err := decodeAll(name, data)
		after.read()
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: err %v, want io.ErrUnexpectedEOF", name, err)
		}
		if d := after.total - before.total; d > 4<<20 {
			t.Errorf("%s: allocated %d bytes for a short stream", name, d)
		}
	}
}

func TestClose(t *testing.T) {
	for _, c := range Codecs() {
		data, _ := compress(t, c, []byte("hello\n"), 0)
		r, _, err := Open("x", bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Close(); err != nil {
			t.Errorf("%v: close: %v", c, err)
		}
		if _, err := r.Read(make([]byte, 10)); err == nil {
			t.Errorf("%v: read after close succeeded", c)
		}
	}
}

func TestReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	for _, c := range Codecs() {
		data, _ := compress(t, c, sampleLog(20<<10), 0)
		r, _, err := Open("x", io.MultiReader(bytes.NewReader(data[:len(data)/2]), iotest.ErrReader(boom)))
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(r)
		if !errors.Is(err, boom) {
			t.Errorf("%v: err %v, want the read error", c, err)
		}
	}
}

func TestSnappyFramed(t *testing.T) {
	plain := sampleLog(200 << 10)
	var buf bytes.Buffer
	w := snappyFramedWriter(&buf)
	w.Write(plain)
	w.Close()
	out, c, err := decodeAll("x.snappy", buf.Bytes())
	if err != nil || c != Snappy || !bytes.Equal(out, plain) {
		t.Fatalf("framed snappy: %v %d bytes, err %v", c, len(out), err)
	}
	data := bytes.Clone(buf.Bytes())
	data[len(data)-1] ^= 0xff
	if _, _, err := decodeAll("x.snappy", data); !errors.Is(err, ErrCorrupt) {
		t.Errorf("corrupt framed snappy: %v", err)
	}
	if _, _, err := decodeAll("x.snappy", buf.Bytes()[:buf.Len()-3]); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("truncated framed snappy: %v", err)
	}
}

func TestLZFDecodeErrors(t *testing.T) {
	out := make([]byte, 10)
	for _, tc := range []struct {
		in   []byte
		want error
	}{
		{[]byte{5, 'a'}, errLZFTruncated},
		{[]byte{0, 'a', 0x20}, errLZFTruncated},
		{[]byte{0, 'a', 0xe0}, errLZFTruncated},
		{[]byte{0, 'a', 0x20, 5}, errLZFBackRef},
		{[]byte{0, 'a', 0xe0, 20, 0}, errLZFOverflow},
		{[]byte{11, 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}, errLZFOverflow},
	} {
		if _, err := lzfDecode(tc.in, out); err != tc.want {
			t.Errorf("lzfDecode(% x) = %v, want %v", tc.in, err, tc.want)
		}
	}
	n, err := lzfDecode([]byte{0, 'a', 0x40, 0}, out) // 'a' then copy 4 from distance 1
	if err != nil || string(out[:n]) != "aaaaa" {
		t.Errorf("overlapping copy: %q %v", out[:n], err)
	}
}

func itoa(n int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
		if n == 0 {
			return string(b)
		}
	}
}
