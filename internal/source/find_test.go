package source

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/codec"
)

// writeTree writes name → content under dir.
func writeTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// shsZip is a History Server download: two attempts and a rolling log.
func shsZip(t *testing.T) []byte {
	return zipOf(t, map[string][]byte{
		"application_1_0001_1":     []byte(sparkLines),
		"application_1_0001_2.lz4": compressed(t, codec.LZ4, sparkLines),
		"eventlog_v2_application_1_0002/events_1_application_1_0002.zstd": compressed(t, codec.Zstd, sparkLines),
		"eventlog_v2_application_1_0002/events_2_application_1_0002.zstd": compressed(t, codec.Zstd, "two\n"),
		"eventlog_v2_application_1_0002/appstatus_application_1_0002":     nil,
		"README":    []byte("not a log\n"),
		"inner.zip": zipOf(t, map[string][]byte{"a": []byte(sparkLines)}),
	})
}

func TestZip(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string][]byte{
		"eventLogs-application_1.zip": shsZip(t),
		"folder/nested.zip":           zipOf(t, map[string][]byte{"app-9": []byte(sparkLines)}),
	})
	zipPath := filepath.Join(dir, "eventLogs-application_1.zip")
	logs, skipped, err := Find([]string{zipPath}, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range logs {
		names = append(names, strings.TrimPrefix(l.Name, zipPath))
	}
	want := []string{"!/application_1_0001_1", "!/application_1_0001_2.lz4", "!/eventlog_v2_application_1_0002", "!/inner.zip!/a"}
	if !slices.Equal(names, want) {
		t.Fatalf("logs %q, want %q", names, want)
	}
	for _, l := range logs[:2] {
		if got := readPart(t, l, 0); got != sparkLines {
			t.Errorf("%s: %q", l.Name, got)
		}
	}
	r := logs[2]
	if r.Layout != Rolling || !r.Complete || len(r.Parts) != 2 || readPart(t, r, 1) != "two\n" {
		t.Errorf("rolling log in zip: %+v", r)
	}
	if !strings.HasSuffix(r.Parts[0].Name, ".zip!/eventlog_v2_application_1_0002/events_1_application_1_0002.zstd") {
		t.Errorf("part name %q", r.Parts[0].Name)
	}
	if got := readPart(t, logs[3], 0); got != sparkLines {
		t.Errorf("zip in a zip: %q", got)
	}
	if len(skipped) != 1 || !strings.HasSuffix(skipped[0].Name, "!/README") {
		t.Errorf("skipped %v", skipped)
	}

	// A zip inside a folder is searched too.
	logs, _, err = Find([]string{dir}, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 5 || !strings.HasSuffix(logs[4].Name, filepath.Join("folder", "nested.zip")+"!/app-9") {
		t.Errorf("logs %v", logs)
	}

	// Through an fs.FS too.
	logs, _, err = Scan(mapFS(map[string][]byte{"d/x.zip": shsZip(t)}), "d/x.zip", testOpts)
	if err != nil || len(logs) != 4 || readPart(t, logs[2], 0) != sparkLines {
		t.Errorf("zip in MapFS: %v %v", logs, err)
	}
}

func TestGlobAndFind(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string][]byte{
		"a/app-1":             []byte(sparkLines),
		"a/app-2.zstd":        compressed(t, codec.Zstd, sparkLines),
		"a/other":             []byte(sparkLines),
		"b/app-3":             []byte(sparkLines),
		"b/notes.txt":         []byte("notes\n"),
		"c/[odd]name":         []byte(sparkLines),
		"empty/.keep":         []byte("x"),
		"local-1/EVENT_LOG_1": []byte(sparkLines),
	})
	logs, _, err := Find([]string{filepath.Join(dir, "*", "app-*")}, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range logs {
		got = append(got, strings.TrimPrefix(l.Name, dir))
	}
	sep := string(filepath.Separator)
	if want := []string{sep + filepath.Join("a", "app-1"), sep + filepath.Join("a", "app-2.zstd"), sep + filepath.Join("b", "app-3")}; !slices.Equal(got, want) {
		t.Errorf("glob: %q, want %q", got, want)
	}

	// A name with meta characters that exists is taken as is.
	logs, _, err = Find([]string{filepath.Join(dir, "c", "[odd]name")}, testOpts)
	if err != nil || len(logs) != 1 {
		t.Errorf("literal name with brackets: %v %v", logs, err)
	}

	// Overlapping paths give each log once; bad paths are errors naming
	// them, and the good paths still give their logs.
	missing := filepath.Join(dir, "missing")
	notes := filepath.Join(dir, "b", "notes.txt")
	logs, _, err = Find([]string{dir + sep + "a", filepath.Join(dir, "a", "app-1"), missing, notes,
		filepath.Join(dir, "nothing-*"), filepath.Join(dir, "empty"), filepath.Join(dir, "local-1")}, testOpts)
	if len(logs) != 4 {
		t.Errorf("logs %v", logs)
	}
	for _, want := range []string{`"` + missing + `"`, `"` + notes + `": not a log (text starting "notes")`, "no file matches the pattern", `"` + filepath.Join(dir, "empty") + `": not a log: no log in this folder (1 files skipped)`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to contain %q", err, want)
		}
	}
	if !errors.Is(err, ErrNotLog) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v should wrap ErrNotLog and fs.ErrNotExist", err)
	}

	// Relative paths give relative names.
	wd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	logs, _, err = Find([]string{"a", "local-1"}, testOpts)
	if err != nil || len(logs) != 4 || logs[0].Name != filepath.Join("a", "app-1") || logs[3].Name != "local-1" || logs[3].Parts[0].Name != filepath.Join("local-1", "EVENT_LOG_1") {
		t.Errorf("relative: %v %v", logs, err)
	}
	logs, _, err = Find([]string{"."}, testOpts)
	if err != nil || len(logs) != 6 || logs[0].Name != filepath.Join("a", "app-1") {
		t.Errorf("dot: %v %v", logs, err)
	}
}

func TestProgress(t *testing.T) {
	fsys := mapFS(map[string][]byte{
		"eventlog_v2_a/events_1_a.lz4": compressed(t, codec.LZ4, strings.Repeat(sparkLines, 500)),
		"eventlog_v2_a/events_2_a.lz4": compressed(t, codec.LZ4, strings.Repeat(sparkLines, 300)),
		"eventlog_v2_a/appstatus_a":    nil,
	})
	logs, _, err := Scan(fsys, ".", testOpts)
	if err != nil || len(logs) != 1 {
		t.Fatal(logs, err)
	}
	l := logs[0]
	var seen int64
	for i := range l.Parts {
		r, err := l.OpenProgress(i, func(n int64) { seen += n })
		if err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := r.Read(make([]byte, 100)); err != nil {
				break
			}
		}
		r.Close()
	}
	if seen != l.Size() || seen != TotalSize(logs) || seen == 0 {
		t.Errorf("progress %d, size %d", seen, l.Size())
	}
	if _, err := l.Open(2); err == nil {
		t.Error("Open(2) of 2 parts succeeded")
	}
	c := NewCountingReader(strings.NewReader("hello"), nil)
	buf := make([]byte, 3)
	c.Read(buf)
	c.Read(buf)
	if c.Count() != 5 {
		t.Errorf("count %d", c.Count())
	}
}
