package jsonscan

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWalk(t *testing.T) {
	doc := []byte(` {"a": 1, "b" :[true,false,null, -2.5e3, "x\"y", {"c":{}}], "s":"h\u00e9\n\ud83d\ude00",
		"n":null, "f": 12.9, "big": 123456789012345678901, "neg":-7, "q":"42"} `)
	var s Scanner
	s.Reset(doc)
	if !s.Object() {
		t.Fatal(s.Err())
	}
	got := map[string]any{}
	for k := s.Key(); k != nil; k = s.Key() {
		switch string(k) {
		case "a", "neg", "q", "f", "n":
			got[string(k)] = s.Int()
		case "s":
			got["s"] = s.String()
		case "big":
			got["big"] = s.Int()
		default:
			s.Skip()
		}
	}
	if err := s.End(); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": int64(1), "neg": int64(-7), "q": int64(42), "f": int64(12), "n": int64(0),
		"s": "hé\n😀", "big": int64(math.MaxInt64)}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %#v, want %#v", k, got[k], v)
		}
	}
}

func TestErrors(t *testing.T) {
	for _, doc := range []string{
		`{"a":1`, `{"a":1,}`, `{,"a":1}`, `{"a" 1}`, `{"a":[1,2}`, `{"a":tru}`, `{"a":1}x`,
		`{"Event":"X",_"JVM":{}}`, `{"a":"unterminated}`, `{"a":-}`, `{"a":1.}`, `[1 2]`, ``,
	} {
		var s Scanner
		s.Reset([]byte(doc))
		s.Skip()
		if s.End() == nil {
			t.Errorf("%q: no error", doc)
		}
	}
}

func TestDepthLimit(t *testing.T) {
	doc := bytes.Repeat([]byte("["), maxDepth+10)
	var s Scanner
	s.Reset(doc)
	s.Skip()
	if s.Err() == nil {
		t.Fatal("no error for deep nesting")
	}
}

// FuzzSkip checks the scanner accepts exactly what encoding/json accepts,
// apart from the documented tolerance of raw control characters, unchecked
// escapes and invalid UTF-8 inside strings.
func FuzzSkip(f *testing.F) {
	for _, s := range []string{`{"a":[1,{"b":null}],"c":"d"}`, `[]`, `{"x":-1.5e-3}`, `"\u0041"`, `{"a":"\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var s Scanner
		s.Reset(b)
		s.Skip()
		ours := s.End() == nil
		std := json.Valid(b)
		if std && !ours && bytes.Count(b, []byte("[")) < maxDepth {
			t.Fatalf("rejects valid JSON %q: %v", b, s.Err())
		}
		if ours && !std && utf8.Valid(b) && !bytes.ContainsAny(b, "\\\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f") {
			t.Fatalf("accepts invalid JSON %q", b)
		}
	})
}

func BenchmarkSkip(b *testing.B) {
	line := []byte(`{"Event":"SparkListenerTaskEnd","Stage ID":0,"Task Info":{"Task ID":1,"Host":"host-1","Accumulables":[{"ID":0,"Name":"internal.metrics.executorRunTime","Update":74,"Value":74,"Internal":true,"Count Failed Values":true}]},"Task Metrics":{"Executor Run Time":74,"Shuffle Read Metrics":{"Remote Blocks Fetched":0,"Fetch Wait Time":0}}}`)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	var s Scanner
	for i := 0; i < b.N; i++ {
		s.Reset(line)
		s.Skip()
		if s.End() != nil {
			b.Fatal(s.Err())
		}
	}
}

// FuzzKeyIs checks that KeyIs consumes a key exactly when Key would return
// it, and leaves the scanner as Key does.
func FuzzKeyIs(f *testing.F) {
	f.Add([]byte(`{"a":1, "b" :2,"c":3}`), "b")
	f.Add([]byte(`{ "a\"b":1, "":2}`), `a`)
	f.Fuzz(func(t *testing.T, doc []byte, key string) {
		if strings.ContainsAny(key, `"\`) {
			return // not a key KeyIs takes
		}
		var a, b Scanner
		a.Reset(doc)
		b.Reset(doc)
		if !a.Object() || !b.Object() {
			return
		}
		for i := 0; i < 8; i++ {
			is := a.KeyIs(key)
			k := b.Key()
			if is != (k != nil && string(k) == key) {
				t.Fatalf("KeyIs(%q) = %v, Key = %q", key, is, k)
			}
			if !is && k != nil {
				if got := a.Key(); string(got) != string(k) {
					t.Fatalf("Key after KeyIs = %q, want %q", got, k)
				}
			}
			if k == nil {
				return
			}
			a.Skip()
			b.Skip()
			if a.Offset() != b.Offset() || (a.Err() == nil) != (b.Err() == nil) {
				t.Fatalf("offsets %d and %d, errors %v and %v", a.Offset(), b.Offset(), a.Err(), b.Err())
			}
		}
	})
}
