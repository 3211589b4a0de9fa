package codec

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The cross-check against the Java libraries Spark uses. Debian packages
// (listed in .ci/packages-codec.txt) provide them; without them the tests
// skip locally and fail under CI=true.

var updateFixtures = flag.Bool("update-fixtures", false, "rewrite testdata/java-* with the Java libraries")

// javaJars are the libraries Spark compresses with, as Debian installs them.
var javaJars = []string{
	"/usr/share/java/lz4-java.jar",     // liblz4-java
	"/usr/share/java/snappy-java.jar",  // libsnappy-java
	"/usr/share/java/compress-lzf.jar", // libcompress-lzf-java
	"/usr/share/java/zstd-jni.jar",     // libzstd-jni-java
}

// javaCodecs are the codecs SparkCodecs.java knows.
var javaCodecs = []Codec{LZ4, LZF, Snappy, Zstd}

// sparkJava compiles testdata/java/SparkCodecs.java and returns a function
// running a batch of its commands in one JVM.
func sparkJava(t *testing.T) func(cmds ...[]string) {
	t.Helper()
	need := func(what string) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing: CI must install the packages in .ci/packages-codec.txt", what)
		}
		t.Skipf("%s missing (apt-get install $(cat .ci/packages-codec.txt)); skipping the Java cross-check", what)
	}
	javac, err := exec.LookPath("javac")
	if err != nil {
		need("javac")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		need("java")
	}
	for _, jar := range javaJars {
		if _, err := os.Stat(jar); err != nil {
			need(jar)
		}
	}
	dir := t.TempDir()
	cp := strings.Join(javaJars, string(os.PathListSeparator))
	src, _ := filepath.Abs(filepath.Join("testdata", "java", "SparkCodecs.java"))
	if out, err := exec.Command(javac, "-d", dir, "-cp", cp, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cp = dir + string(os.PathListSeparator) + cp
	return func(cmds ...[]string) {
		t.Helper()
		var batch strings.Builder
		for _, c := range cmds {
			batch.WriteString(strings.Join(c, "\t") + "\n")
		}
		file := filepath.Join(dir, "batch.txt")
		if err := os.WriteFile(file, []byte(batch.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(java, "-cp", cp, "SparkCodecs", "batch", file).CombinedOutput(); err != nil {
			t.Fatalf("java SparkCodecs batch:\n%s%v\n%s", batch.String(), err, out)
		}
	}
}

// javaText is the cross-check input: event-log-like lines, non-ASCII text,
// a long line (longer than a block), and a final newline.
func javaText() []byte {
	var b bytes.Buffer
	b.Write(sampleLog(400 << 10))
	b.WriteString(`{"Event":"SparkListenerEnvironmentUpdate","Note":"ünïcödé ✓ 日本語"}` + "\n")
	b.WriteString(`{"Event":"Long","Value":"` + strings.Repeat("0123456789abcdef", 6000) + `"}` + "\n")
	return b.Bytes()
}

func TestJavaCrossCheck(t *testing.T) {
	run := sparkJava(t)
	dir := t.TempDir()
	plain := javaText()
	in := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(in, plain, 0o644); err != nil {
		t.Fatal(err)
	}
	flushes := []string{"1", "10", "0"}
	javaOut := func(c Codec, flush string) string { return filepath.Join(dir, "java-"+flush+c.Extension()) }
	goOut := func(c Codec) string { return filepath.Join(dir, "go"+c.Extension()) }
	back := func(c Codec) string { return filepath.Join(dir, "back-"+c.String()) }

	// Java writes as Spark's event logging does, flushing every 1 or 10
	// lines or never.
	var cmds [][]string
	for _, c := range javaCodecs {
		for _, flush := range flushes {
			cmds = append(cmds, []string{"compress", c.String(), in, javaOut(c, flush), flush})
		}
	}
	var small string
	if *updateFixtures {
		small = filepath.Join("testdata", "java-plain.txt")
		if err := os.WriteFile(small, sampleLog(6<<10), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, c := range javaCodecs {
			cmds = append(cmds, []string{"compress", c.String(), small, filepath.Join("testdata", "java"+c.Extension()), "5"})
		}
	}
	run(cmds...)

	// Go reads what Java wrote, whole and cut anywhere.
	for _, c := range javaCodecs {
		for _, flush := range flushes {
			data, err := os.ReadFile(javaOut(c, flush))
			if err != nil {
				t.Fatal(err)
			}
			got, detected, err := decodeAll(filepath.Base(javaOut(c, flush)), data)
			if err != nil || detected != c || !bytes.Equal(got, plain) {
				t.Errorf("%v flushed every %s lines: Go decoded %d of %d bytes as %v, err %v", c, flush, len(got), len(plain), detected, err)
			}
			for _, cut := range []int{len(data) / 3, len(data) / 2, len(data) - 1} {
				got, _, err := decodeAll("x", data[:cut])
				if !bytes.HasPrefix(plain, got) {
					t.Errorf("%v cut %d: output is not a prefix", c, cut)
				}
				if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("%v cut %d: %v", c, cut, err)
				}
			}
		}
	}

	// Java reads what Go wrote: two streams concatenated (Spark reads
	// concatenated streams, as shuffle files have them).
	cmds = nil
	for _, c := range javaCodecs {
		var buf bytes.Buffer
		for range 2 {
			w, err := NewWriter(c, &buf)
			if err != nil {
				t.Fatal(err)
			}
			for _, line := range bytes.SplitAfter(plain, []byte("\n")) {
				w.Write(line)
				if len(line)%7 == 0 {
					w.Flush()
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(goOut(c), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, []string{"decompress", c.String(), goOut(c), back(c)})
	}
	run(cmds...)
	want := append(bytes.Clone(plain), plain...)
	for _, c := range javaCodecs {
		got, err := os.ReadFile(back(c))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%v: Java decoded %d bytes of Go's stream, want %d", c, len(got), len(want))
		}
	}
}

// TestJavaFixtures decodes small streams the Java libraries wrote (committed
// in testdata; regenerate with go test -run TestJavaCrossCheck -update-fixtures).
func TestJavaFixtures(t *testing.T) {
	plain, err := os.ReadFile(filepath.Join("testdata", "java-plain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range javaCodecs {
		data, err := os.ReadFile(filepath.Join("testdata", "java"+c.Extension()))
		if err != nil {
			t.Fatal(err)
		}
		got, detected, err := decodeAll("java"+c.Extension(), data)
		if err != nil || detected != c || !bytes.Equal(got, plain) {
			t.Errorf("%v: decoded %d of %d bytes as %v, err %v", c, len(got), len(plain), detected, err)
		}
		// Without the extension, magic alone must tell.
		if got, detected, err := decodeAll("EVENT_LOG_1", data); err != nil || detected != c || !bytes.Equal(got, plain) {
			t.Errorf("%v without extension: detected %v, err %v", c, detected, err)
		}
	}
}
