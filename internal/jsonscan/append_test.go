package jsonscan

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzAppendString checks that what AppendString writes decodes, with
// encoding/json and with the Scanner, back to the input (invalid UTF-8 as
// U+FFFD), for strings and byte slices alike.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\n\n\t\x01\x7f", "é😀", "\xff\xfe", "a\u2028b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := AppendString(nil, s)
		if string(AppendString(nil, []byte(s))) != string(out) {
			t.Fatalf("string and []byte forms differ for %q", s)
		}
		if std := encodingJSON(t, s); string(out) != std {
			t.Fatalf("%q -> %s, encoding/json writes %s", s, out, std)
		}
		var std string
		if err := json.Unmarshal(out, &std); err != nil {
			t.Fatalf("%q -> %s: %v", s, out, err)
		}
		want := string([]rune(s)) // invalid UTF-8 becomes U+FFFD, rune by rune
		if !utf8.ValidString(s) {
			want = ""
			for _, r := range s {
				want += string(r)
			}
		}
		if std != want {
			t.Fatalf("%q -> %s -> %q", s, out, std)
		}
		var sc Scanner
		sc.Reset(out)
		if got := sc.String(); got != want || sc.End() != nil {
			t.Fatalf("scanner read %q, want %q (%v)", got, want, sc.Err())
		}
	})
}

// encodingJSON is s as encoding/json writes it without HTML escaping.
func encodingJSON(t testing.TB, s string) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// TestAppendStringEveryByteEverywhere puts each byte value at each place of
// strings of 1 to 17 bytes (the eight-byte skip's edges) among plain bytes
// and checks the output against encoding/json's.
func TestAppendStringEveryByteEverywhere(t *testing.T) {
	for n := 1; n <= 17; n++ {
		for pos := range n {
			for c := range 256 {
				b := bytes.Repeat([]byte{'a'}, n)
				b[pos] = byte(c)
				if got, want := string(AppendString(nil, b)), encodingJSON(t, string(b)); got != want {
					t.Fatalf("byte %#x at %d of %d: %s, encoding/json %s", c, pos, n, got, want)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "\"", "\\", "\x00", "\x1f", "\x7f", "\x80", "\xff", "é", "😀", "\u2028", "\u2029", "<>&", "        "}
	for range 20000 {
		var sb strings.Builder
		for range rng.IntN(40) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		s := sb.String()
		if got, want := string(AppendString(nil, s)), encodingJSON(t, s); got != want {
			t.Fatalf("%q: %s, encoding/json %s", s, got, want)
		}
	}
}

// BenchmarkAppendString writes an event log's typical strings: short
// plain keys, a long plain value and a value with escapes.
func BenchmarkAppendString(b *testing.B) {
	strs := []string{"Event", "SparkListenerTaskEnd", "Stage ID", "Task Info", "executor driver",
		strings.Repeat("org.apache.spark.sql.execution.WholeStageCodegenExec ", 20),
		"line one\nline two\tcol \"quoted\" é"}
	var n int64
	for _, s := range strs {
		n += int64(len(s))
	}
	b.SetBytes(n)
	buf := make([]byte, 0, 4096)
	for b.Loop() {
		buf = buf[:0]
		for _, s := range strs {
			buf = AppendString(buf, s)
		}
	}
}
