package shs

import (
	"errors"
	"math"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterlens/clusterlens/internal/model"
)

// base is 2020-09-13T12:26:40Z in epoch milliseconds.
const base = 1_600_000_000_000

// testApp builds a small application: one job, one stage attempt with
// three tasks (two successful, one failed without metrics), one executor.
func testApp() *model.App {
	a := &model.App{ID: "app-1", Name: "test", User: "alice", Engine: model.Spark, Version: "3.5.0",
		Start: base + 1000, End: base + 9000, Complete: true, LastUpdated: base + 9500,
		Hosts: []string{"", "h1"}, Reasons: []model.Reason{{}, {Kind: "ExceptionFailure", Message: "boom"}}}
	a.Env.Seen = true
	a.Env.JVM = [][2]string{{"Java Version", "17"}}
	a.Env.Spark = [][2]string{{"spark.b", "2"}, {"spark.a", "1"}, {"spark.password", "x"}}
	a.Executors = []*model.Executor{{ID: "1", Host: "h1", HostPort: "h1:1", Cores: 4, Added: base + 1500}}
	a.Jobs = []*model.Job{{ID: 0, Name: "count", Submitted: base + 1100, Completed: base + 8000, Status: model.JobSucceeded,
		StageIDs: []int32{0}, NumTasks: 3}}
	st := &model.Stage{ID: 0, Name: "count", NumTasks: 3, JobIDs: []int32{0}, Submitted: base + 1200, Completed: base + 7000,
		Status: model.StageComplete}
	for i, run := range []int64{100, 300} {
		var m model.TaskMetrics
		m[model.ExecutorRunTime] = run
		st.AddTask(model.Task{ID: int64(i), Index: int32(i), Launch: base + 2000, Finish: base + 2000 + run + 10,
			Host: 1, Status: model.TaskSuccess, HasMetrics: true, Locality: model.ProcessLocal, Partition: -1}, &m)
	}
	st.AddTask(model.Task{ID: 2, Index: 2, Launch: base + 2000, Finish: base + 2500, Host: 1, Status: model.TaskFailed,
		Reason: 1, Locality: model.ProcessLocal, Partition: -1}, &model.TaskMetrics{})
	a.Stages = []*model.Stage{st}
	return a
}

func get(t *testing.T, ix *Index, path string, q url.Values) (any, *Error) {
	t.Helper()
	v, err := ix.Get(path, q)
	if err == nil {
		return v, nil
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("GET %s: %v is not an *Error", path, err)
	}
	return nil, e
}

func TestErrors(t *testing.T) {
	ix := NewIndex([]*model.App{testApp()})
	cases := []struct {
		path   string
		query  string
		status int
		msg    string
	}{
		{"applications/nope", "", 404, "unknown app: nope"},
		{"applications/nope/jobs", "", 404, "no such app: nope"},
		{"applications/app-1/2/jobs", "", 404, "no such app: app-1/2"},
		{"applications/app-1/2", "", 404, "unknown app app-1, attempt 2"},
		{"applications/app-1/jobs/7", "", 404, "unknown job: 7"},
		{"applications/app-1/stages/9", "", 404, "unknown stage: 9"},
		{"applications/app-1/stages/0/3", "", 404, "unknown attempt for stage 0.  Found attempts: [0]"},
		{"applications/app-1/stages/9/0/taskSummary", "", 404, "No tasks reported metrics for 9 / 0 yet."},
		{"applications/app-1/stages/flimflam", "", 404, ""},
		{"applications/app-1/stages/0/0/taskSummary", "quantiles=foo,0.1", 400,
			`Bad value for parameter "quantiles".  Expected a double, got "foo"`},
		{"applications", "minDate=yesterday", 400, "Couldn't parse date: yesterday"},
		{"applications/app-1/jobs", "status=nope", 404, ""},
		{"applications/app-1/stages/0/0/taskList", "offset=x", 404, ""},
		{"applications/app-1/executors/x/threads", "", 400, "Invalid executorId: neither 'driver' nor number."},
		{"nothing", "", 404, ""},
	}
	for _, c := range cases {
		q, _ := url.ParseQuery(c.query)
		_, err := get(t, ix, c.path, q)
		if err == nil {
			t.Errorf("GET %s?%s: no error", c.path, c.query)
			continue
		}
		if err.Status != c.status || c.msg != "" && err.Message != c.msg {
			t.Errorf("GET %s?%s: %d %q, want %d %q", c.path, c.query, err.Status, err.Message, c.status, c.msg)
		}
	}
}

func TestApplicationFilters(t *testing.T) {
	a := testApp()
	running := testApp()
	running.ID, running.Complete, running.End, running.Start = "app-2", false, 0, base+5000
	ix := NewIndex([]*model.App{a, running})
	ids := func(q string) []string {
		vals, _ := url.ParseQuery(q)
		v, err := get(t, ix, "applications", vals)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var out []string
		for _, ai := range v.([]ApplicationInfo) {
			out = append(out, ai.ID)
		}
		return out
	}
	for q, want := range map[string][]string{
		"":                                   {"app-1", "app-2"},
		"status=completed":                   {"app-1"},
		"status=RUNNING":                     {"app-2"},
		"limit=1":                            {"app-1"},
		"minDate=2020-09-13T12:26:44.000GMT": {"app-2"},
		"maxEndDate=2020-09-14":              {"app-1"},
		"minEndDate=2020-09-14":              {"app-2"},
	} {
		if diff := cmp.Diff(want, ids(q)); diff != "" {
			t.Errorf("applications?%s (-want +got):\n%s", q, diff)
		}
	}
}

func TestTaskListAndSummary(t *testing.T) {
	ix := NewIndex([]*model.App{testApp()})
	v, _ := get(t, ix, "applications/app-1/stages/0/0/taskList", url.Values{"sortBy": {"-runtime"}})
	var order []int64
	for _, td := range v.([]TaskData) {
		order = append(order, td.TaskID)
	}
	// Failed attempt without metrics sorts as run time -1.
	if diff := cmp.Diff([]int64{1, 0, 2}, order); diff != "" {
		t.Errorf("sortBy=-runtime (-want +got):\n%s", diff)
	}
	v, _ = get(t, ix, "applications/app-1/stages/0/0/taskList", url.Values{"status": {"failed"}})
	tl := v.([]TaskData)
	if len(tl) != 1 || tl[0].ErrorMessage == nil || *tl[0].ErrorMessage != "boom" || tl[0].TaskMetrics != nil {
		t.Errorf("status=failed: %+v", tl)
	}
	v, _ = get(t, ix, "applications/app-1/stages/0/0/taskSummary", url.Values{"quantiles": {"0.5,0,1"}})
	d := v.(*TaskMetricDistributions)
	if diff := cmp.Diff(Doubles{0, 0.5, 1}, d.Quantiles); diff != "" {
		t.Errorf("quantiles not sorted: %s", diff)
	}
	if diff := cmp.Diff(Doubles{100, 300, 300}, d.ExecutorRunTime); diff != "" {
		t.Errorf("executorRunTime (-want +got):\n%s", diff)
	}
	// The duration index holds all three attempts (110, 310, 500) but the
	// count is of the two successful ones: positions 0, 1, 1.
	if diff := cmp.Diff(Doubles{110, 310, 310}, d.Duration); diff != "" {
		t.Errorf("duration (-want +got):\n%s", diff)
	}
}

func TestScanIndex(t *testing.T) {
	vals := []int64{1, 2, 3}
	got := scanIndex(vals, quantileIndexes([]float64{0, 0.5, 0.99, 1}, 5))
	// Positions 0, 2, 4, 4: the third is past the end (NaN) and the fourth,
	// equal to it, repeats the last value read, as Spark's scan does.
	want := Doubles{1, 3, math.NaN(), 3}
	if !cmp.Equal(want, got, cmp.Comparer(func(a, b float64) bool {
		return a == b || math.IsNaN(a) && math.IsNaN(b)
	})) {
		t.Errorf("scanIndex = %v, want %v", got, want)
	}
	if got := quantilesOf([]float64{5, 1, 3}, []float64{0, 0.5, 1}); !cmp.Equal(Doubles{1, 3, 5}, got) {
		t.Errorf("quantilesOf = %v", got)
	}
	if got := quantilesOf(nil, []float64{0.5}); !cmp.Equal(Doubles{0}, got) {
		t.Errorf("quantilesOf(empty) = %v", got)
	}
	b, _ := Doubles{1, 0.25, math.NaN()}.MarshalJSON()
	if string(b) != `[1.0,0.25,"NaN"]` {
		t.Errorf("Doubles JSON = %s", b)
	}
}

func TestParseQuantiles(t *testing.T) {
	for in, ok := range map[string]bool{"0.1,0.5": true, "0.5,": true, " 0.5 ": true, "1e-1": true, "": false,
		",0.5": false, "a": false, "0x1p-2": false} {
		if _, err := parseQuantiles(in); (err == nil) != ok {
			t.Errorf("parseQuantiles(%q) err = %v", in, err)
		}
	}
}

func TestDates(t *testing.T) {
	for in, want := range map[string]int64{
		"2015-02-10":                   1423526400000,
		"2015-02-03T16:42:40.000GMT":   1422981760000,
		"2015-02-03T16:42:40.000-0100": 1422985360000,
		"2015-13-01":                   1451606400000, // lenient: month 13 is next January
	} {
		got, ok := parseSimpleDate(in)
		if !ok || got != want {
			t.Errorf("parseSimpleDate(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	if s := Date(-1).String(); s != "1969-12-31T23:59:59.999GMT" {
		t.Errorf("Date(-1) = %s", s)
	}
}

func TestEnvironmentRedactsAndSorts(t *testing.T) {
	ix := NewIndex([]*model.App{testApp()})
	v, _ := get(t, ix, "applications/app-1/environment", nil)
	env := v.(ApplicationEnvironmentInfo)
	want := Tuples{{"spark.a", "1"}, {"spark.b", "2"}, {"spark.password", redacted}}
	if diff := cmp.Diff(want, env.SparkProperties); diff != "" {
		t.Errorf("sparkProperties (-want +got):\n%s", diff)
	}
}
