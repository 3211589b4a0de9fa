package model

import (
	"bytes"
	"encoding/gob"
	"strings"
	"testing"
)

// TestTextRoundTrip: a text reads back as written, packed when long and
// repetitive, through String and through gob (decoder snapshots).
func TestTextRoundTrip(t *testing.T) {
	long := strings.Repeat("+- Project [a#1, b#2, c#3]\n", 200)
	for _, s := range []string{"", "short", long} {
		x := PackText(s)
		if x.String() != s || x.Len() != len(s) || x.Empty() != (s == "") {
			t.Errorf("%d bytes: String %d bytes, Len %d, Empty %v", len(s), len(x.String()), x.Len(), x.Empty())
		}
		if s == long && x.Size() >= len(s)/4 {
			t.Errorf("long text kept in %d of %d bytes", x.Size(), len(s))
		}
		var buf bytes.Buffer
		if err := gob.NewEncoder(&buf).Encode(struct{ T Text }{x}); err != nil {
			t.Fatal(err)
		}
		var y struct{ T Text }
		if err := gob.NewDecoder(&buf).Decode(&y); err != nil {
			t.Fatal(err)
		}
		if y.T.String() != s || y.T.Len() != len(s) || y.T.Size() != x.Size() {
			t.Errorf("%d bytes after gob: %d bytes, Len %d", len(s), len(y.T.String()), y.T.Len())
		}
	}
	var bad Text
	if err := bad.GobDecode([]byte{7, 1, 'x'}); err == nil {
		t.Error("a bad flag decoded")
	}
}
