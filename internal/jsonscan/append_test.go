package jsonscan

import (
	"encoding/json"
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
