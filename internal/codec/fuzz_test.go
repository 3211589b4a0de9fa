package codec

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// fuzzSeeds adds valid, truncated and concatenated streams of codec c.
func fuzzSeeds(f *testing.F, c Codec) {
	for _, plain := range [][]byte{nil, []byte("x"), sampleLog(3000), randomBytes(500)} {
		data, _ := compress(f, c, plain, 700)
		f.Add(data)
		if len(data) > 10 {
			f.Add(data[:len(data)/2])
			f.Add(append(bytes.Clone(data), data...))
		}
	}
}

// fuzzDecode decodes data as codec c: it must not panic, must stop, and
// must fail only with an *Error.
func fuzzDecode(t *testing.T, c Codec, data []byte) {
	r, err := NewReader(c, "fuzz", bytes.NewReader(data))
	var ce *Error
	if errors.Is(err, ErrWindowTooLarge) && errors.As(err, &ce) {
		return // a zstd frame declaring more than the limit: refused before reading
	}
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// zstd RLE blocks expand a few bytes into 128 KiB: cap the output.
	_, err = io.Copy(io.Discard, io.LimitReader(r, 64<<20))
	if err != nil && !errors.As(err, &ce) {
		t.Fatalf("error %v (%T) is not a *codec.Error", err, err)
	}
}

func FuzzLZ4(f *testing.F) {
	fuzzSeeds(f, LZ4)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, LZ4, data) })
}

func FuzzSnappy(f *testing.F) {
	fuzzSeeds(f, Snappy)
	var buf bytes.Buffer
	w := snappyFramedWriter(&buf)
	w.Write(sampleLog(2000))
	w.Close()
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, Snappy, data) })
}

func FuzzLZF(f *testing.F) {
	fuzzSeeds(f, LZF)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, LZF, data) })
}

func FuzzZstd(f *testing.F) {
	fuzzSeeds(f, Zstd)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, Zstd, data) })
}

func FuzzGzip(f *testing.F) {
	fuzzSeeds(f, Gzip)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzDecode(t, Gzip, data) })
}

// FuzzOpen detects and decodes arbitrary input under a few names.
func FuzzOpen(f *testing.F) {
	for _, c := range Codecs() {
		data, _ := compress(f, c, sampleLog(1000), 300)
		f.Add("app"+c.Extension(), data)
	}
	f.Add("app.lz4", []byte(`{"Event":"SparkListenerLogStart"}`))
	f.Add("app.lz4", []byte{0x04, 0x22, 0x4d, 0x18, 0x64, 0x40, 0xa7, 0x05, 0x00, 0x00, 0x80, 'h', 'e', 'l', 'l', 'o', 0, 0, 0, 0})
	f.Add("app.zst", []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8, 0x29, 0x00, 0x00, 'h', 'e', 'l', 'l', 'o'})
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		r, c, err := Open(name, bytes.NewReader(data))
		if errors.Is(err, ErrWindowTooLarge) {
			return // a zstd frame declaring more than the limit: refused before reading
		}
		if err != nil {
			t.Fatal(err)
		}
		if c != Detect(name, data[:min(len(data), HeadSize)]) {
			t.Fatalf("Open chose %v, Detect says otherwise", c)
		}
		defer r.Close()
		_, err = io.Copy(io.Discard, io.LimitReader(r, 64<<20))
		var ce *Error
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("error %v (%T) is not a *codec.Error", err, err)
		}
	})
}

// FuzzLZFBlock checks the LZF block decoder on raw blocks, and that the
// encoder's output decodes back to its input.
func FuzzLZFBlock(f *testing.F) {
	f.Add([]byte{0, 'a', 0x40, 0}, []byte("hello hello hello hello"))
	f.Add([]byte{0xe0, 0xff, 0xff}, sampleLog(2000))
	f.Fuzz(func(t *testing.T, block, plain []byte) {
		out := make([]byte, 1000)
		if n, err := lzfDecode(block, out); n > len(out) || (err == nil && n < 0) {
			t.Fatalf("lzfDecode returned %d", n)
		}
		plain = plain[:min(len(plain), lzfMaxChunk)]
		var tab lzfTable
		enc := make([]byte, lzfBound(len(plain)))
		n := lzfEncode(&tab, plain, enc)
		dec := make([]byte, len(plain))
		k, err := lzfDecode(enc[:n], dec)
		if err != nil || k != len(plain) || !bytes.Equal(dec, plain) {
			t.Fatalf("round trip of %d bytes: %d bytes, %v", len(plain), k, err)
		}
	})
}

// FuzzRoundTrip writes arbitrary data in every codec, with flushes, and
// reads it back.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte("hello\n"), uint16(3))
	f.Add(sampleLog(5000), uint16(1000))
	f.Fuzz(func(t *testing.T, plain []byte, flush uint16) {
		// Tiny blocks cost a table reset each: keep runs fast.
		flush = max(flush, 64)
		for _, c := range Codecs() {
			data, _ := compress(t, c, plain, int(flush))
			out, _, err := decodeAll("x"+c.Extension(), data)
			if err != nil || !bytes.Equal(out, plain) {
				t.Fatalf("%v: %d of %d bytes, %v", c, len(out), len(plain), err)
			}
		}
	})
}
