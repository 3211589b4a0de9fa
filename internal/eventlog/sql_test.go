package eventlog

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterlens/clusterlens/internal/model"
)

// sqlLog builds a small event log line by line.
type sqlLog struct{ lines []string }

func (l *sqlLog) add(format string, args ...any) {
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *sqlLog) read(t *testing.T) *model.App {
	t.Helper()
	app, err := Read("test", strings.NewReader(strings.Join(l.lines, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if q := app.Quality; q.BadLines != 0 || q.Incomplete != 0 || q.UnknownEvents != 0 {
		t.Fatalf("quality: %+v", q)
	}
	return app
}

const sqlPrefix = `{"Event":"org.apache.spark.sql.execution.ui.`

// metricJSON is a SparkPlanInfo metric.
func metricJSON(name string, id int64, typ string) string {
	return fmt.Sprintf(`{"name":%q,"accumulatorId":%d,"metricType":%q}`, name, id, typ)
}

// planJSON is a SparkPlanInfo node.
func planJSON(name, desc string, metrics []string, children ...string) string {
	return fmt.Sprintf(`{"nodeName":%q,"simpleString":%q,"children":[%s],"metadata":{},"metrics":[%s]}`,
		name, desc, strings.Join(children, ","), strings.Join(metrics, ","))
}

func (l *sqlLog) start(id, time int64, plan string) {
	l.add(sqlPrefix+`SparkListenerSQLExecutionStart","executionId":%d,"description":"q%d","details":"at Q.scala","physicalPlanDescription":"== Physical Plan ==","sparkPlanInfo":%s,"time":%d}`, id, id, plan, time)
}

func (l *sqlLog) end(id, time int64) {
	l.add(sqlPrefix+`SparkListenerSQLExecutionEnd","executionId":%d,"time":%d}`, id, time)
}

// job starts job with its stages (id:tasks) for SQL execution exec (-1: none).
func (l *sqlLog) job(job int, exec int64, stages ...[2]int) {
	var infos, ids []string
	for _, s := range stages {
		infos = append(infos, fmt.Sprintf(`{"Stage ID":%d,"Stage Attempt ID":0,"Stage Name":"s%d","Number of Tasks":%d,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[]}`, s[0], s[0], s[1]))
		ids = append(ids, fmt.Sprint(s[0]))
	}
	props := "{}"
	if exec >= 0 {
		props = fmt.Sprintf(`{"spark.sql.execution.id":"%d"}`, exec)
	}
	l.add(`{"Event":"SparkListenerJobStart","Job ID":%d,"Submission Time":%d,"Stage Infos":[%s],"Stage IDs":[%s],"Properties":%s}`,
		job, 1000+job, strings.Join(infos, ","), strings.Join(ids, ","), props)
}

func (l *sqlLog) jobEnd(job int) {
	l.add(`{"Event":"SparkListenerJobEnd","Job ID":%d,"Completion Time":%d,"Job Result":{"Result":"JobSucceeded"}}`, job, 2000+job)
}

func (l *sqlLog) submit(stage, attempt, tasks int) {
	l.add(`{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":%d,"Stage Attempt ID":%d,"Stage Name":"s","Number of Tasks":%d,"RDD Info":[],"Parent IDs":[],"Details":"","Accumulables":[]},"Properties":{}}`, stage, attempt, tasks)
}

// task ends task id of stage (attempt) at index; updates are id:value pairs
// as Spark logs them (strings).
func (l *sqlLog) task(stage, attempt int, id int64, index int, failed bool, updates ...string) {
	var acc []string
	for _, u := range updates {
		k, v, _ := strings.Cut(u, ":")
		acc = append(acc, fmt.Sprintf(`{"ID":%s,"Name":"m","Update":"%s","Value":"%s","Internal":true,"Count Failed Values":true,"Metadata":"sql"}`, k, v, v))
	}
	reason := `{"Reason":"Success"}`
	if failed {
		reason = `{"Reason":"ExceptionFailure","Class Name":"E","Description":"boom","Stack Trace":[]}`
	}
	l.add(`{"Event":"SparkListenerTaskEnd","Stage ID":%d,"Stage Attempt ID":%d,"Task Type":"ResultTask","Task End Reason":%s,"Task Info":{"Task ID":%d,"Index":%d,"Attempt":0,"Launch Time":1,"Executor ID":"1","Host":"h","Locality":"ANY","Speculative":false,"Getting Result Time":0,"Finish Time":2,"Failed":%v,"Killed":false,"Accumulables":[%s]}}`,
		stage, attempt, reason, id, index, failed, strings.Join(acc, ","))
}

func (l *sqlLog) driver(exec int64, updates string) {
	l.add(sqlPrefix+`SparkListenerDriverAccumUpdates","executionId":%d,"accumUpdates":[%s]}`, exec, updates)
}

func appLine(l *sqlLog) {
	l.add(`{"Event":"SparkListenerApplicationStart","App Name":"t","App ID":"app-1","Timestamp":1,"User":"u"}`)
}

func metricOf(t *testing.T, x *model.SQLExecution, id int64) model.SQLMetricValue {
	t.Helper()
	v, ok := x.Metric(id)
	if !ok {
		t.Fatalf("execution %d: no value for accumulator %d (have %+v)", x.ID, id, x.Metrics)
	}
	return v
}

// TestSQLListenerAggregation follows SQLAppStatusListener on a hand-made
// log: a successful index ignores later attempts, a failed attempt's
// update is overwritten by its retry, a driver update above the tasks'
// largest value takes the largest's place, and each metric is summarized
// per its type.
func TestSQLListenerAggregation(t *testing.T) {
	var l sqlLog
	appLine(&l)
	plan := planJSON("WholeStageCodegen (2)", "WholeStageCodegen (2)", []string{metricJSON("duration", 9, "timing")},
		planJSON("HashAggregate", "HashAggregate(keys=[])", []string{metricJSON("number of output rows", 10, "sum"), metricJSON("peak memory", 11, "size")},
			planJSON("InputAdapter", "InputAdapter", nil,
				planJSON("Exchange", "Exchange SinglePartition", []string{metricJSON("shuffle bytes written", 12, "size")},
					planJSON("Scan parquet ", "FileScan parquet", []string{metricJSON("number of output rows", 13, "sum"), metricJSON("number of files read", 14, "sum")})))))
	l.start(0, 100, plan)
	l.job(0, 0, [2]int{0, 2}, [2]int{1, 2})
	l.submit(0, 0, 2)
	l.task(0, 0, 0, 0, false, "13:5", "12:100")
	l.task(0, 0, 1, 1, false, "13:7", "12:300")
	l.task(0, 0, 2, 1, false, "13:1000", "12:999") // a second attempt of a completed index
	l.submit(1, 0, 2)
	l.task(1, 0, 3, 0, true, "10:1")
	l.task(1, 0, 4, 0, false, "10:2", "11:50", "9:4")
	l.task(1, 0, 5, 1, false, "11:70", "9:-1")
	l.driver(0, "[14,3],[11,80]")
	l.jobEnd(0)
	l.end(0, 200)
	app := l.read(t)
	if len(app.SQL) != 1 {
		t.Fatalf("%d executions", len(app.SQL))
	}
	x := app.SQL[0]
	want := map[int64]model.SQLMetricValue{
		13: {AccumID: 13, Type: model.MetricSum, N: 2, Sum: 12},
		12: {AccumID: 12, Type: model.MetricSize, N: 2, Sum: 400, Min: 100, Med: 300, Max: 300, MaxTask: true, MaxStage: 0, MaxTaskID: 1},
		10: {AccumID: 10, Type: model.MetricSum, N: 2, Sum: 2},
		11: {AccumID: 11, Type: model.MetricSize, N: 3, Sum: 200, Min: 50, Med: 70, Max: 80},
		14: {AccumID: 14, Type: model.MetricSum, N: 1, Sum: 3},
		9:  {AccumID: 9, Type: model.MetricTiming, N: 1, Sum: 4, Min: 4, Med: 4, Max: 4, MaxTask: true, MaxStage: 1, MaxTaskID: 4},
	}
	if len(x.Metrics) != len(want) {
		t.Errorf("%d metrics, want %d: %+v", len(x.Metrics), len(want), x.Metrics)
	}
	for id, w := range want {
		if got := metricOf(t, x, id); got != w {
			t.Errorf("accumulator %d: got %+v\nwant %+v", id, got, w)
		}
	}
	if x.Start != 100 || x.End != 200 || x.Description != "q0" || x.Details.String() != "at Q.scala" || len(x.Jobs) != 1 {
		t.Errorf("execution: %+v", x)
	}
	// The graph: the codegen stage, its aggregate, the exchange and the scan.
	names := []string{}
	for _, n := range x.Plan.Nodes {
		names = append(names, fmt.Sprintf("%d:%s@%d", n.ID, n.Name, n.Cluster))
	}
	if d := cmp.Diff([]string{"0:WholeStageCodegen (2)@-1", "1:HashAggregate@0", "2:Exchange@-1", "3:Scan parquet @-1"}, names); d != "" {
		t.Errorf("nodes (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]model.SQLEdge{{From: 2, To: 1}, {From: 3, To: 2}}, x.Plan.Edges); d != "" {
		t.Errorf("edges (-want +got):\n%s", d)
	}
}

// TestSQLListenerRestarts: a stage's new attempt restarts its values, and a
// later job listing a stage already tracked restarts it too (Spark's
// onJobStart puts a fresh LiveStageMetrics for every stage it lists).
func TestSQLListenerRestarts(t *testing.T) {
	var l sqlLog
	appLine(&l)
	plan := planJSON("Exchange", "Exchange", []string{metricJSON("records", 20, "sum")})
	l.start(1, 100, plan)
	l.job(1, 1, [2]int{2, 2})
	l.submit(2, 0, 2)
	l.task(2, 0, 10, 0, false, "20:5")
	l.submit(2, 1, 2) // retry: attempt 0's value is gone
	l.task(2, 1, 11, 1, false, "20:6")
	l.task(2, 0, 12, 1, false, "20:100") // a late task of the old attempt
	l.jobEnd(1)
	l.job(2, 1, [2]int{2, 2}, [2]int{3, 1}) // lists stage 2 again: restarted
	l.submit(3, 0, 1)
	l.task(3, 0, 13, 0, false, "20:7")
	l.jobEnd(2)
	l.end(1, 300)
	x := l.read(t).SQL[0]
	if got := metricOf(t, x, 20); got.Sum != 7 || got.N != 1 {
		t.Errorf("records: %+v, want only stage 3's 7", got)
	}
	if len(x.Jobs) != 2 || x.Jobs[0] != 1 || x.Jobs[1] != 2 {
		t.Errorf("jobs %v", x.Jobs)
	}
}

// TestSQLListenerAdaptive: metrics an adaptive update declares are tracked
// by the jobs that start after it; the graph is the update's, the first
// plan kept as InitialPlan.
func TestSQLListenerAdaptive(t *testing.T) {
	var l sqlLog
	appLine(&l)
	l.start(2, 100, planJSON("AdaptiveSparkPlan", "AdaptiveSparkPlan isFinalPlan=false", nil,
		planJSON("Exchange", "Exchange", []string{metricJSON("records", 30, "sum")})))
	l.job(3, 2, [2]int{4, 1})
	l.add("%s", sqlPrefix+`SparkListenerSQLAdaptiveExecutionUpdate","executionId":2,"physicalPlanDescription":"final","sparkPlanInfo":`+
		planJSON("AdaptiveSparkPlan", "AdaptiveSparkPlan isFinalPlan=true", nil,
			planJSON("AQEShuffleRead", "AQEShuffleRead coalesced", []string{metricJSON("partitions", 31, "sum")},
				planJSON("ShuffleQueryStage", "ShuffleQueryStage 0", nil,
					planJSON("Exchange", "Exchange", []string{metricJSON("records", 30, "sum")}))))+`}`)
	l.task(4, 0, 20, 0, false, "30:3", "31:9") // 31 is not tracked by job 3's stage
	l.jobEnd(3)
	l.job(4, 2, [2]int{5, 1})
	l.task(5, 0, 21, 0, false, "31:4")
	l.add("%s", sqlPrefix+`SparkListenerSQLAdaptiveSQLMetricUpdates","executionId":2,"sqlPlanMetrics":[`+metricJSON("extra", 32, "size")+`]}`)
	l.driver(2, "[32,1000]")
	l.jobEnd(4)
	l.end(2, 400)
	x := l.read(t).SQL[0]
	if got := metricOf(t, x, 30); got.Sum != 3 {
		t.Errorf("records %+v", got)
	}
	if got := metricOf(t, x, 31); got.Sum != 4 {
		t.Errorf("partitions %+v, want job 4's 4 only", got)
	}
	if got := metricOf(t, x, 32); got.Sum != 1000 || got.MaxTask {
		t.Errorf("extra %+v", got)
	}
	if x.InitialPlan == nil || x.AdaptiveUpdates != 1 || x.PlanDescription.String() != "final" {
		t.Fatalf("adaptive: initial %v, updates %d, text %q", x.InitialPlan, x.AdaptiveUpdates, x.PlanDescription.String())
	}
	if n := x.Plan.Nodes; len(n) != 3 || n[1].Name != "AQEShuffleRead" || n[2].Name != "Exchange" {
		t.Errorf("final plan %+v", n)
	}
}

// TestSQLListenerRunning: an execution the log leaves running keeps what its
// tasks reported; an update that is not a whole number stops the rest of
// its task's updates; a job naming an execution that never started makes
// one.
func TestSQLListenerRunning(t *testing.T) {
	var l sqlLog
	appLine(&l)
	l.start(3, 100, planJSON("Scan", "Scan", []string{metricJSON("a", 40, "sum"), metricJSON("b", 41, "sum")}))
	l.job(5, 3, [2]int{6, 2})
	l.task(6, 0, 30, 0, false, "40:2", "41:x", "40:5") // stops at "x"
	l.task(6, 0, 31, 1, false, "41:3")
	l.job(6, 9, [2]int{7, 1})
	app := l.read(t)
	if len(app.SQL) != 2 {
		t.Fatalf("%d executions", len(app.SQL))
	}
	x := app.SQL[0]
	if !x.Running() || metricOf(t, x, 40).Sum != 2 || metricOf(t, x, 41).Sum != 3 {
		t.Errorf("running execution: %+v", x.Metrics)
	}
	if y := app.SQL[1]; y.ID != 9 || y.Plan != nil || len(y.Jobs) != 1 {
		t.Errorf("execution from a job: %+v", y)
	}
}

// TestSQLListenerMaxTie: equal largest values in two stages are credited
// to the stage Scala's set iterates first.
func TestSQLListenerMaxTie(t *testing.T) {
	var l sqlLog
	appLine(&l)
	l.start(4, 100, planJSON("Sort", "Sort", []string{metricJSON("sort time", 50, "timing")}))
	stages := [][2]int{{1, 1}, {2, 1}, {3, 1}, {4, 1}, {5, 1}}
	l.job(7, 4, stages...)
	for i, s := range stages {
		l.task(s[0], 0, int64(40+i), 0, false, "50:9")
	}
	l.jobEnd(7)
	l.end(4, 500)
	x := l.read(t).SQL[0]
	// Scala 2.12 iterates Set(1, 2, 3, 4, 5) as 5, 1, 2, 3, 4.
	if got := metricOf(t, x, 50); got.MaxStage != 5 || got.N != 5 || got.Sum != 45 {
		t.Errorf("sort time %+v, want the largest credited to stage 5", got)
	}
}

// TestPlanGraphReuse: a reused exchange and a reused subquery are one node
// each with two consumers; InputAdapter and query stages leave no node.
func TestPlanGraphReuse(t *testing.T) {
	exch := planJSON("Exchange", "Exchange hashpartitioning(a#1, 200)", []string{metricJSON("records", 60, "sum")},
		planJSON("Scan", "Scan t", nil))
	sub := planJSON("Subquery", "Subquery subquery#1", nil, planJSON("Scan", "Scan u", nil))
	plan := planJSON("SortMergeJoin", "SortMergeJoin", nil,
		planJSON("ShuffleQueryStage", "ShuffleQueryStage 0", nil, exch),
		planJSON("Filter", "Filter", nil, sub, planJSON("ReusedExchange", "ReusedExchange", nil, exch)),
		planJSON("ReusedSubquery", "ReusedSubquery", nil, sub))
	var l sqlLog
	appLine(&l)
	l.start(5, 100, plan)
	x := l.read(t).SQL[0]
	var names []string
	for _, n := range x.Plan.Nodes {
		names = append(names, n.Name)
	}
	if d := cmp.Diff([]string{"SortMergeJoin", "Exchange", "Scan", "Filter", "Subquery", "Scan"}, names); d != "" {
		t.Errorf("nodes (-want +got):\n%s", d)
	}
	wantEdges := []model.SQLEdge{{From: 1, To: 0}, {From: 2, To: 1}, {From: 3, To: 0}, {From: 4, To: 3}, {From: 5, To: 4}, {From: 1, To: 3}, {From: 4, To: 0}}
	if d := cmp.Diff(wantEdges, x.Plan.Edges); d != "" {
		t.Errorf("edges (-want +got):\n%s", d)
	}
	// And back: the encoder writes reuse as ReusedExchange/ReusedSubquery.
	app := &model.App{ID: "a", Start: 1, SQL: []*model.SQLExecution{x}}
	back, _ := roundTrip(t, app)
	if d := cmp.Diff(x.Plan, back.SQL[0].Plan); d != "" {
		t.Errorf("graph after writing (-want +got):\n%s", d)
	}
}

// FuzzDecodeSQL feeds SQL event logs with arbitrary changes: the decoder
// must never panic, plan edges must name nodes of their graph, and metric
// values must stay sorted by accumulator.
func FuzzDecodeSQL(f *testing.F) {
	var l sqlLog
	appLine(&l)
	l.start(0, 100, planJSON("WholeStageCodegen (1)", "WholeStageCodegen (1)", []string{metricJSON("duration", 9, "timing")},
		planJSON("Filter", "Filter", []string{metricJSON("rows", 10, "sum")},
			planJSON("InputAdapter", "InputAdapter", nil,
				planJSON("Exchange", "Exchange", []string{metricJSON("size", 11, "size"), metricJSON("avg", 12, "average")},
					planJSON("ReusedExchange", "ReusedExchange", nil, planJSON("Exchange", "Exchange", nil)))))))
	l.job(0, 0, [2]int{0, 2})
	l.submit(0, 0, 2)
	l.task(0, 0, 0, 0, false, "10:5", "11:100", "12:7", "9:3")
	l.task(0, 0, 1, 1, true, "10:-1", "11:x")
	l.submit(0, 1, 2)
	l.driver(0, "[11,80],[12,1]")
	l.add("%s", sqlPrefix+`SparkListenerSQLAdaptiveSQLMetricUpdates","executionId":0,"sqlPlanMetrics":[`+metricJSON("extra", 13, "nsTiming")+`]}`)
	l.jobEnd(0)
	l.end(0, 200)
	f.Add([]byte(strings.Join(l.lines, "\n")))
	f.Fuzz(func(t *testing.T, b []byte) {
		app, _ := Read("fuzz", strings.NewReader(string(b)))
		for _, x := range app.SQL {
			for i := 1; i < len(x.Metrics); i++ {
				if x.Metrics[i-1].AccumID >= x.Metrics[i].AccumID {
					t.Fatalf("metrics not sorted: %+v", x.Metrics)
				}
			}
			for _, p := range []*model.SQLPlan{x.Plan, x.InitialPlan} {
				if p == nil {
					continue
				}
				for _, e := range p.Edges {
					if int(e.From) >= len(p.Nodes) || int(e.To) >= len(p.Nodes) || e.From < 0 || e.To < 0 {
						t.Fatalf("edge %v outside %d nodes", e, len(p.Nodes))
					}
				}
			}
		}
	})
}

// TestSQLListenerSuiteOrder ports SQLAppStatusListenerSuite's cases on
// event order and job kinds: "onExecutionEnd happens before
// onJobEnd(JobSucceeded)" and "(JobFailed)" (the execution keeps its job
// and its tasks' metrics, and the job its result), "handle one execution
// with multiple jobs", "SPARK-11126: no memory leak when running non SQL
// jobs" (a job without spark.sql.execution.id makes no execution) and
// "driver side SQL metrics" (a metric only the driver updates).
func TestSQLListenerSuiteOrder(t *testing.T) {
	for _, failed := range []bool{false, true} {
		var l sqlLog
		appLine(&l)
		l.start(0, 100, planJSON("Scan", "Scan", []string{metricJSON("rows", 70, "sum"), metricJSON("driver", 71, "sum")}))
		l.job(0, 0, [2]int{0, 2})
		l.submit(0, 0, 2)
		l.task(0, 0, 0, 0, false, "70:2")
		l.task(0, 0, 1, 1, false, "70:3")
		l.job(1, 0, [2]int{1, 1}) // a second job of the execution
		l.submit(1, 0, 1)
		l.task(1, 0, 2, 0, false, "70:4")
		l.driver(0, "[71,100]")
		l.end(0, 200) // before the jobs end
		result := `{"Result":"JobSucceeded"}`
		if failed {
			result = `{"Result":"JobFailed","Exception":{"Message":"boom"}}`
		}
		for _, j := range []int{0, 1} {
			l.add(`{"Event":"SparkListenerJobEnd","Job ID":%d,"Completion Time":%d,"Job Result":%s}`, j, 300+j, result)
		}
		l.job(2, -1, [2]int{2, 1}) // not SQL
		l.submit(2, 0, 1)
		l.task(2, 0, 3, 0, false, "70:1000")
		l.jobEnd(2)
		app := l.read(t)
		if len(app.SQL) != 1 {
			t.Fatalf("failed=%v: %d executions, want 1 (a non-SQL job makes none)", failed, len(app.SQL))
		}
		x := app.SQL[0]
		if len(x.Jobs) != 2 || x.Jobs[0] != 0 || x.Jobs[1] != 1 || x.End != 200 {
			t.Errorf("failed=%v: jobs %v end %d", failed, x.Jobs, x.End)
		}
		if got := metricOf(t, x, 70); got.Sum != 9 || got.N != 3 {
			t.Errorf("failed=%v: rows %+v, want 2+3+4 over 3 tasks", failed, got)
		}
		if got := metricOf(t, x, 71); got.Sum != 100 || got.N != 1 || got.MaxTask {
			t.Errorf("failed=%v: driver metric %+v", failed, got)
		}
		want := model.JobSucceeded
		if failed {
			want = model.JobFailed
		}
		for _, j := range app.Jobs[:2] {
			if j.Status != want || j.SQLID != 0 {
				t.Errorf("failed=%v: job %d status %v sql %d", failed, j.ID, j.Status, j.SQLID)
			}
		}
		if j := app.Jobs[2]; j.SQLID != -1 {
			t.Errorf("non-SQL job has execution %d", j.SQLID)
		}
	}
}
