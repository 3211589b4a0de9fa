package decodelogs

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/klauspost/compress/zstd"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/source"
)

// realLogBytes returns a real Spark log with thousands of tasks, decompressed.
func realLogBytes(t *testing.T) []byte {
	t.Helper()
	p := filepath.Join(sharedtest.Dir(t, "logs"), "rapids-tools/core/src/test/resources/spark-events-profiling/tasks_executors_fail_compressed_eventlog.zstd")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, _, err := codec.Open(p, f)
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func findOne(t *testing.T, path string) *source.Log {
	t.Helper()
	logs, _, err := Find([]string{path}, Options{})
	if err != nil || len(logs) != 1 {
		t.Fatalf("find %s: %d logs, %v", path, len(logs), err)
	}
	return logs[0]
}

// wholeApp reads the log at path whole, as every command does.
func wholeApp(t *testing.T, path string) *model.App {
	t.Helper()
	apps, err := Log(findOne(t, path), Options{})
	if err != nil || len(apps) != 1 {
		t.Fatalf("read %s whole: %d applications, %v", path, len(apps), err)
	}
	return apps[0]
}

var sameApp = []cmp.Option{cmpopts.EquateEmpty(), cmp.Exporter(func(reflect.Type) bool { return true })}

// A single in-progress file read at three sizes, each read going on from
// the last: each read takes in about what was added, and the last gives the
// application read whole.
func TestGrowingSingleFile(t *testing.T) {
	data := realLogBytes(t)
	path := filepath.Join(t.TempDir(), "app-1.inprogress")
	cuts := []int{len(data) / 3, 2*len(data)/3 + 17, len(data)}
	var state []byte
	prev := 0
	for i, cut := range cuts {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(data[prev:cut])
		f.Close()
		res, err := Growing(findOne(t, path), state, Options{})
		if err != nil {
			t.Fatalf("read %d: %v", i, err)
		}
		if res.Resumed != (i > 0) {
			t.Fatalf("read %d: resumed %v", i, res.Resumed)
		}
		// About what was added: the added bytes, the tail left over from
		// the last read (under one line) and the new tail read twice.
		added := int64(cut - prev)
		if res.Bytes < added || res.Bytes > added+2*maxLineLen(data) {
			t.Errorf("read %d: %d bytes read for %d added", i, res.Bytes, added)
		}
		t.Logf("read %d: %d bytes added, %d read, resumed %v, state %d bytes", i, added, res.Bytes, res.Resumed, len(res.State))
		state, prev = res.State, cut
	}
	last, err := Growing(findOne(t, path), state, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := wholeApp(t, path)
	if diff := cmp.Diff(want, last.Apps[0], sameApp...); diff != "" {
		t.Fatalf("read on in pieces differs from read whole (-whole +pieces):\n%s", diff)
	}
	if want.Complete && last.State != nil {
		t.Errorf("a complete application left a state to go on from")
	}
	// A file replaced by a shorter one is read again from the start.
	if err := os.WriteFile(path, data[:len(data)/4], 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := Growing(findOne(t, path), state, Options{}); err != nil || res.Resumed {
		t.Fatalf("a shrunk file: resumed %v, %v; want a fresh read", res.Resumed, err)
	}
}

func maxLineLen(data []byte) int64 {
	m := 0
	for _, l := range bytes.Split(data, []byte("\n")) {
		m = max(m, len(l)+1)
	}
	return int64(m)
}

// A rolling folder whose parts are zstd-compressed: the newest part cannot
// be read from an offset, so each read goes on from before it and reads it
// (and the parts after it) only.
func TestGrowingRollingCompressed(t *testing.T) {
	data := realLogBytes(t)
	lines := bytes.SplitAfter(data, []byte("\n"))
	third := len(lines) / 3
	pieces := [][]byte{bytes.Join(lines[:third], nil), bytes.Join(lines[third:2*third], nil), bytes.Join(lines[2*third:], nil)}
	dir := filepath.Join(t.TempDir(), "eventlog_v2_app-1")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	status := filepath.Join(dir, "appstatus_app-1.inprogress")
	os.WriteFile(status, nil, 0o644)
	write := func(n int, b []byte) int64 {
		var buf bytes.Buffer
		zw, _ := zstd.NewWriter(&buf)
		zw.Write(b)
		zw.Close()
		p := filepath.Join(dir, "events_"+string(rune('0'+n))+"_app-1.zstd")
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return int64(buf.Len())
	}
	// Pass 1: part 1 whole and half of part 2 (a writer's zstd stream is
	// cut at a frame end here: a prefix of the lines).
	half := bytes.SplitAfter(pieces[1], []byte("\n"))
	s1 := write(1, pieces[0])
	s2 := write(2, bytes.Join(half[:len(half)/2], nil))
	res, err := Growing(findOne(t, dir), nil, Options{})
	if err != nil || res.State == nil || res.Bytes != s1+s2 {
		t.Fatalf("pass 1: %d bytes read (want %d), state %d bytes, %v", res.Bytes, s1+s2, len(res.State), err)
	}
	// Pass 2: part 2 complete, part 3 written: parts 2 and 3 are read.
	s2 = write(2, pieces[1])
	s3 := write(3, pieces[2])
	os.Rename(status, filepath.Join(dir, "appstatus_app-1"))
	res, err = Growing(findOne(t, dir), res.State, Options{})
	if err != nil || !res.Resumed || res.Bytes != s2+s3 {
		t.Fatalf("pass 2: resumed %v, %d bytes read (want %d: parts 2 and 3), %v", res.Resumed, res.Bytes, s2+s3, err)
	}
	if diff := cmp.Diff(wholeApp(t, dir), res.Apps[0], sameApp...); diff != "" {
		t.Fatalf("rolling read in passes differs from read whole (-whole +passes):\n%s", diff)
	}
}

// A Databricks log-delivery folder (real parts from shared/data) whose
// live eventlog grows: read on from where the last pass stopped, it gives
// what reading it whole gives, markers, rollovers and notes included.
func TestGrowingDatabricksFolder(t *testing.T) {
	zr, err := zip.OpenReader(filepath.Join(sharedtest.Dir(t, "platform-logs"), "spark-log-parser/tests/logs/databricks-rollover.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	dir := filepath.Join(t.TempDir(), "cluster-1")
	os.Mkdir(dir, 0o755)
	var live []byte
	for _, f := range zr.File {
		name := filepath.Base(f.Name)
		if !strings.HasPrefix(f.Name, "databricks_example_1/eventlog") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if name == "eventlog" {
			live = data
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if live == nil {
		t.Fatal("no live eventlog in the archive")
	}
	path := filepath.Join(dir, "eventlog")
	appendTo := func(b []byte) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(b)
		f.Close()
	}
	appendTo(live[:len(live)/2+5])
	first, err := Growing(findOne(t, dir), nil, Options{})
	if err != nil || first.State == nil {
		t.Fatalf("first read: state %d bytes, %v", len(first.State), err)
	}
	appendTo(live[len(live)/2+5:])
	second, err := Growing(findOne(t, dir), first.State, Options{})
	if err != nil || !second.Resumed {
		t.Fatalf("second read: resumed %v, %v", second.Resumed, err)
	}
	if second.Bytes > int64(len(live)-len(live)/2)+64<<10 {
		t.Errorf("second read took %d bytes for %d added", second.Bytes, len(live)-len(live)/2-5)
	}
	if diff := cmp.Diff(wholeApp(t, dir), second.Apps[0], sameApp...); diff != "" {
		t.Fatalf("Databricks folder read in passes differs from read whole (-whole +passes):\n%s", diff)
	}
	t.Logf("live part %d bytes: first read %d bytes, second %d; %d rollovers", len(live), first.Bytes, second.Bytes, len(second.Apps[0].Rollovers))
}
