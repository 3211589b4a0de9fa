package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// tinyLog is a small Spark event log of one application with one task.
func tinyLog(id string) string {
	return `{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}
{"Event":"SparkListenerApplicationStart","App Name":"t","App ID":"` + id + `","Timestamp":1700000001000,"User":"u"}
{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1700000001100,"Stage Infos":[{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"RDD Info":[],"Parent IDs":[]}],"Stage IDs":[0]}
{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"Submission Time":1700000001100}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":1700000001200,"Executor ID":"1","Host":"h1"}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":1700000001200,"Executor ID":"1","Host":"h1","Finish Time":1700000001300}}
{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"s","Number of Tasks":1,"Submission Time":1700000001100,"Completion Time":1700000001400}}
{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":1700000001500,"Job Result":{"Result":"JobSucceeded"}}
{"Event":"SparkListenerApplicationEnd","Timestamp":1700000002000}
`
}

func writeFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// brokenLog is tinyLog with two malformed lines in its middle.
func brokenLog(id string) string {
	l := strings.Split(tinyLog(id), "\n")
	return strings.Join(append(l[:4:4], append([]string{`{"Event":"SparkListenerTaskStart",`, `not json`}, l[4:]...)...), "\n")
}

// warnings returns the stderr lines of a log read in part.
func warnings(stderr string) []string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "clusterlens: warning: ") {
			out = append(out, l)
		}
	}
	return out
}

// TestMalformedLinesExit3: a log with malformed lines in its middle is
// summarized, named on stderr in one line (count, first file and line), and
// the exit code is 3; a log whose only bad line is a cut-off last line (a
// log being written) is normal, exit 0.
func TestMalformedLinesExit3(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, filepath.Join(dir, "app-bad"), []byte(brokenLog("app-bad")))
	cut := writeFile(t, filepath.Join(dir, "cut", "app-cut.inprogress"), []byte(tinyLog("app-cut")+`{"Event":"SparkListenerTask`))
	code, out, errs := run(t, "summary", bad)
	w := warnings(errs)
	if code != ExitPartial || !strings.Contains(out, "app-bad") || len(w) != 1 ||
		!strings.Contains(w[0], bad+": app-bad read in part: 2 malformed lines skipped (first at "+bad+":5: ") {
		t.Errorf("exit %d, warnings %q\n%s", code, w, errs)
	}
	if code, _, errs := run(t, "summary", cut); code != ExitOK || errs != "" {
		t.Errorf("cut-off last line: exit %d: %s", code, errs)
	}
	// The same through analyze and api, for the folder of both.
	for _, args := range [][]string{{"analyze", dir}, {"api", dir, "applications"}} {
		code, out, errs := run(t, args...)
		if code != ExitPartial || !strings.Contains(out, "app-bad") || !strings.Contains(out, "app-cut") || len(warnings(errs)) != 1 {
			t.Errorf("%s: exit %d, stderr %s\n%s", args[0], code, errs, out)
		}
	}
}

// zstdBigWindow is a zstd frame that declares a 2 GiB window (window
// descriptor 0xa8: 2^(10+21)), holding text in one raw block.
func zstdBigWindow(text string) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8}
	n := len(text)<<3 | 1 // raw block, last
	b = append(b, byte(n), byte(n>>8), byte(n>>16))
	return append(b, text...)
}

// TestUnreadableFilesExit3: inside a folder, a file that cannot be read (a
// zstd frame needing more memory than allowed) is named on stderr with its
// reason and the flag that lifts it, files that are not logs are named as
// such, and the exit code is 3; with the limit raised the file is read.
func TestUnreadableFilesExit3(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "app-1"), []byte(tinyLog("app-1")))
	big := writeFile(t, filepath.Join(dir, "sub", "app-2.zst"), zstdBigWindow(tinyLog("app-2")))
	notes := writeFile(t, filepath.Join(dir, "notes.txt"), []byte("not a log\n"))
	code, out, errs := run(t, "summary", dir)
	if code != ExitPartial || !strings.Contains(out, "app-1") ||
		!strings.Contains(errs, "clusterlens: skipped "+big+": cannot decompress: ") ||
		!strings.Contains(errs, "window of 2.0 GiB (2147483648 bytes), limit 512 MiB") ||
		!strings.Contains(errs, "(--decoder-memory raises the limit)") ||
		!strings.Contains(errs, "clusterlens: note: skipped "+notes+": not a log") {
		t.Errorf("exit %d\n%s", code, errs)
	}
	code, out, errs = run(t, "summary", "--decoder-memory", "3GiB", dir)
	if code != ExitOK || !strings.Contains(out, "app-2") {
		t.Errorf("--decoder-memory 3GiB: exit %d\n%s", code, errs)
	}
}

// TestPermissionDeniedExit3 runs clusterlens as a user without permission on
// a file and a sub-folder of the folder it reads (as nobody through setpriv
// when the test runs as root): both are named on stderr and the exit code is
// 3. internal/source's TestPermissionDeniedIsNamed covers the same through a
// file system that refuses, whoever runs it.
func TestPermissionDeniedExit3(t *testing.T) {
	var prefix []string
	if os.Geteuid() == 0 {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("root without setpriv: no unprivileged user to run as")
		}
		prefix = []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"}
	}
	dir, err := os.MkdirTemp("", "clusterlens-perm-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := buildBinary(t, dir)
	logs := filepath.Join(dir, "logs")
	writeFile(t, filepath.Join(logs, "app-1"), []byte(tinyLog("app-1")))
	denied := writeFile(t, filepath.Join(logs, "app-2"), []byte(tinyLog("app-2")))
	sub := filepath.Dir(writeFile(t, filepath.Join(logs, "sub", "app-3"), []byte(tinyLog("app-3"))))
	for _, p := range []string{dir, bin, logs} {
		os.Chmod(p, 0o755)
	}
	os.Chmod(denied, 0)
	os.Chmod(sub, 0)
	defer os.Chmod(sub, 0o755)
	cmd := exec.Command(append(prefix, bin, "summary", logs)[0], append(prefix, bin, "summary", logs)[1:]...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != ExitPartial || !strings.Contains(out.String(), "app-1") ||
		!strings.Contains(errb.String(), "clusterlens: skipped "+denied+": unreadable: open: permission denied") ||
		!strings.Contains(errb.String(), "clusterlens: skipped "+sub+": unreadable folder: open: permission denied") {
		t.Errorf("err %v\n%s", err, errb.String())
	}
}

// TestTooLongLineExit3: a line over --max-line is skipped, the log named on
// stderr with the limit and the flag, exit 3; raised, the line is read.
func TestTooLongLineExit3(t *testing.T) {
	l := strings.SplitAfter(tinyLog("app-1"), "\n")
	env := `{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{"spark.app.name":"t","big":"` + strings.Repeat("x", 2<<20) + `"}}` + "\n"
	path := writeFile(t, filepath.Join(t.TempDir(), "app-1"), []byte(l[0]+env+strings.Join(l[1:], "")))
	code, out, errs := run(t, "summary", "--max-line", "1MiB", path)
	w := warnings(errs)
	if code != ExitPartial || !strings.Contains(out, "app-1") || len(w) != 1 ||
		!strings.Contains(w[0], fmt.Sprintf("1 line over the 1.0 MiB line limit skipped (first at %s:2: line of %d bytes (2.0 MiB)", path, len(env)-1)) ||
		!strings.HasSuffix(w[0], "(--max-line raises the limit)") {
		t.Errorf("exit %d, warnings %q", code, w)
	}
	if code, _, errs := run(t, "summary", "--max-line", "4MiB", path); code != ExitOK {
		t.Errorf("--max-line 4MiB: exit %d: %s", code, errs)
	}
	for _, args := range [][]string{{"--max-line", "12"}, {"--max-line", "lots"}, {"--decoder-memory", "1MiB"}} {
		if code, _, errs := run(t, append(append([]string{"summary"}, args...), path)...); code != ExitUsage {
			t.Errorf("%v: exit %d: %s", args, code, errs)
		}
	}
}

func TestNegativeRowsRefused(t *testing.T) {
	path := writeFile(t, filepath.Join(t.TempDir(), "app-1"), []byte(tinyLog("app-1")))
	for _, cmd := range []string{"summary", "analyze"} {
		code, _, errs := run(t, cmd, "--rows", "-5", path)
		if code != ExitUsage || !strings.Contains(errs, "--rows -5: want 0 (every row) or more") {
			t.Errorf("%s --rows -5: exit %d: %s", cmd, code, errs)
		}
	}
}

// TestProgressWithoutEvents: a small compressed file holding a log start and
// then a quarter of a gigabyte of blank lines takes a while to read and
// shows progress, whatever its stored size.
func TestProgressWithoutEvents(t *testing.T) {
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestSpeed)
	io.WriteString(zw, tinyLog("app-1"))
	blank := bytes.Repeat([]byte("\n"), 1<<20)
	for range 256 {
		zw.Write(blank)
	}
	zw.Close()
	path := writeFile(t, filepath.Join(t.TempDir(), "app-1.gz"), gz.Bytes())
	var out, errb bytes.Buffer
	code := execute(&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, terminal: true, progressDelay: time.Millisecond},
		[]string{"summary", path})
	if code != ExitOK || !regexp.MustCompile(`reading.*\d+%`).MatchString(errb.String()) {
		t.Errorf("exit %d, no progress bar on stderr (%d stored bytes): %q", code, gz.Len(), errb.String())
	}
}

// TestServeExit3 serves a folder holding a log read in part: it is logged,
// and serve stops with exit code 3.
func TestServeExit3(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "app-bad"), []byte(brokenLog("app-bad")))
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	done := make(chan error, 1)
	var logb bytes.Buffer
	go func() {
		done <- runServe(ctx, serveOptions{logs: []string{dir}, addr: "127.0.0.1:0"}, slog.New(slog.NewTextHandler(&logb, nil)), ready)
	}()
	select {
	case addr := <-ready:
		getRead(t, addr, "applications") // serve answers before it has read the log
	case err := <-done:
		t.Fatalf("serve ended: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start")
	}
	cancel()
	err := <-done
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != ExitPartial || !strings.Contains(logb.String(), "2 malformed lines") {
		t.Errorf("serve: %v\n%s", err, logb.String())
	}
}

// TestAPIExit3OnRealBrokenLog answers from a real log with a malformed line.
func TestAPIExit3OnRealBrokenLog(t *testing.T) {
	path := filepath.Join(sharedtest.Dir(t, "logs"), "rapids-tools/core/src/test/resources/spark-events-profiling/malformed_json_eventlog.zstd")
	code, out, errs := run(t, "api", path, "applications")
	if code != ExitPartial || !strings.HasPrefix(out, "[") || len(warnings(errs)) != 1 {
		t.Errorf("exit %d\n%s", code, errs)
	}
}

// TestMissingPathNotALogReadInPart: `summary good_log /missing` reads the
// good log, names the missing path once and counts it as a path that could
// not be read, not as a log read in part (issue 23); exit 3.
func TestMissingPathNotALogReadInPart(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, filepath.Join(dir, "app-1"), []byte(tinyLog("app-1")))
	missing := filepath.Join(dir, "missing")
	code, out, errb := run(t, "summary", good, missing)
	if code != ExitPartial || !strings.Contains(out, "app-1") {
		t.Fatalf("exit %d, stdout %q; want 3 and the good log's summary", code, out)
	}
	if !strings.Contains(errb, "0 logs read in part, 1 paths, files or folders unreadable") {
		t.Errorf("stderr does not count the missing path as unreadable:\n%s", errb)
	}
	if n := strings.Count(errb, missing); n != 1 {
		t.Errorf("stderr names %s %d times, want once:\n%s", missing, n, errb)
	}
}

// TestUnsupportedSchemeNamed: a URL of a scheme no store reads is refused
// naming the scheme, not as a file that does not exist; file:// URLs (as
// spark.eventLog.dir writes them) are local paths.
func TestUnsupportedSchemeNamed(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"ftp://x/y", `unsupported URL scheme "ftp"`},
		{"http://shs.example:18080/x", `unsupported URL scheme "http"`},
		{"hdfs://nn/spark-events", "HDFS is not readable yet"},
	} {
		code, _, errb := run(t, "summary", c.path)
		if code != ExitError || !strings.Contains(errb, c.want) || strings.Contains(errb, "no such file") {
			t.Errorf("summary %s: exit %d, stderr %q; want 1 and %q", c.path, code, errb, c.want)
		}
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "app-2"), []byte(tinyLog("app-2")))
	if code, out, errb := run(t, "summary", "file://"+dir); code != 0 || !strings.Contains(out, "app-2") {
		t.Errorf("summary file://%s: exit %d, stderr %q", dir, code, errb)
	}
}

// TestServeNoSourceExit1: serve with no readable source exits 1 at once,
// naming the source and the cause on stderr.
func TestServeNoSourceExit1(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "spark-events")
	code, _, errb := run(t, "serve", "--logs", missing, "--addr", "127.0.0.1:0")
	if code != ExitError || !strings.Contains(errb, "no log source can be read") || !strings.Contains(errb, missing+": ") ||
		!strings.Contains(errb, "no such file or directory") {
		t.Errorf("exit %d, stderr %q; want 1 naming %s and the cause", code, errb, missing)
	}
}

// TestProgressAllStoredBytesEarly: a compressed file's stored bytes can all
// be counted before the bar appears while decoding goes on; the bar still
// shows until reading stops.
func TestProgressAllStoredBytesEarly(t *testing.T) {
	var errb bytes.Buffer
	e := &env{stderr: &errb, terminal: true, progressDelay: time.Millisecond}
	count, done := newProgress(e, 1000, "reading")
	count(1000)
	time.Sleep(50 * time.Millisecond)
	done()
	if !regexp.MustCompile(`reading.*\d+%`).MatchString(errb.String()) {
		t.Errorf("no progress bar on stderr: %q", errb.String())
	}
}
