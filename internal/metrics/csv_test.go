package metrics

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
)

// writeCodec writes data to path compressed with c.
func writeCodec(t testing.TB, path string, c codec.Codec, data []byte) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := codec.NewWriter(c, f)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func readAll(t testing.TB, read func(func(*model.Sample) error) error) []model.Sample {
	t.Helper()
	var out []model.Sample
	if err := read(func(s *model.Sample) error { out = append(out, *s); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadCSVFileCodecs reads the simulator's metrics plain, zstd and gzip
// compressed, under their usual names and under a misleading one, and
// checks every row against strconv's reading of the plain text.
func TestReadCSVFileCodecs(t *testing.T) {
	data := simCSVBytes(t)
	dir := t.TempDir()
	files := map[string]codec.Codec{"m.csv": codec.None, "m.csv.zst": codec.Zstd, "m.csv.gz": codec.Gzip, "zstd-named.csv": codec.Zstd}
	var want []model.Sample
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, ",")
		ts, err1 := strconv.ParseInt(f[0], 10, 64)
		v, err2 := strconv.ParseFloat(f[3], 64)
		if i == 0 && err1 != nil {
			continue // header
		}
		if err1 != nil || err2 != nil {
			t.Fatalf("line %d: %q", i+1, line)
		}
		want = append(want, model.Sample{Time: ts, Host: f[1], Type: f[2], Value: v})
	}
	for name, c := range files {
		path := filepath.Join(dir, name)
		writeCodec(t, path, c, data)
		got := readAll(t, func(fn func(*model.Sample) error) error { return ReadCSVFile(path, fn) })
		if len(got) != len(want) {
			t.Fatalf("%s: %d samples, want %d", name, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: sample %d = %+v, want %+v", name, i, got[i], want[i])
			}
		}
	}
	trunc := filepath.Join(dir, "cut.csv.zst")
	b, _ := os.ReadFile(filepath.Join(dir, "m.csv.zst"))
	if err := os.WriteFile(trunc, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := ReadCSVFile(trunc, func(*model.Sample) error { return nil }); err == nil || !strings.Contains(err.Error(), "cut.csv.zst") {
		t.Fatalf("truncated file: error %v, want one naming it", err)
	}
}

func TestReadCSVErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"timestamp_ms,host,metric,value\n1,h,m,1\n2,h,m\n", "m.csv:3: want 4 fields"},
		{"1,h,m,1,2\n", "m.csv:1: want 4 fields timestamp_ms,host,metric,value, got 5"},
		{"1,h,m,1\nx,h,m,1\n", "m.csv:2: timestamp_ms"},
		{"1,h,m,one\n", "m.csv:1: value: want a number"},
		{"1,,m,1\n", "m.csv:1: want a host"},
	} {
		err := ReadCSV(strings.NewReader(c.in), "m.csv", func(*model.Sample) error { return nil })
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
}

// FuzzReadCSV checks ReadCSV against strconv and strings.Split on the same
// lines: every accepted row has the fields they read, every line they
// accept is accepted, and errors name the file and line.
func FuzzReadCSV(f *testing.F) {
	data := simCSVBytes(f)
	f.Add(data[:2000])
	f.Add([]byte("timestamp_ms,host,metric,value\r\n-5,h,m,1e300\n+7,h,m,.5\n9223372036854775807,h,m,-0\n\n1,h,m,NaN\n"))
	f.Add([]byte("12345678901234567890,h,m,1\n1,h,m,123456789012345678\n1,h,m,0x1p-2\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		var got []model.Sample
		err := ReadCSV(bytes.NewReader(in), "f.csv", func(s *model.Sample) error { got = append(got, *s); return nil })
		if err != nil && !strings.HasPrefix(err.Error(), "f.csv") {
			t.Fatalf("error %q does not name the file", err)
		}
		// The reference: strconv on strings.Split of each line, up to the
		// first line it rejects.
		var want []model.Sample
		refErr := ""
		for i, line := range strings.Split(string(in), "\n") {
			line = strings.TrimRight(line, "\r")
			if line == "" {
				continue
			}
			if len(line) > 1<<20-2 {
				return // over bufio.Scanner's limit: an error either way
			}
			fs := strings.Split(line, ",")
			if len(fs) != 4 {
				refErr = fmt.Sprintf("f.csv:%d:", i+1)
				break
			}
			ts, err1 := strconv.ParseInt(fs[0], 10, 64)
			if err1 != nil && i == 0 && fs[0] == "timestamp_ms" {
				continue
			}
			v, err2 := strconv.ParseFloat(fs[3], 64)
			if err1 != nil || err2 != nil || fs[1] == "" || fs[2] == "" {
				refErr = fmt.Sprintf("f.csv:%d:", i+1)
				break
			}
			want = append(want, model.Sample{Time: ts, Host: fs[1], Type: fs[2], Value: v})
		}
		if (err == nil) != (refErr == "") || err != nil && !strings.HasPrefix(err.Error(), refErr) {
			t.Fatalf("error %v, the reference stops at %q", err, refErr)
		}
		if len(got) != len(want) {
			t.Fatalf("%d samples, the reference reads %d", len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if g.Time != w.Time || g.Host != w.Host || g.Type != w.Type ||
				!(g.Value == w.Value && math.Signbit(g.Value) == math.Signbit(w.Value) || math.IsNaN(g.Value) && math.IsNaN(w.Value)) {
				t.Fatalf("sample %d: %+v, the reference reads %+v", i, g, w)
			}
		}
	})
}
