package dataflow

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeAndJSON runs the one-call API and checks that the JSON form
// names pools, phases and causes.
func TestAnalyzeAndJSON(t *testing.T) {
	a, err := Analyze(handmadeMapReduce(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Breakdown.App.Busy(); got != 6700+6000 { // h1 as in TestHandmadeMapReduce; h2: one map of 6 s
		t.Errorf("busy %d, want 12700", got)
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"pool":"reduce"`, `"phase":"shuffle"`, `"cause":"busy"`, `"waitsFor":"map"`, `"name":"merge+sort"`, `"byCause":{"busy":6700,"scheduler-delay":0,"shuffle-wait":5000,"gc":300,`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s", want)
		}
	}
	if tl := a.Timeline(TimelineOptions{}); len(tl.Lines) != 3 {
		t.Errorf("timeline has %d lines, want 3 (two slots on h1, one on h2)", len(tl.Lines))
	}
}

// TestLoadSpec resolves built-in names and files.
func TestLoadSpec(t *testing.T) {
	if s, err := LoadSpec("hadoop"); err != nil || s.Name != "hadoop" {
		t.Errorf("LoadSpec(hadoop): %v", err)
	}
	if s, err := LoadSpec(filepath.Join("testdata", "hive.flow")); err != nil || s.Name != "hive-groupby" {
		t.Errorf("LoadSpec(hive.flow): %v", err)
	}
	if _, err := LoadSpec("nosuch"); !errors.Is(err, ErrUnknownSpec) {
		t.Errorf("LoadSpec(nosuch): %v, want ErrUnknownSpec", err)
	}
}
