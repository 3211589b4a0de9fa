package source

import (
	"archive/tar"
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
)

// dbcPart is a Databricks part: its marker, then a line naming it.
func dbcPart(number int, context, name string) []byte {
	return []byte(fmt.Sprintf(`{"Event":"DBCEventLoggingListenerMetadata","Spark Version":"3.1.2","Timestamp":%d,"Rollover Number":%d,"SparkContext Id":%s}`+"\n"+
		`{"Event":"SparkListenerJobEnd","Job ID":%d,"Completion Time":1,"Job Result":{"Result":"JobSucceeded"},"Name":%q}`+"\n", 1000+number, number, context, number, name))
}

// readNames reads every part of l and returns what its second lines name.
func readNames(t *testing.T, l *Log) []string {
	t.Helper()
	var names []string
	for i := range l.Parts {
		text := readPart(t, l, i)
		at := strings.Index(text, `"Name":"`)
		if at < 0 {
			names = append(names, "?")
			continue
		}
		names = append(names, text[at+8:at+8+strings.IndexByte(text[at+8:], '"')])
	}
	return names
}

// notesOf returns a log's notes, partial ones marked "!".
func notesOf(l *Log) []string {
	var n []string
	for _, note := range l.Notes {
		n = append(n, map[bool]string{true: "!"}[note.Partial]+note.Text)
	}
	return n
}

func TestRolledParts(t *testing.T) {
	const a, b = "111", "222"
	fsys := mapFS(map[string][]byte{
		// Parts of context a in Rollover Number order though their names
		// sort otherwise, a copy of part 0 in a sub-folder.
		"d/ctx/eventlog-2022-01-14--18-00.gz":      compressed(t, codec.Gzip, string(dbcPart(0, a, "a0"))),
		"d/ctx/eventlog-2022-01-14--17-00":         dbcPart(1, a, "a1"),
		"d/ctx/eventlog":                           dbcPart(2, a, "a2"),
		"d/ctx/copy/eventlog-2022-01-14--18-00.gz": compressed(t, codec.Gzip, string(dbcPart(0, a, "a0"))),
		// A part of context b beside the copy, one without a marker.
		"d/ctx/copy/eventlog-other":            dbcPart(5, b, "b5"),
		"d/ctx/eventlog-2022-01-14--17-30":     []byte(`{"Event":"SparkListenerJobEnd","Job ID":9,"Completion Time":1,"Job Result":{"Result":"JobSucceeded"},"Name":"nomark"}` + "\n"),
		"d/ctx/eventlog-gpu":                   []byte(sparkLines), // not a part: a log named eventlog-*
		"d/plain/eventlog":                     []byte(sparkLines),
		"d/mixed/eventlog-x":                   dbcPart(0, "333", "x"),
		"d/mixed/eventlog-y":                   dbcPart(0, "444", "y"),
		"d/mixed/eventlog-2022-01-14--17-30":   []byte(sparkLines),
		"d/__MACOSX/ctx/._eventlog":            []byte("\x00\x05\x16\x07"),
		"d/two/eventlog-2021-06-15--14-00":     []byte(`{"Event":"SparkListenerJobEnd","Job ID":1,"Completion Time":1,"Job Result":{"Result":"JobSucceeded"},"Name":"t1"}` + "\n"),
		"d/two/eventlog":                       []byte(`{"Event":"SparkListenerJobEnd","Job ID":2,"Completion Time":1,"Job Result":{"Result":"JobSucceeded"},"Name":"t2"}` + "\n"),
		"d/two/eventlog-2021-06-15--13-00.lz4": compressed(t, codec.LZ4, `{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":1,"Job Result":{"Result":"JobSucceeded"},"Name":"t0"}`+"\n"),
	})
	logs, skipped, err := Scan(fsys, "d", testOpts)
	if err != nil {
		t.Fatal(err)
	}
	m := byName(logs)
	ctx := m["d/ctx"]
	if ctx == nil || ctx.Layout != Rotated || ctx.Kind != SparkEventLog {
		t.Fatalf("logs %v", logs)
	}
	if got := readNames(t, ctx); !slices.Equal(got, []string{"a0", "a1", "nomark", "a2"}) {
		t.Errorf("context a read in order %v", got)
	}
	wantNotes := []string{
		"part 0 is in two files: d/ctx/eventlog-2022-01-14--18-00.gz is a copy of d/ctx/copy/eventlog-2022-01-14--18-00.gz (same size and marker): read once",
		"d/ctx/eventlog-2022-01-14--17-30 has no DBCEventLoggingListenerMetadata line: placed by the date in its name between parts 1 and 2 (ordering uncertain)",
		"d/ctx/copy also holds parts of Spark context 222: kept apart as another application",
	}
	if got := notesOf(ctx); !slices.Equal(got, wantNotes) {
		t.Errorf("notes\n%s", strings.Join(got, "\n"))
	}
	if other := m["d/ctx/copy/eventlog-other"]; other == nil || other.Layout != Single || len(other.Parts) != 1 ||
		!slices.Equal(notesOf(other), []string{"d/ctx/copy also holds parts of Spark context 111: kept apart as another application"}) {
		t.Errorf("context b: %+v", other)
	}
	mixed := m["d/mixed/eventlog-2022-01-14--17-30"]
	if mixed == nil || len(mixed.Notes) != 1 || !strings.HasPrefix(mixed.Notes[0].Text, "d/mixed holds parts of 2 Spark contexts (333, 444); its parts without") {
		t.Errorf("a part without a marker among two contexts: %+v", mixed)
	}
	if gpu := m["d/ctx/eventlog-gpu"]; gpu == nil || gpu.Layout != Single {
		t.Errorf("eventlog-gpu: %+v", gpu)
	}
	if plain := m["d/plain/eventlog"]; plain == nil || plain.Layout != Single || len(plain.Notes) != 0 {
		t.Errorf("plain: %+v", plain)
	}
	two := m["d/two"]
	if two == nil || !slices.Equal(readNames(t, two), []string{"t0", "t1", "t2"}) ||
		!slices.Equal(notesOf(two), []string{"no part starts with a DBCEventLoggingListenerMetadata line: the 3 parts are read in the order of the dates in their names, eventlog last (ordering uncertain)"}) {
		t.Errorf("parts without markers: %+v", two)
	}
	if len(logs) != 8 {
		t.Errorf("logs %v", logs)
	}
	var why []string
	for _, s := range skipped {
		why = append(why, s.Name+": "+s.Reason)
	}
	if !slices.Equal(why, []string{"d/__MACOSX: macOS archive metadata (resource forks of the files beside it)",
		"d/ctx/eventlog-2022-01-14--18-00.gz: a copy of a part read from another file (see the log's notes)"}) {
		t.Errorf("skipped\n%s", strings.Join(why, "\n"))
	}
}

// TestRolledConflict: two different files claiming one part: the larger is
// read, and the answer is partial.
func TestRolledConflict(t *testing.T) {
	fsys := mapFS(map[string][]byte{
		"d/eventlog-2022-01-14--17-00":   dbcPart(0, "1", "short"),
		"d/x/eventlog-2022-01-14--17-00": append(dbcPart(0, "1", "long"), `{"Event":"SparkListenerLogStart","Spark Version":"3.1.2"}`+"\n"...),
		"d/eventlog":                     dbcPart(1, "1", "live"),
	})
	logs, _, err := Scan(fsys, "d", testOpts)
	if err != nil || len(logs) != 1 {
		t.Fatal(logs, err)
	}
	if got := readNames(t, logs[0]); !slices.Equal(got, []string{"long", "live"}) {
		t.Errorf("read %v", got)
	}
	if n := notesOf(logs[0]); len(n) != 1 || !strings.HasPrefix(n[0], "!two different files claim part 0: d/x/eventlog-2022-01-14--17-00 (") {
		t.Errorf("notes %v", n)
	}
}

// tarOf returns a tar archive of name → content.
func tarOf(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for n := range files {
			if !yield(n) {
				return
			}
		}
	}) {
		data := files[name]
		if strings.HasSuffix(name, "/") {
			tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeDir, Mode: 0o755, ModTime: fixtureTime})
			continue
		}
		tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(data)), ModTime: fixtureTime})
		tw.Write(data)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestArchives: logs in tar archives, plain or compressed, in a zip
// compressed with gzip (a .zip.gz), archives nested up to maxDepth; the
// parts of one Databricks log spread over them are joined.
func TestArchives(t *testing.T) {
	big := strings.Repeat(`{"Event":"SparkListenerJobEnd","Job ID":7,"Completion Time":1,"Job Result":{"Result":"JobSucceeded"}}`+"\n", 2000) // past headSize
	inner := tarOf(t, map[string][]byte{"./set/": nil, "./set/eventlog-2022-01-14--18-00": dbcPart(1, "9", "p1"), "../evil": []byte(sparkLines)})
	fsys := mapFS(map[string][]byte{
		// One-file archives are the file compressed: their parts join
		// the parts beside them. An archive of several files is a set of
		// its own: the copy of the application in it is another log.
		"a/inner.tar.zst":   compressed(t, codec.Zstd, string(inner)),
		"a/copy.zip":        zipOf(t, map[string][]byte{"eventlog-2022-01-14--17-00": dbcPart(0, "9", "p0"), "eventlog": dbcPart(2, "9", "p2")}),
		"a/logs.tgz":        compressed(t, codec.Gzip, string(tarOf(t, map[string][]byte{"app-1": []byte(sparkLines), "deep/app-2": []byte(sparkLines + big)}))),
		"a/set/eventlog":    dbcPart(2, "9", "p2"),
		"a/part0.zip.gz":    compressed(t, codec.Gzip, string(zipOf(t, map[string][]byte{"eventlog-2022-01-14--17-00": dbcPart(0, "9", "p0")}))),
		"a/plain.tar":       tarOf(t, map[string][]byte{"app-3": []byte(sparkLines)}),
		"a/deep.zip":        zipOf(t, map[string][]byte{"1.zip": zipOf(t, map[string][]byte{"2.zip": zipOf(t, map[string][]byte{"3.zip": zipOf(t, map[string][]byte{"app-4": []byte(sparkLines)})})})}),
		"a/not-archive.tgz": []byte(sparkLines),
	})
	logs, skipped, err := Scan(fsys, "a", testOpts)
	if err != nil {
		t.Fatal(err)
	}
	m := byName(logs)
	for _, name := range []string{"a/logs.tgz!/app-1", "a/plain.tar!/app-3", "a/not-archive.tgz"} {
		if l := m[name]; l == nil || readPart(t, l, 0) != sparkLines {
			t.Errorf("%s: %+v", name, l)
		}
	}
	if l := m["a/logs.tgz!/deep/app-2"]; l == nil || readPart(t, l, 0) != sparkLines+big {
		t.Errorf("a tar entry larger than its cached head: %+v", l)
	}
	set := m["a/set"]
	if set == nil || !slices.Equal(readNames(t, set), []string{"p0", "p1", "p2"}) || len(set.Notes) != 0 {
		t.Fatalf("parts in a .zip.gz, a tar in a tgz and a folder: %+v", set)
	}
	if !strings.HasSuffix(set.Parts[1].Name, "a/inner.tar.zst!/set/eventlog-2022-01-14--18-00") {
		t.Errorf("part 1 is %s", set.Parts[1].Name)
	}
	if c := m["a/copy.zip"]; c == nil || !slices.Equal(readNames(t, c), []string{"p0", "p2"}) || len(c.Notes) != 0 {
		t.Errorf("the copy in an archive: %+v", c)
	}
	var why []string
	for _, s := range skipped {
		why = append(why, s.Name+": "+s.Reason)
	}
	for _, w := range []string{"a/inner.tar.zst!/../evil: a path that leaves the archive", "a/deep.zip!/1.zip!/2.zip!/3.zip: zip archive nested 3 deep"} {
		if !slices.ContainsFunc(why, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("not skipped: %s\n%s", w, strings.Join(why, "\n"))
		}
	}
	if len(logs) != 6 {
		t.Errorf("logs %v", logs)
	}
}

// FuzzRolledOrder groups and orders made-up Databricks parts. It must never
// panic; every part must be read or dropped exactly once; the parts read of
// one set share their Spark context; numbered parts are read in increasing
// Rollover Number, and when every part of a set has one, in that order
// only; a set without markers reads its live part last; a dropped part is
// always said.
func FuzzRolledOrder(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 2, 0, 3, 0}, []byte("abcd"))
	f.Add([]byte{0, 5, 0, 5, 1, 7, 2, 5}, []byte("aabb"))
	f.Add([]byte{255, 1, 255, 0, 3, 0, 0, 0}, []byte("xyzw"))
	f.Fuzz(func(t *testing.T, spec, names []byte) {
		// Two bytes per part: its Rollover Number (255: no marker) and
		// context; a byte of names picks its folder, date and whether live.
		var parts []rolledPart
		for i := 0; i+1 < len(spec) && i/2 < 64; i += 2 {
			k := i / 2
			n := byte(k)
			if k < len(names) {
				n = names[k]
			}
			p := rolledPart{
				dir:      fmt.Sprintf("dir%d", n%3),
				numbered: spec[i] != 255,
				live:     n%7 == 0,
				key:      fmt.Sprintf("f%02d", k),
				part:     Part{Name: fmt.Sprintf("f%02d", k), Size: int64(n % 2)},
				header:   model.Rollover{Number: int64(spec[i] % 16), ContextID: fmt.Sprint(spec[i+1] % 3), Timestamp: int64(n % 4)},
			}
			p.dirName = p.dir
			if !p.live && n%5 != 0 {
				p.date = fmt.Sprintf("2022-01-14--%02d-00", n%24)
			}
			parts = append(parts, p)
		}
		seen := make([]int, len(parts))
		for _, set := range groupRolled(parts) {
			if len(set.parts) == 0 {
				t.Fatalf("an empty set: %+v", set)
			}
			for _, i := range append(slices.Clone(set.parts), set.dropped...) {
				seen[i]++
			}
			if len(set.dropped) > 0 && len(set.notes) == 0 {
				t.Fatalf("parts %v dropped without a word", set.dropped)
			}
			context, last, all, liveAt := "", int64(-1), true, -1
			for j, i := range set.parts {
				p := &parts[i]
				if !p.numbered {
					all = false
					if p.live {
						liveAt = j
					}
					continue
				}
				if context != "" && p.header.ContextID != context {
					t.Fatalf("set %v mixes Spark contexts", set.parts)
				}
				context = p.header.ContextID
				if p.header.Number <= last {
					t.Fatalf("part %d read after part %d in %v", p.header.Number, last, set.parts)
				}
				last = p.header.Number
			}
			if all && !slices.IsSortedFunc(set.parts, func(a, b int) int { return int(parts[a].header.Number - parts[b].header.Number) }) {
				t.Fatalf("not in Rollover Number order: %v", set.parts)
			}
			if context == "" && liveAt >= 0 && liveAt != len(set.parts)-1 && !parts[set.parts[len(set.parts)-1]].live {
				t.Fatalf("live part read before %v", set.parts[liveAt+1:])
			}
		}
		for i, n := range seen {
			if n != 1 {
				t.Fatalf("part %d used %d times", i, n)
			}
		}
	})
}
