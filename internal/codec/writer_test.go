package codec

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestZstdWriterSparkSettings checks that zstd streams are framed as
// Spark's level-1 zstd-jni streams are: no content checksum, a window of
// at most 512 KiB, and content that decodes back unchanged.
func TestZstdWriterSparkSettings(t *testing.T) {
	plain := []byte(strings.Repeat(`{"Event":"SparkListenerTaskEnd","Stage ID":3,"Task Info":{"Task ID":12345}}`+"\n", 40000))
	out, _ := compress(t, Zstd, plain, 0)
	if len(out) < 6 || !bytes.Equal(out[:4], []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		t.Fatalf("not a zstd frame: % x", out[:min(len(out), 6)])
	}
	fhd := out[4]
	if fhd&0x04 != 0 {
		t.Error("frame has a content checksum; zstd-jni writes none by default")
	}
	if fhd&0x20 == 0 { // not single-segment: a window descriptor follows
		wd := out[5]
		base := uint64(1) << (10 + wd>>3)
		window := base + base/8*uint64(wd&7)
		if window > 512<<10 {
			t.Errorf("window %d bytes, want at most 512 KiB (libzstd level 1)", window)
		}
	}
	dec, err := zstd.NewReader(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	got, err := io.ReadAll(dec)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, plain) {
		t.Errorf("decoded %d bytes differ from the %d written", len(got), len(plain))
	}
}
