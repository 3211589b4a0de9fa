package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// buildBinary builds clusterlens into dir and returns its path.
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "clusterlens")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/clusterlens/clusterlens/cmd/clusterlens").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// writeLongLineLog writes a gzip'd Spark log whose third line is a valid
// event of size bytes (low-entropy text: 2 GiB give an 8 MB file).
func writeLongLineLog(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	zw, _ := gzip.NewWriterLevel(bw, gzip.DefaultCompression)
	zw.Write([]byte(`{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}` + "\n" +
		`{"Event":"SparkListenerApplicationStart","App Name":"long","App ID":"app-long","Timestamp":1700000000000,"User":"u"}` + "\n" +
		longLineHead))
	chunk := bytes.Repeat([]byte("abcde fgh abc defgh ab cdefg habc def ghabcd efgha bcdefg "), 1<<16)
	for n := size; n > 0; n -= int64(len(chunk)) {
		zw.Write(chunk[:min(n, int64(len(chunk)))])
	}
	zw.Write([]byte(longLineTail + "\n" + `{"Event":"SparkListenerApplicationEnd","Timestamp":1700000016000}` + "\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
}

// The long line is an environment update with one huge property.
const longLineHead, longLineTail = `{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{"k":"`, `"}}`

// peakRSS runs bin with args and returns its exit code, stderr and peak
// resident set size in MiB.
func peakRSS(t *testing.T, bin string, args ...string) (int, string, int64) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return code, errb.String(), ru.Maxrss >> 10 // KiB on Linux
}

// TestLongLineMemory: analyze reads a gzip'd log holding one 2 GiB line in
// at most 100 MB of memory (the line is skipped unread, reported with its
// length), and a folder of eight such logs in at most 150 MB (the decoders
// share one budget). docs/PERFORMANCE.md has the numbers before and after.
func TestLongLineMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2 GiB of log text (compressed to 8 MB) and reads it nine times")
	}
	dir := t.TempDir()
	bin := buildBinary(t, dir)
	one := filepath.Join(dir, "one.json.gz")
	writeLongLineLog(t, one, 2<<30)
	st, _ := os.Stat(one)
	code, errs, rss := peakRSS(t, bin, "analyze", one)
	t.Logf("one 2 GiB line (%d bytes of gzip): exit %d, peak RSS %d MiB", st.Size(), code, rss)
	want := fmt.Sprintf("line of %d bytes (2.0 GiB) over the 8.0 MiB line limit", 2<<30+len(longLineHead)+len(longLineTail))
	if code != ExitPartial || !strings.Contains(errs, want) {
		t.Errorf("exit %d: %s", code, errs)
	}
	if rss > 100 {
		t.Errorf("peak RSS %d MiB for one 2 GiB line, want <= 100", rss)
	}
	folder := filepath.Join(dir, "eight")
	os.Mkdir(folder, 0o755)
	for _, c := range "12345678" {
		if err := os.Link(one, filepath.Join(folder, "app-"+string(c)+".json.gz")); err != nil {
			t.Fatal(err)
		}
	}
	code, errs, rss = peakRSS(t, bin, "analyze", folder)
	t.Logf("eight 2 GiB lines: exit %d, peak RSS %d MiB", code, rss)
	if code != ExitPartial || strings.Count(errs, "clusterlens: warning: ") != 8 {
		t.Errorf("exit %d: %s", code, errs)
	}
	if rss > 150 {
		t.Errorf("peak RSS %d MiB for eight logs of a 2 GiB line, want <= 150", rss)
	}
}
