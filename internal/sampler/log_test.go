package sampler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// lines renders log samples as "path@offset:text" relative to dir.
func lines(t *testing.T, s Sampler, dir string) []string {
	t.Helper()
	out, err := s.Sample(time.UnixMilli(1000), nil)
	if err != nil {
		t.Fatal(err)
	}
	var r []string
	for _, x := range out {
		if x.Type != model.LogLineType || x.Host != "h" || x.Time != 1000 {
			t.Fatalf("sample %+v", x)
		}
		rel, _ := filepath.Rel(dir, x.Target)
		r = append(r, fmt.Sprintf("%s@%d:%s", rel, int64(x.Value), x.Text))
	}
	return r
}

func want(t *testing.T, step string, got []string, w ...string) {
	t.Helper()
	if strings.Join(got, "|") != strings.Join(w, "|") {
		t.Fatalf("%s: got %q, want %q", step, got, w)
	}
}

func TestLogSamplerFollows(t *testing.T) {
	dir := t.TempDir()
	syslog := filepath.Join(dir, "syslog")
	appendFile(t, syslog, "before the agent\n")
	appendFile(t, filepath.Join(dir, "old.gz"), "\x1f\x8b binary\n")
	s, err := Build("log", Config{Host: "h", LogDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	want(t, "start", lines(t, s, dir)) // existing content is not shipped

	appendFile(t, syslog, "a\r\nb")
	want(t, "partial", lines(t, s, dir), "syslog@17:a")
	appendFile(t, syslog, "\n")
	want(t, "completed", lines(t, s, dir), "syslog@20:b")

	sub := filepath.Join(dir, "application_1", "container_1")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(sub, "stderr"), "new file\n")
	want(t, "new file", lines(t, s, dir), "application_1/container_1/stderr@0:new file")

	// Rotation: a line lands in syslog, syslog is renamed to syslog.1 before
	// it is read, and a new syslog starts.
	appendFile(t, syslog, "c\n")
	if err := os.Rename(syslog, syslog+".1"); err != nil {
		t.Fatal(err)
	}
	appendFile(t, syslog, "d\n")
	got := lines(t, s, dir)
	if len(got) != 2 || !(got[0] == "syslog.1@22:c" && got[1] == "syslog@0:d" || got[1] == "syslog.1@22:c" && got[0] == "syslog@0:d") {
		t.Fatalf("rotation: got %q, want syslog.1@22:c and syslog@0:d", got)
	}

	// Truncation: the offset goes back to 0.
	if err := os.Truncate(syslog, 0); err != nil {
		t.Fatal(err)
	}
	appendFile(t, syslog, "e\n")
	want(t, "truncated", lines(t, s, dir), "syslog@0:e")
	// Rewritten past the old offset: the byte before it is no newline.
	if err := os.WriteFile(syslog, []byte("xyz\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want(t, "rewritten", lines(t, s, dir), "syslog@0:xyz")
	want(t, "quiet", lines(t, s, dir))
}

// TestLogSamplerBounds checks the per-call read budget (every line still
// arrives, in order, over several calls) and over-long lines.
func TestLogSamplerBounds(t *testing.T) {
	dir := t.TempDir()
	s, err := newLogSampler(Config{Host: "h", LogDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	ls := s.(*logSampler)
	ls.budget, ls.maxLine = 11, 8
	want(t, "start", lines(t, s, dir))
	appendFile(t, filepath.Join(dir, "f"), "l1\nl2\nl3\nl4\nl5\n0123456789abcdefghijklmnop\nok\n")
	var all []string
	for i := 0; i < 20; i++ {
		all = append(all, lines(t, s, dir)...)
	}
	want(t, "budget", all, "f@0:l1", "f@3:l2", "f@6:l3", "f@9:l4", "f@12:l5", "f@15:01234567", "f@42:ok")
}

func TestLogSamplerNoDirs(t *testing.T) {
	if _, err := Build("log", Config{}); err == nil || !strings.Contains(err.Error(), "no log folders") {
		t.Fatalf("err %v", err)
	}
}

func BenchmarkLogSample(b *testing.B) {
	dir := b.TempDir()
	s, _ := Build("log", Config{Host: "h", LogDirs: []string{dir}})
	path := filepath.Join(dir, "app.log")
	line := strings.Repeat("x", 119) + "\n"
	chunk := strings.Repeat(line, 1000)
	var buf []model.Sample
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for b.Loop() {
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		f.WriteString(chunk)
		f.Close()
		buf, _ = s.Sample(time.Now(), buf[:0])
	}
}

// FuzzLogSampler writes data to a followed file in two appends, with a
// small read budget, and checks that the lines shipped over enough calls
// are exactly the file's lines, each at its true offset.
func FuzzLogSampler(f *testing.F) {
	f.Add([]byte("a\nbb\r\n"), []byte("c\n\nd"), uint8(3))
	f.Add([]byte("no newline"), []byte(" yet\n"), uint8(1))
	f.Fuzz(func(t *testing.T, first, second []byte, budget uint8) {
		dir := t.TempDir()
		s, _ := newLogSampler(Config{Host: "h", LogDirs: []string{dir}})
		ls := s.(*logSampler)
		ls.budget = int(budget) + 4
		limit := ls.lineLimit()
		if _, err := s.Sample(time.Now(), nil); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "f")
		var out []model.Sample
		for _, chunk := range [][]byte{first, second} {
			appendFile(t, path, string(chunk))
			for i := 0; i < len(first)+len(second)+2; i++ {
				var err error
				if out, err = s.Sample(time.Now(), out); err != nil {
					t.Fatal(err)
				}
			}
		}
		// Expected: every complete line at its offset, without its CR and
		// cut to the limit, and the unterminated tail too once it is over
		// the limit (a last CR may be its CRLF's).
		data := string(first) + string(second)
		var exp []string
		var off int
		pieces := strings.Split(data, "\n")
		for k, p := range pieces {
			if k < len(pieces)-1 || len(strings.TrimSuffix(p, "\r")) > limit {
				if k < len(pieces)-1 {
					p = strings.TrimSuffix(p, "\r")
				}
				exp = append(exp, fmt.Sprintf("%d:%s", off, p[:min(len(p), limit)]))
			}
			off += len(pieces[k]) + 1
		}
		var got []string
		for _, x := range out {
			got = append(got, fmt.Sprintf("%d:%s", int64(x.Value), x.Text))
		}
		if strings.Join(got, "|") != strings.Join(exp, "|") {
			t.Fatalf("shipped %q, want %q", got, exp)
		}
	})
}
