package decodelogs

import (
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/source"
)

// platformLogs is shared/data/platform-logs/spark-log-parser/tests/logs.
func platformLogs(t *testing.T) string {
	return filepath.Join(sharedtest.Dir(t, "platform-logs/spark-log-parser"), "tests", "logs")
}

// readAll reads path as the commands do: its applications, the logs read in
// part (errors), and the files skipped.
func readAll(t *testing.T, path string) (*Result, []*source.Log) {
	t.Helper()
	logs, skipped, err := Find([]string{path}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := Logs(logs, Options{Workers: 1})
	res.Skipped = skipped
	return res, logs
}

// hasNote reports whether a has a note containing text, partial or not.
func hasNote(a *model.App, partial bool, text string) bool {
	return slices.ContainsFunc(a.Quality.Notes, func(n model.Note) bool {
		return n.Partial == partial && strings.Contains(n.Text, text)
	})
}

// bases returns the base names of a log's parts.
func bases(l *source.Log) []string {
	var b []string
	for _, p := range l.Parts {
		b = append(b, path.Base(p.Name))
	}
	return b
}

// counted are a few of the independent counts, for comparing applications
// with a row of the counts file: jobs, stages, tasks, executors added.
func counted(a *model.App) [4]int64 {
	ev := a.Quality.Events
	return [4]int64{ev["SparkListenerJobStart"], ev["SparkListenerStageCompleted"], ev["SparkListenerTaskEnd"], ev["SparkListenerExecutorAdded"]}
}

// expected returns the counts file's row for an archive member as counted
// returns them, and its Spark version.
func expected(t *testing.T, member string) ([4]int64, string) {
	t.Helper()
	for _, col := range sharedtest.Rows(t, filepath.Join(sharedtest.Dir(t, "platform-logs/spark-log-parser"), "expected-counts.tsv")) {
		if col[0] == member {
			n := func(i int) int64 { v, _ := strconv.ParseInt(col[i], 10, 64); return v }
			return [4]int64{n(4), n(5), n(7), n(10)}, col[2]
		}
	}
	t.Fatalf("no row for %s", member)
	return [4]int64{}, ""
}

// The cases of platform-logs/MANIFEST.md, each doing what the manifest says
// a reader must do.

func TestDatabricksLog(t *testing.T) {
	want, version := expected(t, "tests/logs/databricks.zip!eventlog-2")
	for _, p := range []string{"databricks.zip", "log_in_dir/databricks.json.gz"} {
		res, _ := readAll(t, filepath.Join(platformLogs(t), p))
		if len(res.Apps) != 1 || len(res.Problems) != 0 {
			t.Fatalf("%s: %d applications, problems %v", p, len(res.Apps), res.Problems)
		}
		a := res.Apps[0]
		if a.Version != version || counted(a) != want {
			t.Errorf("%s: version %q counts %v, want %q %v", p, a.Version, counted(a), version, want)
		}
		runtime, _ := a.Env.SparkProp("spark.databricks.clusterUsageTags.sparkVersion")
		workers, _ := a.Env.SparkProp("spark.databricks.clusterUsageTags.clusterWorkers")
		if pl := a.Platform; pl.Name != model.PlatformDatabricks || pl.Photon || pl.Runtime != runtime || runtime == "" ||
			strconv.Itoa(pl.Cluster.Workers) != workers || pl.Cluster.WorkerNodeType == "" || pl.Cluster.DriverNodeType == "" {
			t.Errorf("%s: platform %+v", p, pl)
		}
	}
}

func TestDatabricksRollover(t *testing.T) {
	var joined [][4]int64
	for _, p := range []string{"databricks-rollover.zip", "databricks-rollover-messy.zip"} {
		res, logs := readAll(t, filepath.Join(platformLogs(t), p))
		if len(res.Apps) != 1 || len(logs) != 1 || len(res.Problems) != 0 {
			t.Fatalf("%s: %d applications from %d logs, problems %v", p, len(res.Apps), len(logs), res.Problems)
		}
		a, l := res.Apps[0], logs[0]
		var numbers []int64
		for _, r := range a.Rollovers {
			numbers = append(numbers, r.Number)
		}
		if !slices.Equal(numbers, []int64{0, 1, 2}) || bases(l)[2] != "eventlog" || l.Layout != source.Rotated {
			t.Errorf("%s: parts %v read in Rollover Numbers %v", p, bases(l), numbers)
		}
		if a.Quality.Partial() || len(a.Quality.Notes) != 0 {
			t.Errorf("%s: notes %v", p, a.Quality.Notes)
		}
		joined = append(joined, counted(a))
		if p == "databricks-rollover-messy.zip" {
			var why []string
			for _, s := range res.Skipped {
				why = append(why, path.Base(s.Name)+": "+s.Reason)
			}
			for _, junk := range []string{"__MACOSX: macOS", ".DS_Store: hidden", "databricks_pricing.json: not a log"} {
				if !slices.ContainsFunc(why, func(w string) bool { return strings.HasPrefix(w, junk) }) {
					t.Errorf("%s: %q not skipped: %v", p, junk, why)
				}
			}
			if !strings.HasSuffix(l.Parts[0].Name, ".zip.gz!/eventlog-2022-01-14--17-00") {
				t.Errorf("%s: part 0 is %s, want the one in the .zip.gz", p, l.Parts[0].Name)
			}
		}
	}
	// The sums of the parts' rows in the counts file.
	var sum [4]int64
	for _, m := range []string{"eventlog-2022-01-14--17-00.gz", "eventlog-2022-01-14--18-00.gz", "eventlog"} {
		c, _ := expected(t, "tests/logs/databricks-rollover.zip!databricks_example_1/"+m)
		for i := range sum {
			sum[i] += c[i]
		}
	}
	for i, c := range joined {
		if c != sum {
			t.Errorf("archive %d: joined counts %v, want the parts' sums %v", i, c, sum)
		}
	}
}

func TestEMRLog(t *testing.T) {
	want, version := expected(t, "tests/logs/emr.zip!application_1640227485896_0002")
	res, _ := readAll(t, filepath.Join(platformLogs(t), "emr.zip"))
	if len(res.Apps) != 1 || len(res.Problems) != 0 {
		t.Fatalf("%d applications, problems %v", len(res.Apps), res.Problems)
	}
	a := res.Apps[0]
	if counted(a) != want || a.Version != version || !a.Complete {
		t.Errorf("counts %v version %q complete %v, want %v %q", counted(a), a.Version, a.Complete, want, version)
	}
	if a.Platform.Name != model.PlatformEMR || !strings.HasSuffix(version, "-"+a.Platform.Runtime) {
		t.Errorf("platform %+v", a.Platform)
	}
}

// partialProblem returns the error naming a partly read log, checking it
// names the application and what is missing.
func partialProblem(t *testing.T, res *Result, what string) {
	t.Helper()
	if len(res.Problems) != 1 || !strings.Contains(res.Problems[0].Error(), what) || !strings.Contains(res.Problems[0].Error(), "read in part") {
		t.Errorf("problems %v, want one saying %q", res.Problems, what)
	}
}

func TestMissingParts(t *testing.T) {
	for _, tc := range []struct{ archive, note string }{
		{"bad/missing-part.zip", "part 1 is missing before part 2"},
		{"bad/missing-first-part.zip", "part 0 is missing: the log starts at part 1"},
	} {
		res, logs := readAll(t, filepath.Join(platformLogs(t), tc.archive))
		if len(res.Apps) != 1 || len(logs[0].Parts) != 3 {
			t.Fatalf("%s: %d applications", tc.archive, len(res.Apps))
		}
		a := res.Apps[0]
		if !hasNote(a, true, tc.note) || !a.Quality.Partial() || a.Version == "" || a.ID == "" {
			t.Errorf("%s: id %q version %q notes %v", tc.archive, a.ID, a.Version, a.Quality.Notes)
		}
		partialProblem(t, res, tc.note)
	}
}

func TestDuplicatePart(t *testing.T) {
	res, logs := readAll(t, filepath.Join(platformLogs(t), "bad/duplicate-part.tgz"))
	if len(res.Apps) != 1 || len(res.Problems) != 0 {
		t.Fatalf("%d applications, problems %v", len(res.Apps), res.Problems)
	}
	a := res.Apps[0]
	if !slices.Equal(bases(logs[0]), []string{"eventlog-2022-01-18--19-00", "eventlog-2022-01-18--20-00", "eventlog-2022-01-18--21-00", "eventlog"}) ||
		len(a.Rollovers) != 4 || a.Quality.Partial() || !hasNote(a, false, "read once") {
		t.Errorf("parts %v, notes %v", logs[0].Parts, a.Quality.Notes)
	}
	if !slices.ContainsFunc(res.Skipped, func(s source.Skipped) bool { return strings.HasSuffix(s.Name, "extra/eventlog-2022-01-18--19-00") }) {
		t.Errorf("the copy is not said skipped: %v", res.Skipped)
	}
}

func TestTwoContexts(t *testing.T) {
	res, _ := readAll(t, filepath.Join(platformLogs(t), "bad/non-unique-context-id.zip"))
	if len(res.Apps) != 2 {
		t.Fatalf("%d applications, want 2 (one per SparkContext Id)", len(res.Apps))
	}
	contexts := map[string]int{}
	for _, a := range res.Apps {
		for _, r := range a.Rollovers {
			if r.ContextID != a.Rollovers[0].ContextID {
				t.Errorf("%s mixes Spark contexts %s and %s", a.ID, r.ContextID, a.Rollovers[0].ContextID)
			}
		}
		contexts[a.Rollovers[0].ContextID] = len(a.Rollovers)
		if !hasNote(a, false, "kept apart") {
			t.Errorf("%s: notes %v", a.ID, a.Quality.Notes)
		}
	}
	if len(contexts) != 2 || contexts["4990884153077848559"] != 4 || contexts["5990884153077848559"] != 1 {
		t.Errorf("parts per context %v", contexts)
	}
	// The lone part of the second context starts at part 1: partial.
	partialProblem(t, res, "part 0 is missing")
}

func TestPartWithoutMarker(t *testing.T) {
	res, logs := readAll(t, filepath.Join(platformLogs(t), "bad/missing-dbc-event.zip"))
	if len(res.Apps) != 1 || len(res.Problems) != 0 {
		t.Fatalf("%d applications, problems %v", len(res.Apps), res.Problems)
	}
	a := res.Apps[0]
	if !slices.Equal(bases(logs[0]), []string{"eventlog-2022-01-18--19-00", "eventlog-2022-01-18--20-00-missing-DBC", "eventlog-2022-01-18--21-00", "eventlog"}) {
		t.Errorf("parts %v", bases(logs[0]))
	}
	if !hasNote(a, false, "missing-DBC has no DBCEventLoggingListenerMetadata line: placed by the date in its name between parts 0 and 2 (ordering uncertain)") || a.Quality.Partial() {
		t.Errorf("notes %v", a.Quality.Notes)
	}
	// Its one event was read.
	if a.Quality.Events["SparkListenerTaskStart"] != 1 {
		t.Errorf("events %v", a.Quality.Events)
	}
}

// TestArchivesApart: read together, the archives give the applications each
// gives alone; the parts of one archive never join another's (several hold
// the same Spark context).
func TestArchivesApart(t *testing.T) {
	dir := platformLogs(t)
	all, _ := readAll(t, dir)
	archives, err := filepath.Glob(filepath.Join(dir, "*", "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	top, _ := filepath.Glob(filepath.Join(dir, "*.*"))
	want := 0
	for _, a := range append(top, archives...) {
		res, _ := readAll(t, a)
		want += len(res.Apps)
	}
	if len(all.Apps) != want {
		t.Errorf("%d applications read together, %d one archive at a time", len(all.Apps), want)
	}
	for _, a := range all.Apps {
		if hasNote(a, false, "copy of") && !strings.Contains(a.Source, "duplicate-part") || hasNote(a, true, "two different files") {
			t.Errorf("%s: notes %v", a.Source, a.Quality.Notes)
		}
	}
}
