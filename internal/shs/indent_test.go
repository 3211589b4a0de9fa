package shs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// indentCases are JSON texts whose indentation must match json.Indent:
// empty and nested containers, escaped quotes and backslashes in strings,
// punctuation inside strings, numbers and literals.
var indentCases = []string{
	`{}`, `[]`, `{"a":[]}`, `[{},[],{"b":{}}]`, `"x"`, `1.5e-7`, `null`,
	`{"a":1,"b":[true,false,null],"c":{"d":"e"}}`,
	`{"q\"uote":"a\\","s":"\\\\\"","p":"{[,:]}","u":"\u00e9\n"}`,
	`[[[[1]]],[2,[3,[4]]]]`,
}

func TestAppendIndentedMatchesJSONIndent(t *testing.T) {
	for _, c := range indentCases {
		checkIndent(t, []byte(c))
	}
}

// FuzzAppendIndented checks appendIndented against json.Indent on the
// compact form of any valid JSON.
func FuzzAppendIndented(f *testing.F) {
	for _, c := range indentCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		checkIndent(t, b)
	})
}

// checkIndent compacts b as encoding/json writes it, with its final
// newline, and compares the two indentations.
func checkIndent(t *testing.T, b []byte) {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, b); err != nil {
		t.Fatal(err)
	}
	compact.WriteByte('\n')
	var want bytes.Buffer
	if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
		t.Fatal(err)
	}
	if got := appendIndented(nil, compact.Bytes()); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("%s:\ngot  %q\nwant %q", compact.Bytes(), got, want.Bytes())
	}
}

// TestMarshalMatchesEncoderIndent checks Marshal byte for byte against
// json.Encoder's own indentation on the History Server conformance
// requests and on every resource of every application in shared/data/logs.
func TestMarshalMatchesEncoderIndent(t *testing.T) {
	dir := sharedtest.Dir(t, "shs-expectations")
	ix := NewIndex(loadDir(t, filepath.Join(dir, "spark-events")))
	var paths []string
	for _, c := range readCases(t, dir) {
		paths = append(paths, c.request)
	}
	checkMarshal(t, ix, paths)
	ix = NewIndex(loadDir(t, sharedtest.Dir(t, "logs")))
	paths = paths[:0]
	for _, e := range ix.apps {
		for _, a := range e.attempts {
			base := "applications/" + a.ID
			if a.AttemptID != "" {
				base += "/" + a.AttemptID
			}
			paths = append(paths, base, base+"/jobs", base+"/allexecutors", base+"/stages?details=true&withSummaries=true",
				base+"/environment", base+"/allmiscellaneousprocess")
			for _, st := range a.Stages {
				paths = append(paths, fmt.Sprintf("%s/stages/%d/%d/taskList?length=100000", base, st.ID, st.Attempt))
			}
		}
	}
	checkMarshal(t, ix, append(paths, "applications"))
}

func checkMarshal(t *testing.T, ix *Index, requests []string) {
	t.Helper()
	for _, req := range requests {
		path, rawQuery, _ := strings.Cut(req, "?")
		q, _ := url.ParseQuery(rawQuery)
		v, err := ix.Get(path, q)
		if err != nil {
			continue
		}
		got, err := Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want, err := encoderIndent(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("GET %s: Marshal differs from json.Encoder's indentation", req)
		}
	}
}

// encoderIndent is json.Encoder's own indentation, as Marshal wrote before
// appendIndented: the reference for the tests and the benchmark.
func encoderIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return buf.Bytes(), err
}
