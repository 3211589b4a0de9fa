package source

import (
	"archive/zip"
	"bytes"
	"io"
	"io/fs"
	"testing"
	"testing/fstest"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/mapreduce"
)

// testFormats are decodelogs' table of formats, as source finds them
// (decodelogs imports source: its tests cannot).
var testFormats = []Format{
	{Kind: SparkEventLog, Sniff: eventlog.Sniff},
	{Kind: MapReduceJhist, Sniff: mapreduce.SniffJhist, Job: true, Ext: ".jhist"},
	{Kind: MapReduceLegacy, Sniff: mapreduce.SniffLegacy, Job: true},
	{Kind: RumenTrace, Sniff: mapreduce.SniffRumen, Ext: ".json"},
}

// testOpts read Databricks part markers as load does.
var testOpts = Options{PartHeader: eventlog.PartHeader, Formats: testFormats}

// sparkLines is a tiny Spark event log.
const sparkLines = `{"Event":"SparkListenerLogStart","Spark Version":"3.5.0"}
{"Event":"SparkListenerApplicationStart","App Name":"t","App ID":"app-1","Timestamp":1,"User":"u"}
{"Event":"SparkListenerApplicationEnd","Timestamp":2}
`

// compressed returns text in codec c.
func compressed(t testing.TB, c codec.Codec, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := codec.NewWriter(c, &b)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(w, text); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

var fixtureTime = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// mapFS builds a file system of name → content.
func mapFS(files map[string][]byte) fstest.MapFS {
	m := fstest.MapFS{}
	for name, data := range files {
		m[name] = &fstest.MapFile{Data: data, ModTime: fixtureTime}
	}
	return m
}

// zipOf returns a zip archive of name → content, deflated.
func zipOf(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for name, data := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: fixtureTime})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// readPart reads part i of l to the end.
func readPart(t testing.TB, l *Log, i int) string {
	t.Helper()
	r, err := l.Open(i)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s part %d: %v", l.Name, i, err)
	}
	return string(b)
}

// partNames returns the display names of l's parts.
func partNames(l *Log) []string {
	var n []string
	for _, p := range l.Parts {
		n = append(n, p.Name)
	}
	return n
}

// byName indexes logs by name.
func byName(logs []*Log) map[string]*Log {
	m := map[string]*Log{}
	for _, l := range logs {
		m[l.Name] = l
	}
	return m
}

// fstestDir is an empty folder in a MapFS.
var fstestDir = fstest.MapFile{Mode: fs.ModeDir | 0o755}
