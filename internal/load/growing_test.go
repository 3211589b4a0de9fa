package load

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/klauspost/compress/zstd"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/eventlog"
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
	logs, _, err := source.Find([]string{path})
	if err != nil || len(logs) != 1 {
		t.Fatalf("find %s: %d logs, %v", path, len(logs), err)
	}
	return logs[0]
}

func wholeApp(t *testing.T, data []byte) *model.App {
	d := eventlog.NewDecoder()
	if err := d.Feed("x", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	return d.App()
}

var sameApp = []cmp.Option{cmpopts.EquateEmpty(), cmp.Exporter(func(reflect.Type) bool { return true }),
	cmpopts.IgnoreFields(model.App{}, "Source", "LastUpdated"), cmpopts.IgnoreFields(model.Issue{}, "File")}

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
		res, err := Growing(findOne(t, path), state, nil)
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
	last, err := Growing(findOne(t, path), state, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := wholeApp(t, data)
	if diff := cmp.Diff(want, last.App, sameApp...); diff != "" {
		t.Fatalf("read on in pieces differs from read whole (-whole +pieces):\n%s", diff)
	}
	if want.Complete && last.State != nil {
		t.Errorf("a complete application left a state to go on from")
	}
	// A file replaced by a shorter one is read again from the start.
	if err := os.WriteFile(path, data[:len(data)/4], 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := Growing(findOne(t, path), state, nil); err != nil || res.Resumed {
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
	res, err := Growing(findOne(t, dir), nil, nil)
	if err != nil || res.State == nil || res.Bytes != s1+s2 {
		t.Fatalf("pass 1: %d bytes read (want %d), state %d bytes, %v", res.Bytes, s1+s2, len(res.State), err)
	}
	// Pass 2: part 2 complete, part 3 written: parts 2 and 3 are read.
	s2 = write(2, pieces[1])
	s3 := write(3, pieces[2])
	os.Rename(status, filepath.Join(dir, "appstatus_app-1"))
	res, err = Growing(findOne(t, dir), res.State, nil)
	if err != nil || !res.Resumed || res.Bytes != s2+s3 {
		t.Fatalf("pass 2: resumed %v, %d bytes read (want %d: parts 2 and 3), %v", res.Resumed, res.Bytes, s2+s3, err)
	}
	if diff := cmp.Diff(wholeApp(t, data), res.App, sameApp...); diff != "" {
		t.Fatalf("rolling read in passes differs from read whole (-whole +passes):\n%s", diff)
	}
}
