package sim

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestFileWriter writes files of sizes around the alignment and buffer
// boundaries in chunks of several sizes, and reads back the same bytes,
// in a temporary folder and, where there is one, on tmpfs (which refuses
// direct I/O).
func TestFileWriter(t *testing.T) {
	dirs := []string{t.TempDir()}
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "clusterlens-test"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			dirs = append(dirs, d)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 3*fileBufSize+5000)
	for i := range data {
		data[i] = byte(rng.IntN(256))
	}
	sizes := []int{0, 1, directAlign - 1, directAlign, directAlign + 1, fileBufSize - 1, fileBufSize,
		fileBufSize + 1, 2*fileBufSize + directAlign, len(data)}
	for _, dir := range dirs {
		for _, size := range sizes {
			for _, chunk := range []int{1000, 64 << 10, 3 * fileBufSize} {
				if chunk == 1000 && size > fileBufSize+1 {
					continue
				}
				path := filepath.Join(dir, "f")
				w, err := createFile(path)
				if err != nil {
					t.Fatal(err)
				}
				for p := data[:size]; len(p) > 0; {
					k := min(chunk, len(p))
					if n, err := w.Write(p[:k]); err != nil || n != k {
						t.Fatalf("write %d: %d, %v", k, n, err)
					}
					p = p[k:]
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				got, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, data[:size]) {
					t.Errorf("%s: size %d in chunks of %d: read back %d bytes, not the ones written", dir, size, chunk, len(got))
				}
				if _, err := w.Write([]byte("x")); err == nil {
					t.Error("write after Close succeeded")
				}
			}
		}
	}
}
