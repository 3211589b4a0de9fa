package codec

import (
	"bytes"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// cliCompress runs a compression command line (zstd, lz4) with args,
// feeding plain on stdin (so that the stream's size is unknown to it, as
// when a writer streams a log) and returns what it writes.
func cliCompress(t *testing.T, tool, pkg string, plain []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(sharedtest.Tool(t, tool, pkg), args...)
	cmd.Stdin = bytes.NewReader(plain)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v: %s", tool, args, err, errb.String())
	}
	return out.Bytes()
}

// cliDecompress checks that the command line itself reads stream back to
// plain: the independent reference for what the codec must read.
func cliDecompress(t *testing.T, tool string, stream, plain []byte, args ...string) {
	t.Helper()
	cmd := exec.Command(tool, args...)
	cmd.Stdin = bytes.NewReader(stream)
	out, err := cmd.Output()
	if err != nil || !bytes.Equal(out, plain) {
		t.Fatalf("%s %v does not read its own stream back (err %v, %d bytes)", tool, args, err, len(out))
	}
}

func readWith(t *testing.T, name string, stream []byte, o Options) ([]byte, Codec, int64, error) {
	t.Helper()
	r, c, err := OpenWith(name, bytes.NewReader(stream), o)
	if err != nil {
		return nil, c, 0, err
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	return got, c, Window(r), err
}

// TestZstdLongWindows reads frames that the zstd command line writes with
// long-range matching: a 128 MiB window (--long=27, the Databricks Photon
// case, which `zstd -d` reads by default) with the default limit, and a
// 2 GiB one (--long=31) only when the limit allows it; refused, the error
// names the window and the limit and says the input is not corrupt.
func TestZstdLongWindows(t *testing.T) {
	plain := sampleLog(3 << 20)
	zstd := sharedtest.Tool(t, "zstd", "zstd")

	w27 := cliCompress(t, "zstd", "zstd", plain, "-q", "--long=27", "-c")
	cliDecompress(t, zstd, w27, plain, "-q", "-d", "-c")
	got, c, window, err := readWith(t, "photon.zstd", w27, Options{})
	if err != nil || c != Zstd || !bytes.Equal(got, plain) {
		t.Fatalf("--long=27: codec %v, err %v, %d of %d bytes", c, err, len(got), len(plain))
	}
	if window != 128<<20 {
		t.Errorf("--long=27: window %d, want 128 MiB", window)
	}

	w31 := cliCompress(t, "zstd", "zstd", plain, "-q", "--long=31", "-c")
	cliDecompress(t, zstd, w31, plain, "-q", "-d", "--long=31", "-c")
	_, _, _, err = readWith(t, "big.zstd", w31, Options{})
	if !errors.Is(err, ErrWindowTooLarge) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("--long=31 under the default limit: err %v, want ErrWindowTooLarge", err)
	}
	for _, want := range []string{"big.zstd", "2.0 GiB", "2147483648", "128 MiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not name %q", err, want)
		}
	}
	got, _, window, err = readWith(t, "big.zstd", w31, Options{MaxWindow: 2 << 30})
	if err != nil || !bytes.Equal(got, plain) || window != 2<<30 {
		t.Fatalf("--long=31 with a 2 GiB limit: err %v, window %d, %d of %d bytes", err, window, len(got), len(plain))
	}
}

// TestZstdLaterFrameOverTheLimit: a stream whose first frame is small and
// whose second declares a 2 GiB window decodes the first, then refuses the
// second by its window, not as corrupt data.
func TestZstdLaterFrameOverTheLimit(t *testing.T) {
	plain := sampleLog(1 << 20)
	small := cliCompress(t, "zstd", "zstd", plain, "-q", "-c")
	big := cliCompress(t, "zstd", "zstd", plain, "-q", "--long=31", "-c")
	got, _, _, err := readWith(t, "two.zst", append(small, big...), Options{})
	if !errors.Is(err, ErrWindowTooLarge) || errors.Is(err, ErrCorrupt) {
		t.Fatalf("err %v, want ErrWindowTooLarge", err)
	}
	if !bytes.HasPrefix(got, plain) {
		t.Errorf("the first frame's %d bytes were not read before the refusal (got %d)", len(plain), len(got))
	}
}

// TestLZ4FrameFormat reads files the lz4 command line writes (frame format,
// magic 04 22 4D 18, and its legacy format), which Spark does not write but
// users meet; under a ".lz4" name they used to be refused as corrupt
// LZ4Block data.
func TestLZ4FrameFormat(t *testing.T) {
	plain := sampleLog(1 << 20)
	lz4 := sharedtest.Tool(t, "lz4", "lz4")
	for _, args := range [][]string{{"-q", "-c"}, {"-q", "-l", "-c"}, {"-q", "-9", "-BD", "--content-size", "-c"}} {
		stream := cliCompress(t, "lz4", "lz4", plain, args...)
		cliDecompress(t, lz4, stream, plain, "-q", "-d", "-c")
		got, c, _, err := readWith(t, "app-1.lz4", stream, Options{})
		if err != nil || c != LZ4Frame || !bytes.Equal(got, plain) {
			t.Errorf("lz4 %v: codec %v, err %v, %d of %d bytes", args, c, err, len(got), len(plain))
		}
	}
	// A corrupt frame says which format it is and what Spark writes.
	stream := cliCompress(t, "lz4", "lz4", plain, "-q", "-c")
	stream[len(stream)/2] ^= 0xff
	stream[len(stream)/2+1] ^= 0xff
	_, _, _, err := readWith(t, "app-1.lz4", stream, Options{})
	if err == nil || !strings.Contains(err.Error(), "LZ4 frame") || !strings.Contains(err.Error(), "Spark writes LZ4Block") {
		t.Errorf("corrupt frame: err %v", err)
	}
}
