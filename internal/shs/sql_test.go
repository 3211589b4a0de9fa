package shs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterlens/clusterlens/internal/model"
)

// The constants of Spark 3.5's SqlResourceSuite.
const (
	suiteScanText        = "Scan text"
	suiteFilter          = "Filter"
	suiteWSCG1           = "WholeStageCodegen (1)"
	suiteDuration        = "duration"
	suiteRows            = "number of output rows"
	suiteMetadataTime    = "metadata time"
	suiteFilesRead       = "number of files read"
	suiteSizeOfFilesRead = "size of files read"
	suitePlanDescription = "== Physical Plan ==\nCollectLimit (3)\n+- * Filter (2)\n +- Scan text..."
	suiteDescription     = "csv at MyDataFrames.scala:57"
)

// suiteApp is SqlResourceSuite's SQLExecutionUIData and plan graph as the
// model holds them: execution 0, submitted at 1586768888233 and completed
// at 1586768888999 with jobs 0 and 1 succeeded; a WholeStageCodegen (1)
// cluster (node 0, metric "duration" 0) fusing a Filter (node 1, "number
// of output rows" 1), and a Scan text (node 2, metrics 2 to 5); one edge
// 3 -> 2. The metric values are the suite's ("0 ms", "1", "2 ms", "1", "1",
// "330.0 B") as aggregates that print them. codegen false drops the
// cluster, as the suite's nodesWhenCodegenIsOff does.
func suiteApp(codegen bool) *model.App {
	m := func(name string, id int64, t model.SQLMetricType) model.SQLPlanMetric {
		return model.SQLPlanMetric{AccumID: id, Name: name, Type: t}
	}
	nodes := []model.SQLNode{
		{ID: 0, Name: suiteWSCG1, Cluster: -1, IsCluster: true, Metrics: []model.SQLPlanMetric{m(suiteDuration, 0, model.MetricTiming)}},
		{ID: 1, Name: suiteFilter, Cluster: 0, Metrics: []model.SQLPlanMetric{m(suiteRows, 1, model.MetricSum)}},
		{ID: 2, Name: suiteScanText, Cluster: -1, Metrics: []model.SQLPlanMetric{
			m(suiteMetadataTime, 2, model.MetricTiming), m(suiteFilesRead, 3, model.MetricSum),
			m(suiteRows, 4, model.MetricSum), m(suiteSizeOfFilesRead, 5, model.MetricSize)}},
	}
	if !codegen {
		nodes = nodes[1:]
		nodes[0].Cluster = -1
	}
	one := func(id int64, t model.SQLMetricType, v int64) model.SQLMetricValue {
		if t == model.MetricSum {
			return model.SQLMetricValue{AccumID: id, Type: t, N: 1, Sum: v}
		}
		return model.SQLMetricValue{AccumID: id, Type: t, N: 1, Sum: v, Min: v, Med: v, Max: v}
	}
	x := &model.SQLExecution{ID: 0, RootID: 0, Description: suiteDescription, PlanDescription: model.PackText(suitePlanDescription),
		Start: 1586768888233, End: 1586768888999, Jobs: []int32{0, 1},
		Plan: &model.SQLPlan{Nodes: nodes, Edges: []model.SQLEdge{{From: 3, To: 2}}},
		Metrics: []model.SQLMetricValue{one(0, model.MetricTiming, 0), one(1, model.MetricSum, 1), one(2, model.MetricTiming, 2),
			one(3, model.MetricSum, 1), one(4, model.MetricSum, 1), one(5, model.MetricSize, 330)}}
	return &model.App{ID: "app-sql", Engine: model.Spark, Start: 1586768888000, SQL: []*model.SQLExecution{x},
		Jobs: []*model.Job{{ID: 0, SQLID: 0, Status: model.JobSucceeded}, {ID: 1, SQLID: 0, Status: model.JobSucceeded}}}
}

func int64p(v int64) *int64 { return &v }

// TestSqlResourceSuite ports SqlResourceSuite (Spark 3.5): each test's
// ExecutionData, field by field.
func TestSqlResourceSuite(t *testing.T) {
	// getNodes(): reverse order, the filter fused by codegen stage 1.
	nodes := []PlanNode{
		{NodeID: 2, NodeName: suiteScanText, Metrics: []PlanMetric{{suiteMetadataTime, "2 ms"}, {suiteFilesRead, "1"},
			{suiteRows, "1"}, {suiteSizeOfFilesRead, "330.0 B"}}},
		{NodeID: 1, NodeName: suiteFilter, WholeStageCodegenID: int64p(1), Metrics: []PlanMetric{{suiteRows, "1"}}},
		{NodeID: 0, NodeName: suiteWSCG1, Metrics: []PlanMetric{{suiteDuration, "0 ms"}}},
	}
	nodesOff := []PlanNode{nodes[0], {NodeID: 1, NodeName: suiteFilter, Metrics: []PlanMetric{{suiteRows, "1"}}}}
	edges := []PlanEdge{{FromID: 3, ToID: 2}}
	for _, c := range []struct {
		name                     string
		codegen                  bool
		details, planDescription bool
		nodes                    []PlanNode
		edges                    []PlanEdge
		plan                     string
	}{
		{"details = false and planDescription = false", true, false, false, []PlanNode{}, []PlanEdge{}, ""},
		{"details = true and planDescription = false", true, true, false, nodes, edges, ""},
		{"details = true and planDescription = true", true, true, true, nodes, edges, suitePlanDescription},
		{"details = true and planDescription = false and WSCG = off", false, true, false, nodesOff, edges, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ix := NewIndex([]*model.App{suiteApp(c.codegen)})
			q := url.Values{"details": {fmt.Sprint(c.details)}, "planDescription": {fmt.Sprint(c.planDescription)}}
			got := sqlOne(t, ix, "applications/app-sql/sql/0", q)
			desc := suiteDescription
			want := ExecutionData{ID: 0, Status: "COMPLETED", Description: &desc, PlanDescription: &c.plan,
				SubmissionTime: Date(1586768888233).String(), Duration: 766, RunningJobIDs: []int32{}, SuccessJobIDs: []int32{0, 1},
				FailedJobIDs: []int32{}, Nodes: c.nodes, Edges: c.edges}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	// Parse wholeStageCodegenId from nodeName.
	if id, ok := codegenID(suiteWSCG1); !ok || id != 1 {
		t.Errorf("codegenID(%q) = %v, want 1", suiteWSCG1, id)
	}
}

// TestSqlResourceStatus ports the status cases of SqlResourceWithActualMetricsSuite
// (SPARK-44334: a failed command with no jobs is FAILED, the one before it
// COMPLETED) and of Spark 3.5's status rules: a running execution, and an
// older log's end without errorMessage, failed when one of its jobs failed.
func TestSqlResourceStatus(t *testing.T) {
	app := suiteApp(true)
	ctas := func(id int64, msg string) *model.SQLExecution {
		return &model.SQLExecution{ID: id, RootID: id, Description: "CREATE TABLE SPARK_44334 USING parquet AS SELECT 1 AS a",
			Start: 100, End: 200, HasError: true, Error: msg, Plan: &model.SQLPlan{}}
	}
	app.SQL = append(app.SQL,
		ctas(1, ""),
		ctas(2, "[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view `SPARK_44334` because it already exists."),
		&model.SQLExecution{ID: 3, Start: 300, Plan: &model.SQLPlan{}, Jobs: []int32{7}},
		&model.SQLExecution{ID: 4, Start: 300, End: 400, Plan: &model.SQLPlan{}, Jobs: []int32{8, 9}})
	app.Jobs = append(app.Jobs, &model.Job{ID: 7, SQLID: 3}, &model.Job{ID: 8, SQLID: 4, Status: model.JobSucceeded},
		&model.Job{ID: 9, SQLID: 4, Status: model.JobFailed})
	ix := NewIndex([]*model.App{app})
	ix.Now = func() time.Time { return time.UnixMilli(1000) }
	list := sqlList(t, ix, "applications/app-sql/sql", nil)
	want := []string{"COMPLETED", "COMPLETED", "FAILED", "RUNNING", "FAILED"}
	if len(list) != len(want) {
		t.Fatalf("%d executions", len(list))
	}
	for i, d := range list {
		if d.Status != want[i] {
			t.Errorf("execution %d: status %s, want %s", d.ID, d.Status, want[i])
		}
	}
	if d := list[3]; d.Duration != 700 || len(d.RunningJobIDs) != 1 {
		t.Errorf("running execution: duration %d (want now - start = 700), running jobs %v", d.Duration, d.RunningJobIDs)
	}
	if d := list[4]; len(d.FailedJobIDs) != 1 || d.FailedJobIDs[0] != 9 || d.SuccessJobIDs[0] != 8 {
		t.Errorf("jobs: success %v failed %v", d.SuccessJobIDs, d.FailedJobIDs)
	}
	// SPARK-45291: an unknown id is "unknown query execution id", not "no such app".
	_, e := get(t, ix, fmt.Sprintf("applications/app-sql/sql/%d", int64(math.MaxInt64)), nil)
	if e == nil || e.Status != 404 || e.Message != "unknown query execution id: 9223372036854775807" {
		t.Errorf("unknown id: %v", e)
	}
}

// TestSqlResourceParams: the list is in id order, offset and length page
// it (length 20 by default), and the parameters convert as Jersey does.
func TestSqlResourceParams(t *testing.T) {
	app := suiteApp(true)
	for id := int64(30); id >= 1; id-- { // added out of order
		app.SQL = append(app.SQL, &model.SQLExecution{ID: id, Start: 100, End: 200, Plan: &model.SQLPlan{}})
	}
	ix := NewIndex([]*model.App{app})
	ids := func(q string) []int64 {
		t.Helper()
		vals, _ := url.ParseQuery(q)
		var out []int64
		for _, d := range sqlList(t, ix, "applications/app-sql/sql", vals) {
			out = append(out, d.ID)
		}
		return out
	}
	if got := ids(""); len(got) != 20 || got[0] != 0 || got[19] != 19 {
		t.Errorf("default page %v", got)
	}
	if got := ids("offset=29&length=5"); !cmp.Equal(got, []int64{29, 30}) {
		t.Errorf("last page %v", got)
	}
	for _, c := range []struct {
		path, query string
		status      int
		msg         string
	}{
		{"applications/app-sql/sql", "length=0", 500, "max must be positive."},
		{"applications/app-sql/sql", "offset=-1", 500, "-1"},
		{"applications/app-sql/sql", "length=x", 404, ""},
		{"applications/app-sql/sql/x", "", 404, ""},
		{"applications/app-sql/sql/99999999999999999999", "", 404, ""},
		{"applications/app-sql/sql/1/2", "", 404, ""},
		{"applications/app-sql/7/sql", "", 404, "no such app: app-sql/7"},
	} {
		q, _ := url.ParseQuery(c.query)
		_, e := get(t, ix, c.path, q)
		if e == nil || e.Status != c.status || c.msg != "" && e.Message != c.msg {
			t.Errorf("%s?%s: %v, want %d %q", c.path, c.query, e, c.status, c.msg)
		}
	}
	// details and planDescription: anything but "true" is false.
	d := sqlOne(t, ix, "applications/app-sql/sql/0", url.Values{"details": {"yes"}, "planDescription": {"TRUE"}})
	if len(d.Nodes) != 0 || *d.PlanDescription != suitePlanDescription {
		t.Errorf("details=yes planDescription=TRUE: %d nodes, plan %q", len(d.Nodes), *d.PlanDescription)
	}
}

// TestSqlResourceJSON checks the JSON as Jackson writes it: null options
// left out, dates in Spark's format.
func TestSqlResourceJSON(t *testing.T) {
	app := suiteApp(true)
	app.SQL = append(app.SQL, &model.SQLExecution{ID: 5, Jobs: []int32{0}}) // known only from a job
	ix := NewIndex([]*model.App{app})
	v, _ := get(t, ix, "applications/app-sql/sql", url.Values{"planDescription": {"true"}})
	sqlList(t, ix, "applications/app-sql/sql", url.Values{"planDescription": {"true"}})
	b, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got[0]["submissionTime"] != "2020-04-13T09:08:08.233GMT" {
		t.Errorf("submissionTime %v", got[0]["submissionTime"])
	}
	filter := got[0]["nodes"].([]any)[1].(map[string]any)
	if filter["wholeStageCodegenId"] != 1.0 {
		t.Errorf("filter node %v", filter)
	}
	if _, ok := got[0]["nodes"].([]any)[0].(map[string]any)["wholeStageCodegenId"]; ok {
		t.Error("wholeStageCodegenId written for a node outside codegen")
	}
	for _, k := range []string{"description", "planDescription"} {
		if _, ok := got[1][k]; ok {
			t.Errorf("execution without a start has %s", k)
		}
	}
}

// TestMetricString checks Spark's formats: Utils.bytesToString and
// msDurationToString against UtilsSuite's expectations, and
// SQLMetrics.stringValue's shapes.
func TestMetricString(t *testing.T) {
	for v, want := range map[int64]string{10: "10.0 B", 1500: "1500.0 B", 2000000: "1953.1 KiB", 2097152: "2.0 MiB",
		2306867: "2.2 MiB", 5368709120: "5.0 GiB", 5 << 40: "5.0 TiB", 5 << 50: "5.0 PiB", 5 << 60: "5.0 EiB", 0: "0.0 B"} {
		if got := string(appendBytes(nil, v)); got != want {
			t.Errorf("bytesToString(%d) = %q, want %q", v, got, want)
		}
	}
	const second, minute, hour = 1000, 60 * 1000, 60 * 60 * 1000
	for v, want := range map[int64]string{123: "123 ms", second: "1.0 s", second + 462: "1.5 s", hour: "1.00 h", minute: "1.0 m",
		minute + 4*second + 34: "1.1 m", 10*hour + minute + 4*second: "10.02 h", 10*hour + 59*minute + 59*second + 999: "11.00 h",
		1050: "1.0 s", 1250: "1.3 s"} {
		if got := string(appendDuration(nil, v)); got != want {
			t.Errorf("msDurationToString(%d) = %q, want %q", v, got, want)
		}
	}
	for _, c := range []struct {
		mv   model.SQLMetricValue
		want string
	}{
		{model.SQLMetricValue{Type: model.MetricSum, Sum: 1234567, N: 3}, "1,234,567"},
		{model.SQLMetricValue{Type: model.MetricSize, N: 3, Sum: 5 << 20, Min: 1 << 20, Med: 2 << 20, Max: 2 << 20, MaxTask: true, MaxStage: 3, MaxAttempt: 1, MaxTaskID: 42},
			"total (min, med, max (stageId: taskId))\n5.0 MiB (1024.0 KiB, 2.0 MiB, 2.0 MiB (stage 3.1: task 42))"},
		{model.SQLMetricValue{Type: model.MetricNsTiming, N: 2, Sum: 3_999_999, Min: 1_999_999, Med: 2_000_000, Max: 2_000_000},
			"total (min, med, max (stageId: taskId))\n3 ms (1 ms, 2 ms, 2 ms (driver))"},
		{model.SQLMetricValue{Type: model.MetricTiming, N: 1, Sum: 7, Min: 7, Med: 7, Max: 7}, "7 ms"},
		{model.SQLMetricValue{Type: model.MetricTiming}, "0 ms"},
		{model.SQLMetricValue{Type: model.MetricAverage, N: 3, Min: 12, Med: 22, Max: 63, MaxTask: true, MaxStage: 1, MaxTaskID: 3},
			"(min, med, max (stageId: taskId)):\n(1.2, 2.2, 6.3 (stage 1.0: task 3))"},
		{model.SQLMetricValue{Type: model.MetricAverage, N: 1, Min: 10, Med: 10, Max: 10}, "1"},
		{model.SQLMetricValue{Type: model.MetricCustom, N: 1, Sum: 5}, "N/A"},
	} {
		if got, ok := appendMetric(nil, c.mv); !ok || string(got) != c.want {
			t.Errorf("metricString(%+v) = %q, %v; want %q", c.mv, got, ok, c.want)
		}
	}
	if _, ok := appendMetric(nil, model.SQLMetricValue{Type: model.MetricCount, N: 1, Sum: 2}); ok {
		t.Error(`"count" is not a type Spark 3.5 prints`)
	}
}

// sqlList gets a /sql list and reads its JSON back.
func sqlList(t *testing.T, ix *Index, path string, q url.Values) []ExecutionData {
	t.Helper()
	var out []ExecutionData
	sqlGet(t, ix, path, q, &out)
	return out
}

// sqlOne gets one execution and reads its JSON back.
func sqlOne(t *testing.T, ix *Index, path string, q url.Values) ExecutionData {
	t.Helper()
	var out ExecutionData
	sqlGet(t, ix, path, q, &out)
	return out
}

// sqlGet gets path and decodes its JSON into v, checking on the way that
// the answer's own writer prints what encoding/json prints for the same
// values (Marshal's format).
func sqlGet(t *testing.T, ix *Index, path string, q url.Values, v any) {
	t.Helper()
	ans, err := get(t, ix, path, q)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	b, merr := Marshal(ans)
	if merr != nil {
		t.Fatal(merr)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v\n%s", path, err, b)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), b) {
		t.Fatalf("GET %s: the writer's JSON differs from encoding/json's:\n%s\nwant\n%s", path, b, buf.Bytes())
	}
}

// TestFloat32Fixed checks the integer rounding of durations against the
// literal route Java's Formatter takes (float widened to double, its
// shortest digits, half up) for every millisecond count up to 20 hours in
// steps that cover each unit's ties.
func TestFloat32Fixed(t *testing.T) {
	const second, minute, hour = 1000, 60 * 1000, 60 * 60 * 1000
	for ms := int64(second); ms < 20*hour; ms += 11 {
		d, prec := float32(second), 1
		switch {
		case ms >= hour:
			d, prec = hour, 2
		case ms >= minute:
			d = minute
		}
		f := float32(ms) / d
		want := string(javaFixedReference(nil, float64(f), prec))
		if got := string(appendFloat32Fixed(nil, f, prec)); got != want {
			t.Fatalf("%d ms: %q, Java prints %q", ms, got, want)
		}
	}
}

// javaFixedReference formats v >= 0 with prec decimals as java.util.Formatter's
// %f does, literally: the double's shortest decimal digits, rounded half up.
func javaFixedReference(b []byte, v float64, prec int) []byte {
	var buf [40]byte
	s := strconv.AppendFloat(buf[:0], v, 'f', -1, 64) // shortest digits, fixed point
	dot := bytes.IndexByte(s, '.')
	if dot < 0 {
		dot = len(s)
		s = append(s, '.')
	}
	for len(s) < dot+1+prec+1 {
		s = append(s, '0')
	}
	keep := s[:dot+1+prec]
	if s[dot+1+prec] >= '5' { // half up: carry leftwards over the point
		i := len(keep) - 1
		for ; i >= 0; i-- {
			if keep[i] == '.' {
				continue
			}
			if keep[i] < '9' {
				keep[i]++
				break
			}
			keep[i] = '0'
		}
		if i < 0 {
			b = append(b, '1')
		}
	}
	if prec == 0 {
		keep = keep[:dot]
	}
	return append(b, keep...)
}

// TestSqlResourceResultQueryStage: /sql for a Spark 4 plan with a
// ResultQueryStage (testdata/spark4-resultquerystage.json: SPARK-51008's
// example, AdaptiveSparkPlan over ResultQueryStage over a sort-merge join
// of two shuffle query stages) lists the nodes and edges Spark 4's History
// Server lists: SparkPlanGraph skips the ResultQueryStage as it skips a
// TableCacheQueryStage, so 16 nodes and 10 edges, not 17 and 11. The lists
// are worked out by hand from SparkPlanGraph.buildSparkPlanGraphNode.
func TestSqlResourceResultQueryStage(t *testing.T) {
	ix := NewIndex(loadDir(t, "testdata"))
	got := sqlOne(t, ix, "applications/local-spark4/sql/0", nil)
	type node struct {
		ID      int64
		Name    string
		Codegen int64 // 0: none
	}
	var nodes []node
	for _, n := range got.Nodes {
		var c int64
		if n.WholeStageCodegenID != nil {
			c = *n.WholeStageCodegenID
		}
		nodes = append(nodes, node{n.NodeID, n.NodeName, c})
	}
	want := []node{
		{15, "Range", 2}, {14, "WholeStageCodegen (2)", 0}, {13, "Exchange", 0}, {12, "AQEShuffleRead", 0},
		{11, "Sort", 4}, {10, "WholeStageCodegen (4)", 0}, {9, "Range", 1}, {8, "WholeStageCodegen (1)", 0},
		{7, "Exchange", 0}, {6, "AQEShuffleRead", 0}, {5, "Sort", 3}, {4, "WholeStageCodegen (3)", 0},
		{3, "SortMergeJoin", 5}, {2, "Project", 5}, {1, "WholeStageCodegen (5)", 0}, {0, "AdaptiveSparkPlan", 0},
	}
	if d := cmp.Diff(want, nodes); d != "" {
		t.Errorf("nodes (-Spark 4 +ours):\n%s", d)
	}
	wantEdges := []PlanEdge{{2, 0}, {3, 2}, {5, 3}, {6, 5}, {7, 6}, {9, 7}, {11, 3}, {12, 11}, {13, 12}, {15, 13}}
	if d := cmp.Diff(wantEdges, got.Edges); d != "" {
		t.Errorf("edges (-Spark 4 +ours):\n%s", d)
	}
}
