package source

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/google/go-cmp/cmp"
)

func TestSingleFiles(t *testing.T) {
	fsys := mapFS(map[string][]byte{
		"logs/app-1":                          []byte(sparkLines),
		"logs/app-2.lz4":                      compressed(t, codec.LZ4, sparkLines),
		"logs/app-3.zstd.inprogress":          compressed(t, codec.Zstd, sparkLines),
		"logs/app-4_1.snappy":                 compressed(t, codec.Snappy, sparkLines),
		"logs/app-5.lzf":                      compressed(t, codec.LZF, sparkLines),
		"logs/app-6.inprogress":               nil,
		"logs/liar.zstd":                      compressed(t, codec.LZ4, sparkLines), // magic wins
		"logs/notes.txt":                      []byte("hello\n"),
		"logs/empty":                          nil,
		"logs/.hidden.crc":                    []byte("x"),
		"logs/broken.lz4":                     []byte("LZ4Block\x20garbage-garbage-garbage"),
		"logs/sub/deeper/application_1_0001":  compressed(t, codec.Gzip, sparkLines),
		"logs/sub/deeper/topology.json":       []byte(`{"name":"<root>","children":[]}`),
		"logs/sub/deeper/something.json":      []byte(`{"a":1}`),
		"logs/sub/deeper/binary":              {0, 1, 2, 3, 0xff},
		"logs/sub/deeper/avro-not-jhist.avro": []byte("Obj\x01\x04\x16avro.schema"),
	})
	logs, skipped, err := Scan(fsys, "logs", testOpts)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range logs {
		if l.Kind != SparkEventLog || l.Layout != Single || len(l.Parts) != 1 {
			t.Errorf("%s: %v %v %d parts", l.Name, l.Kind, l.Layout, len(l.Parts))
		}
		got[l.Name] = l.ID
		if l.Parts[0].Size > 0 {
			if text := readPart(t, l, 0); text != sparkLines {
				t.Errorf("%s: read %q", l.Name, text)
			}
		}
		if l.InProgress == l.Complete {
			t.Errorf("%s: in progress %v, complete %v", l.Name, l.InProgress, l.Complete)
		}
		if want := strings.HasSuffix(l.Name, ".inprogress"); l.InProgress != want {
			t.Errorf("%s: in progress %v", l.Name, l.InProgress)
		}
	}
	want := map[string]string{
		"logs/app-1": "app-1", "logs/app-2.lz4": "app-2", "logs/app-3.zstd.inprogress": "app-3",
		"logs/app-4_1.snappy": "app-4_1", "logs/app-5.lzf": "app-5", "logs/app-6.inprogress": "app-6",
		"logs/liar.zstd": "liar", "logs/sub/deeper/application_1_0001": "application_1_0001",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("logs (-want +got):\n%s", d)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[s.Name] = s.Reason
	}
	for name, want := range map[string]string{
		"logs/notes.txt":                      `not a log: text starting "hello"`,
		"logs/empty":                          "not a log: empty file",
		"logs/.hidden.crc":                    "hidden",
		"logs/broken.lz4":                     "unreadable lz4 data",
		"logs/sub/deeper/topology.json":       "Rumen cluster topology",
		"logs/sub/deeper/something.json":      "JSON, but no Spark event or Rumen job",
		"logs/sub/deeper/binary":              "binary data",
		"logs/sub/deeper/avro-not-jhist.avro": "Avro file, not a MapReduce job history",
	} {
		if !strings.Contains(reasons[name], want) {
			t.Errorf("%s skipped for %q, want %q", name, reasons[name], want)
		}
	}
	if len(skipped) != 8 {
		t.Errorf("%d skipped: %v", len(skipped), skipped)
	}
}

func TestRolling(t *testing.T) {
	app := "app-20240501-0001"
	dir := "eventlog_v2_" + app + "/"
	files := map[string][]byte{dir + "appstatus_" + app + ".inprogress": nil, dir + "notes.txt": []byte("x")}
	for _, n := range []string{"1", "2", "3", "4", "9", "10", "11"} {
		files[dir+"events_"+n+"_"+app+".zstd"] = compressed(t, codec.Zstd, `{"Event":"Part`+n+`"}`+"\n")
	}
	files[dir+"events_3_"+app+".zstd.compact"] = compressed(t, codec.Zstd, `{"Event":"Compact3"}`+"\n")
	logs, skipped, err := Scan(mapFS(files), ".", testOpts)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 1 {
		t.Fatalf("%d logs", len(logs))
	}
	l := logs[0]
	if l.Name != "eventlog_v2_"+app || l.ID != app || l.Layout != Rolling || l.Kind != SparkEventLog || !l.InProgress || l.Complete {
		t.Errorf("log %+v", l)
	}
	var order []string
	for i, p := range l.Parts {
		order = append(order, strings.TrimSuffix(readPart(t, l, i), "\n"))
		if p.Index == 0 {
			t.Errorf("part %s has no index", p.Name)
		}
	}
	// Numeric order from the last compacted file on: 3.compact, 4, 9, 10, 11.
	want := []string{`{"Event":"Compact3"}`, `{"Event":"Part4"}`, `{"Event":"Part9"}`, `{"Event":"Part10"}`, `{"Event":"Part11"}`}
	if d := cmp.Diff(want, order); d != "" {
		t.Errorf("parts (-want +got):\n%s", d)
	}
	if len(l.Notes) != 1 || !strings.Contains(l.Notes[0].Text, "between index 4 and 9") || !l.Notes[0].Partial {
		t.Errorf("notes %v", l.Notes)
	}
	var superseded int
	for _, s := range skipped {
		if strings.Contains(s.Reason, "superseded by the compacted file events_3_") {
			superseded++
		}
	}
	if superseded != 3 || len(skipped) != 4 {
		t.Errorf("skipped %v", skipped)
	}

	// Complete, and without Spark's folder name: appstatus + events files.
	fsys := mapFS(map[string][]byte{
		"x/appstatus_a": nil,
		"x/events_2_a":  []byte(`{"Event":"B"}` + "\n"),
		"x/events_1_a":  []byte(`{"Event":"A"}` + "\n"),
		"y/events_1_b":  []byte(`{"Event":"Alone"}` + "\n"),
	})
	fsys["eventlog_v2_c"] = &fstestDir
	logs, skipped, err = Scan(fsys, ".", testOpts)
	if err != nil {
		t.Fatal(err)
	}
	m := byName(logs)
	if x := m["x"]; x == nil || !x.Complete || x.InProgress || readPart(t, x, 0) != `{"Event":"A"}`+"\n" {
		t.Errorf("x: %+v", x)
	}
	if y := m["y/events_1_b"]; y == nil || y.Layout != Single {
		t.Errorf("y: a lone events file is a single log: %v", logs)
	}
	if len(skipped) != 1 || skipped[0].Name != "eventlog_v2_c" || !strings.Contains(skipped[0].Reason, "without events_") {
		t.Errorf("skipped %v", skipped)
	}
}

func TestRollingWithoutStatus(t *testing.T) {
	logs, _, err := Scan(mapFS(map[string][]byte{
		"eventlog_v2_a/events_1_a": []byte(sparkLines),
	}), "eventlog_v2_a", testOpts)
	if err != nil || len(logs) != 1 {
		t.Fatal(logs, err)
	}
	l := logs[0]
	if l.InProgress || l.Complete || len(l.Notes) != 1 {
		t.Errorf("%+v", l)
	}
}

func TestSpark1Dir(t *testing.T) {
	for _, name := range []string{"lzf", "org.apache.spark.io.LZFCompressionCodec"} {
		fsys := mapFS(map[string][]byte{
			"app-1/EVENT_LOG_10":               compressed(t, codec.LZF, "ten\n"),
			"app-1/EVENT_LOG_2":                compressed(t, codec.LZF, "two\n"),
			"app-1/EVENT_LOG_1":                compressed(t, codec.LZF, sparkLines),
			"app-1/SPARK_VERSION_1.0.2":        nil,
			"app-1/COMPRESSION_CODEC_" + name:  nil,
			"app-1/stray":                      []byte("x"),
			"app-2/EVENT_LOG_1":                []byte(sparkLines),
			"app-2/SPARK_VERSION_1.2.0":        nil,
			"app-2/APPLICATION_COMPLETE":       nil,
			"app-3/EVENT_LOG_1":                []byte(sparkLines),
			"app-3/COMPRESSION_CODEC_brotli42": nil,
		})
		logs, skipped, err := Scan(fsys, ".", testOpts)
		if err != nil {
			t.Fatal(err)
		}
		m := byName(logs)
		a1, a2, a3 := m["app-1"], m["app-2"], m["app-3"]
		if a1 == nil || a2 == nil || a3 == nil || len(logs) != 3 {
			t.Fatalf("logs %v", logs)
		}
		if a1.Layout != Spark1Dir || a1.SparkVersion != "1.0.2" || !a1.InProgress || a1.Complete || a1.ID != "app-1" {
			t.Errorf("app-1: %+v", a1)
		}
		if d := cmp.Diff([]string{"app-1/EVENT_LOG_1", "app-1/EVENT_LOG_2", "app-1/EVENT_LOG_10"}, partNames(a1)); d != "" {
			t.Errorf("app-1 parts:\n%s", d)
		}
		if a1.Parts[0].Codec != codec.LZF || readPart(t, a1, 0) != sparkLines || readPart(t, a1, 2) != "ten\n" {
			t.Errorf("app-1 part 0 codec %v", a1.Parts[0].Codec)
		}
		if !slices.ContainsFunc(a1.Notes, func(n model.Note) bool { return n.Partial && strings.Contains(n.Text, "between 2 and 10") }) {
			t.Errorf("app-1 notes %v", a1.Notes)
		}
		if a2.SparkVersion != "1.2.0" || !a2.Complete || a2.InProgress {
			t.Errorf("app-2: %+v", a2)
		}
		if len(a3.Notes) != 1 || !strings.Contains(a3.Notes[0].Text, "brotli42") || readPart(t, a3, 0) != sparkLines {
			t.Errorf("app-3 notes %v", a3.Notes)
		}
		if len(skipped) != 1 || skipped[0].Name != "app-1/stray" {
			t.Errorf("skipped %v", skipped)
		}
	}
}

func TestRotated(t *testing.T) {
	fsys := mapFS(map[string][]byte{
		"db/cluster/eventlog":                      []byte(`{"Event":"Live"}` + "\n"),
		"db/cluster/eventlog-2021-06-15--15-00.gz": compressed(t, codec.Gzip, `{"Event":"Second"}`+"\n"),
		"db/cluster/eventlog-2021-06-15--14-00":    []byte(`{"Event":"First"}` + "\n"),
		"db/cluster/other-app":                     []byte(sparkLines),
		"db/plain/eventlog":                        []byte(sparkLines),
		"db/notspark/eventlog-2021-06-15--14-00":   []byte("hello\n"),
	})
	logs, skipped, err := Scan(fsys, "db", testOpts)
	if err != nil {
		t.Fatal(err)
	}
	m := byName(logs)
	l := m["db/cluster"]
	if l == nil || l.Layout != Rotated || l.ID != "cluster" {
		t.Fatalf("logs %v", logs)
	}
	var got []string
	for i := range l.Parts {
		got = append(got, readPart(t, l, i))
	}
	if d := cmp.Diff([]string{`{"Event":"First"}` + "\n", `{"Event":"Second"}` + "\n", `{"Event":"Live"}` + "\n"}, got); d != "" {
		t.Errorf("rotated order:\n%s", d)
	}
	if m["db/cluster/other-app"] == nil || m["db/plain/eventlog"] == nil || len(logs) != 3 {
		t.Errorf("logs %v", logs)
	}
	if len(skipped) != 1 || skipped[0].Name != "db/notspark/eventlog-2021-06-15--14-00" {
		t.Errorf("skipped %v", skipped)
	}
}

func TestMapReduce(t *testing.T) {
	jhist := "Avro-Json\n{\"type\":\"record\",\"name\":\"Event\",\"namespace\":\"org.apache.hadoop.mapreduce.jobhistory\"}\n"
	legacy := "Meta VERSION=\"1\" .\nJob JOBID=\"job_201002080801_40864\" JOBNAME=\"x\" .\n"
	conf := `<?xml version="1.0"?><configuration><property><name>a</name><value>b</value></property></configuration>`
	fsys := mapFS(map[string][]byte{
		"h/job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist": []byte(jhist),
		"h/job_1329348432655_0001_conf.xml":                        []byte(conf),
		"h/job_1329348432655_0002.jhist":                           []byte("Obj\x01\x04\x16avro.schema{\"namespace\":\"org.apache.hadoop.mapreduce.jobhistory\"}"),
		"h/job_0.23.9-FAILED.jhist":                                []byte(jhist),
		"h/host_1265616107882_job_201002080801_40864_user_name.gz": compressed(t, codec.Gzip, legacy),
		"h/host_1265616107882_job_201002080801_40864_conf.xml":     []byte(conf),
		"h/other_1265616107882_job_201002080801_40864_conf.xml":    []byte(conf),
		"h/Hadoop18JobHistoryLog.txt":                              []byte("Job JOBID=\"job_1_1\" JOBNAME=\"x\"\n"),
		"h/bundle":                                                 []byte("\f!!FILE=x_conf.xml!!\n<?xml?>\n"),
		"h/trace.json.gz":                                          compressed(t, codec.Gzip, "{\n  \"priority\" : \"NORMAL\",\n  \"jobID\" : \"job_1_1\"\n}\n"),
		"h/job_9_9_conf.xml":                                       []byte(conf),
		"h/sample-conf.xml":                                        []byte(conf),
	})
	logs, skipped, err := Scan(fsys, "h", testOpts)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Kind Kind
		ID   string
		Conf string
	}
	got := map[string]row{}
	for _, l := range logs {
		r := row{Kind: l.Kind, ID: l.ID}
		if l.Conf != nil {
			r.Conf = l.Conf.Name
			rc, err := l.OpenConf()
			if err != nil {
				t.Fatal(err)
			}
			rc.Close()
		} else if _, err := l.OpenConf(); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: OpenConf without conf: %v", l.Name, err)
		}
		got[strings.TrimPrefix(l.Name, "h/")] = r
	}
	want := map[string]row{
		"job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist": {MapReduceJhist, "job_1329348432655_0001", "h/job_1329348432655_0001_conf.xml"},
		"job_1329348432655_0002.jhist":                           {MapReduceJhist, "job_1329348432655_0002", ""},
		"job_0.23.9-FAILED.jhist":                                {MapReduceJhist, "job_0.23.9-FAILED", ""},
		"host_1265616107882_job_201002080801_40864_user_name.gz": {MapReduceLegacy, "job_201002080801_40864", "h/host_1265616107882_job_201002080801_40864_conf.xml"},
		"Hadoop18JobHistoryLog.txt":                              {MapReduceLegacy, "Hadoop18JobHistoryLog.txt", ""},
		"bundle":                                                 {MapReduceLegacy, "bundle", ""},
		"trace.json.gz":                                          {RumenTrace, "trace", ""},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("logs (-want +got):\n%s", d)
	}
	var names []string
	for _, s := range skipped {
		names = append(names, s.Name)
		if !strings.Contains(s.Reason, "configuration XML with no job history") {
			t.Errorf("%s: %s", s.Name, s.Reason)
		}
	}
	if d := cmp.Diff([]string{"h/job_9_9_conf.xml", "h/other_1265616107882_job_201002080801_40864_conf.xml", "h/sample-conf.xml"}, names); d != "" {
		t.Errorf("skipped:\n%s", d)
	}

	// Given explicitly, a history file still finds its conf.
	logs, _, err = Scan(fsys, "h/host_1265616107882_job_201002080801_40864_user_name.gz", testOpts)
	if err != nil || len(logs) != 1 || logs[0].Conf == nil || logs[0].Conf.Name != "h/host_1265616107882_job_201002080801_40864_conf.xml" {
		t.Errorf("explicit legacy log: %v %v", logs, err)
	}
}

func TestExplicitErrors(t *testing.T) {
	fsys := mapFS(map[string][]byte{
		"README.txt":       []byte("read me\n"),
		"job_1_1_conf.xml": []byte(`<?xml version="1.0"?><configuration/>`),
		"nothing/a.txt":    []byte("a\n"),
		"bad.zip":          []byte("PK\x03\x04 not really a zip"),
	})
	fsys["empty"] = &fstestDir
	for _, tc := range []struct{ path, want string }{
		{"README.txt", `source: "README.txt": not a log (text starting "read me"); want a Spark event log`},
		{"job_1_1_conf.xml", `source: "job_1_1_conf.xml": not a log (Hadoop job configuration XML)`},
		{"nothing", `source: "nothing": not a log: no log in this folder (1 files skipped)`},
		{"empty", `source: "empty": not a log: no log in this folder`},
		{"bad.zip", `source: "bad.zip": not a log: no log in this zip archive`},
	} {
		_, _, err := Scan(fsys, tc.path, testOpts)
		if !errors.Is(err, ErrNotLog) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Scan(%q) = %v, want %q", tc.path, err, tc.want)
		}
	}
	if _, _, err := Scan(fsys, "missing", testOpts); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), `"missing"`) {
		t.Errorf("missing: %v", err)
	}
}
