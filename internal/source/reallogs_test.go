package source

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/google/go-cmp/cmp"
)

// TestExpectedCounts finds every log of shared/data/logs: each file listed
// in expected-counts.tsv must be a part of a log of the listed kind, in the
// right layout; the other files must be skipped or attached for a reason.
func TestExpectedCounts(t *testing.T) {
	dir := sharedtest.Dir(t, "logs")
	tsv, err := os.ReadFile(filepath.Join(dir, "expected-counts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	logs, skipped, err := Find([]string{dir}, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	partOf := map[string]*Log{}
	for _, l := range logs {
		for _, p := range l.Parts {
			if partOf[p.Name] != nil {
				t.Errorf("%s is a part of two logs", p.Name)
			}
			partOf[p.Name] = l
		}
	}
	rows := 0
	for _, line := range strings.Split(string(tsv), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 2 || strings.HasPrefix(line, "#") {
			continue
		}
		rows++
		kind, path := f[0], filepath.Join(dir, f[1])
		l := partOf[path]
		if l == nil {
			t.Errorf("%s: not found", f[1])
			continue
		}
		if l.Kind.String() != kind {
			t.Errorf("%s: kind %v, want %s", f[1], l.Kind, kind)
		}
		want := Single
		switch {
		case strings.Contains(f[1], "/eventlog_v2_"):
			want = Rolling
		case strings.Contains(f[1], "/EVENT_LOG_"):
			want = Spark1Dir
		case strings.Contains(f[1], "/db_sim_eventlog/"):
			want = Rotated
		}
		if l.Layout != want {
			t.Errorf("%s: layout %v, want %v", f[1], l.Layout, want)
		}
	}
	if rows < 130 {
		t.Errorf("only %d rows in expected-counts.tsv", rows)
	}
	m := byName(logs)
	rel := func(p string) string { return filepath.Join(dir, p) }

	rolling := m[rel("rapids-tools/core/src/test/resources/spark-events-qualification/eventlog_v2_local-1623876083964")]
	if rolling == nil || !rolling.Complete || rolling.ID != "local-1623876083964" ||
		!slices.Equal(partBases(rolling), []string{"events_1_local-1623876083964.zstd", "events_2_local-1623876083964.zstd"}) {
		t.Errorf("rolling log: %+v", rolling)
	}
	old := m[rel("apache-spark-1.x-dirformat/core/src/test/resources/spark-events/local-1422981780767")]
	if old == nil || old.SparkVersion != "1.2.0" || !old.Complete || old.InProgress || len(old.Parts) != 1 {
		t.Errorf("Spark 1.x folder: %+v", old)
	}
	db := m[rel("rapids-tools/core/src/test/resources/spark-events-qualification/db_sim_eventlog")]
	if db == nil || !slices.Equal(partBases(db), []string{"eventlog-2021-06-15--15-00.gz", "eventlog"}) {
		t.Errorf("rotated log: %+v", db)
	}
	zipped := m[rel("sparklint/src/test/resources/history_source/eventLogs-application_1489705648216_1600.zip")+"!/application_1489705648216_1600"]
	if zipped == nil || zipped.Kind != SparkEventLog {
		t.Errorf("log in the History Server zip not found")
	} else if text := readPart(t, zipped, 0); len(text) != 177329 || !strings.HasPrefix(text, `{"Event":`) {
		t.Errorf("zipped log: %d bytes", len(text))
	}

	withConf := map[string]string{}
	for _, l := range logs {
		if l.Conf != nil {
			withConf[filepath.Base(l.Name)] = filepath.Base(l.Conf.Name)
		}
	}
	wantConf := map[string]string{
		"job_1526555215992_0001-1526555642677-user-QuasiMonteCarlo-1526555658299-1-1-SUCCEEDED-default-1526555648931.jhist": "job_1526555215992_0001_conf.xml",
		"job_1526555215992_0002-1526555694494-user-QuasiMonteCarlo-1526555709175-1-1-SUCCEEDED-default-1526555699708.jhist": "job_1526555215992_0002_conf.xml",
		"job_1526555215992_0004-1526567229183-user-QuasiMonteCarlo-1526567243482-1-1-SUCCEEDED-default-1526567234171.jhist": "job_1526555215992_0004_conf.xml",
		"job_1329348432655_0001-1329348443227-user-Sleep+job-1329348468601-10-1-SUCCEEDED-default.jhist":                    "job_1329348432655_0001_conf.xml",
		"megacluster.megacorp.com_1265616107882_job_201002080801_40864_job_name-DAILY%2F20100210%5D.gz":                     "megacluster.megacorp.com_1265616107882_job_201002080801_40864_conf.xml",
		"megacluster.megacorp.com_1265616107882_job_201002080801_50510_job_name-DAILY%2F20100208%5D.gz":                     "megacluster.megacorp.com_1265616107882_job_201002080801_50510_conf.xml",
	}
	if d := cmp.Diff(wantConf, withConf); d != "" {
		t.Errorf("confs (-want +got):\n%s", d)
	}

	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[strings.TrimPrefix(s.Name, dir+string(filepath.Separator))] = s.Reason
	}
	wantSkipped := map[string]string{
		"MANIFEST.md":         "text",
		"expected-counts.tsv": "text",
		"hadoop-mapreduce-0.21/src/test/tools/data/rumen/small-trace-test/dispatch-topology-output.json.gz": "gzip-compressed Rumen cluster topology",
		"hadoop-mapreduce-0.21/src/test/tools/data/rumen/small-trace-test/job-tracker-logs-topology-output": "Rumen cluster topology",
		"hadoop-mapreduce-0.21/src/test/tools/data/rumen/small-trace-test/truncated-topology-output":        "Rumen cluster topology",
		"hadoop-mapreduce-0.21/src/test/tools/data/rumen/small-trace-test/sample-conf.file.xml":             "configuration XML",
		"hadoop-mapreduce-0.21/src/test/tools/data/rumen/small-trace-test/sample-conf.file.new.xml":         "configuration XML",
		"hraven/hraven-etl/src/test/resources/job_1329348432655_0001_conf.xml":                              "configuration XML",
	}
	for name, want := range wantSkipped {
		if !strings.Contains(reasons[name], want) {
			t.Errorf("%s: skipped for %q, want %q", name, reasons[name], want)
		}
	}
	if len(skipped) != len(wantSkipped) {
		t.Errorf("%d skipped, want %d: %v", len(skipped), len(wantSkipped), skipped)
	}

	// Every part reads to its end; progress adds up to the total size.
	var progress int64
	for _, l := range logs {
		for i := range l.Parts {
			r, err := l.OpenProgress(i, func(n int64) { progress += n })
			if err != nil {
				t.Fatal(err)
			}
			n, err := io.Copy(io.Discard, r)
			if err != nil || n == 0 {
				t.Errorf("%s: %d bytes, %v", l.Parts[i].Name, n, err)
			}
			r.Close()
		}
	}
	if total := TotalSize(logs); progress != total {
		t.Errorf("progress %d bytes, total size %d", progress, total)
	}
	t.Logf("%d logs, %d skipped, %d bytes", len(logs), len(skipped), progress)
}

// TestSHSExpectations lists the applications of Spark's own History Server
// test folder: 18 files, each a log (the two attempts of local-1430917381535
// are two logs).
func TestSHSExpectations(t *testing.T) {
	dir := sharedtest.Dir(t, "shs-expectations/spark-events")
	logs, skipped, err := Find([]string{dir}, testOpts)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range logs {
		ids = append(ids, l.ID)
		if l.Kind != SparkEventLog || l.Layout != Single || !l.Complete || l.InProgress {
			t.Errorf("%s: %v %v complete %v", l.Name, l.Kind, l.Layout, l.Complete)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range entries {
		want = append(want, e.Name())
	}
	if len(want) != 18 || !slices.Contains(want, "local-1422981780767") || !slices.Contains(want, "local-1430917381535_2") {
		t.Errorf("shared data changed: %v", want)
	}
	if d := cmp.Diff(want, ids); d != "" || len(skipped) != 0 {
		t.Errorf("ids (-want +got):\n%s\nskipped %v", d, skipped)
	}
}

func partBases(l *Log) []string {
	var b []string
	for _, p := range l.Parts {
		b = append(b, filepath.Base(p.Name))
	}
	return b
}
