package eventlog

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// readAll decodes data whole with Feed.
func readAll(name string, data []byte) []*model.App {
	d := NewDecoder()
	d.Feed(name, bytes.NewReader(data))
	return d.Apps()
}

// readResumed decodes data in pieces cut at the given byte offsets, as the
// run history reads a growing log: each piece but the last with FeedLines,
// the decoder then snapshotted and resumed from the snapshot, the last
// piece with FeedFrom. set, when not nil, sets up each decoder.
func readResumed(t *testing.T, name string, data []byte, cuts []int, set func(*Decoder)) []*model.App {
	t.Helper()
	d := NewDecoder()
	if set != nil {
		set(d)
	}
	var done, line int64
	for _, cut := range cuts {
		if int64(cut) < done {
			continue
		}
		n, lines, _, err := d.FeedLines(name, bytes.NewReader(data[done:cut]), line)
		if err != nil {
			t.Fatalf("%s: FeedLines to %d: %v", name, cut, err)
		}
		done, line = done+n, line+lines
		var snap bytes.Buffer
		if err := d.Snapshot(&snap); err != nil {
			t.Fatalf("%s: snapshot at %d: %v", name, done, err)
		}
		if d, err = Resume(&snap); err != nil {
			t.Fatalf("%s: resume at %d: %v", name, done, err)
		}
		if set != nil {
			set(d)
		}
	}
	d.FeedFrom(name, bytes.NewReader(data[done:]), line)
	return d.Apps()
}

var appCmp = []cmp.Option{
	cmpopts.EquateEmpty(),
	cmp.Exporter(func(reflect.Type) bool { return true }),
}

// A log read in pieces through snapshots equals the log read whole, on
// every real Spark event log: the pieces end at a third and two thirds of
// its bytes (mid-line, as a writer leaves a growing log) and at a line end.
func TestResumeEqualsWholeOnRealLogs(t *testing.T) {
	root, rows := sharedtest.ExpectedRows(t, "spark-eventlog", 90)
	checked := 0
	for _, row := range rows {
		path := filepath.Join(root, row[1])
		data := decompressed(t, path)
		if data == nil {
			continue
		}
		whole := readAll(row[1], data)
		cuts := []int{len(data) / 3, 2 * len(data) / 3}
		if i := bytes.IndexByte(data[len(data)/2:], '\n'); i >= 0 {
			cuts = append(cuts, len(data)/2+i+1)
		}
		for _, cut := range [][]int{cuts[:1], cuts} {
			got := readResumed(t, row[1], data, cut, nil)
			if diff := cmp.Diff(whole, got, appCmp...); diff != "" {
				t.Fatalf("%s read in pieces at %v differs from it read whole (-whole +pieces):\n%s", row[1], cut, diff)
			}
		}
		checked++
	}
	t.Logf("%d logs read in pieces equal to read whole", checked)
	if checked < 90 {
		t.Fatalf("only %d real logs checked", checked)
	}
}

// decompressed returns a log file's decompressed bytes, or nil for a folder
// part too big for a unit test.
func decompressed(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if st, _ := f.Stat(); st.Size() > 64<<20 {
		return nil
	}
	r, _, err := codec.Open(path, f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return data
}
