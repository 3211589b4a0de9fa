package query_test

import (
	"bytes"
	"testing"

	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/query"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// sqlApp simulates a scenario and reads its application idx back from the
// event log the simulator writes.
func sqlApp(t *testing.T, scenario string, seed uint64, idx int) *model.App {
	t.Helper()
	sc, err := sim.Named(scenario)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := eventlog.Write(&buf, res.Apps[idx]); err != nil {
		t.Fatal(err)
	}
	app, err := eventlog.Read("sim", &buf)
	if err != nil {
		t.Fatal(err)
	}
	return app
}

func op(q query.Query, name string) query.Operator {
	for _, o := range q.Operators {
		if o.Name == name {
			return o
		}
	}
	return query.Operator{ID: -1}
}

// TestAnalyze checks a simulated join application's queries against what
// the simulator did: one query per job, its stages and tasks' time, rows
// flowing from the scan through the filter, and the skewed join stage.
func TestAnalyze(t *testing.T) {
	app := sqlApp(t, "sql-skew", 3, 0)
	qs := query.Analyze(app)
	if len(qs) != len(app.Jobs) {
		t.Fatalf("%d queries for %d jobs", len(qs), len(app.Jobs))
	}
	var taskMs int64
	for _, st := range app.Stages {
		for i := range st.Tasks {
			taskMs += st.Tasks[i].Duration()
		}
	}
	var sum int64
	for _, q := range qs {
		sum += q.TaskMs
		if q.Status != "completed" || q.WallMs <= 0 || q.Share <= 0 || q.Share > 1 || q.Slots != 24 {
			t.Errorf("query %d: %+v", q.ID, q)
		}
	}
	if sum != taskMs {
		t.Errorf("queries' task time %d, the stages' %d", sum, taskMs)
	}
	join := qs[1]
	scan, filter := op(join, "Scan parquet db.facts"), op(join, "Filter")
	if scan.RowsOut == 0 || filter.RowsIn != scan.RowsOut || filter.RowsOut >= scan.RowsOut {
		t.Errorf("scan %d rows out, filter %d in and %d out", scan.RowsOut, filter.RowsIn, filter.RowsOut)
	}
	var j query.Operator
	for _, o := range join.Operators {
		if o.Kind == "join" {
			j = o
		}
	}
	ex := op(join, "Exchange")
	if j.Stage < 0 || ex.Skew < 5 || ex.Bytes == 0 {
		t.Errorf("join stage %d, exchange skew %.1f bytes %d", j.Stage, ex.Skew, ex.Bytes)
	}
}

// TestCompare compares a join query with the same query planned as a
// sort-merge join of a small table: the plan changes are named, the
// operators paired by name, and a session setting's change listed.
func TestCompare(t *testing.T) {
	// A seed whose clean run broadcasts the small table.
	var a, b *model.App
	var qa query.Query
	for seed := uint64(1); seed < 20 && a == nil; seed++ {
		if c := sqlApp(t, "sql-clean", seed, 1); op(query.Analyze(c)[1], "BroadcastHashJoin").ID >= 0 {
			a, b = c, sqlApp(t, "sql-should-broadcast", seed, 1)
			qa = query.Analyze(a)[1]
		}
	}
	if a == nil {
		t.Fatal("no seed broadcasts")
	}
	qb := query.Analyze(b)[1]
	qb.Configs = [][2]string{{"spark.sql.autoBroadcastJoinThreshold", "-1"}}
	m, ok := query.Match(qa, query.Analyze(b))
	if !ok || m.ID != qa.ID {
		t.Fatalf("no match for query %d", qa.ID)
	}
	d := query.Compare(a, qa, b, qb)
	if d.SamePlan || len(d.PlanChanges) == 0 {
		t.Errorf("plans compared equal: %+v", d.PlanChanges)
	}
	if len(d.Configs) != 1 || d.Configs[0].Key != "spark.sql.autoBroadcastJoinThreshold" || d.Configs[0].Val[1] != "-1" {
		t.Errorf("configs %+v", d.Configs)
	}
	paired := 0
	for _, o := range d.Operators {
		if o.ID[0] >= 0 && o.ID[1] >= 0 {
			paired++
		}
	}
	if paired == 0 || paired == len(d.Operators) {
		t.Errorf("%d of %d operators paired", paired, len(d.Operators))
	}
	same := query.Compare(a, qa, a, qa)
	if !same.SamePlan || len(same.PlanChanges) != 0 || len(same.Configs) != 0 {
		t.Errorf("a query compared with itself: %+v", same)
	}
}

// TestNormalize maps Photon's and the RAPIDS accelerator's operators to
// Spark's, and classifies operators.
func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{"PhotonGroupingAgg": "HashAggregate", "PhotonShuffleExchangeSink": "Exchange",
		"PhotonScan parquet db.t": "Scan parquet db.t", "GpuHashAggregate": "HashAggregate", "Filter": "Filter", " Scan csv ": "Scan csv"} {
		if got := query.Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	for name, kind := range map[string]string{"Scan parquet db.t": "scan", "SortMergeJoin": "join", "BroadcastExchange": "broadcast",
		"Exchange": "exchange", "HashAggregate": "aggregate", "CartesianProduct": "join", "Execute InsertIntoHadoopFsRelationCommand": "write"} {
		if got := query.Kind(name); got != kind {
			t.Errorf("Kind(%q) = %q, want %q", name, got, kind)
		}
	}
}

// TestPairs pairs the k-th run of a description with the k-th, and
// queries without description by id.
func TestPairs(t *testing.T) {
	as := []query.Query{{ID: 0, Description: "count"}, {ID: 1, Description: "count"}, {ID: 2}, {ID: 3, Description: "only in a"}}
	bs := []query.Query{{ID: 5, Description: "count"}, {ID: 2}, {ID: 7, Description: "count"}, {ID: 8, Description: "count"}}
	got := query.Pairs(as, bs)
	want := [][2]int{{0, 0}, {1, 2}, {2, 1}}
	if len(got) != len(want) {
		t.Fatalf("pairs %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pairs %v, want %v", got, want)
		}
	}
}

// TestOnlyAnnouncedExecutions: a job naming an execution id the log never
// started (Spark 1.x logs, a log cut short) is no query: the Spark
// 1.6 log showed "query 0 running 0ms, cores used 0% of 201".
func TestOnlyAnnouncedExecutions(t *testing.T) {
	app := &model.App{ID: "a", Engine: model.Spark, Start: 1, End: 100,
		SQL:  []*model.SQLExecution{{ID: 0, RootID: 0, StreamBatch: -1, Jobs: []int32{0}}},
		Jobs: []*model.Job{{ID: 0, SQLID: 0, Submitted: 10, Completed: 20}}}
	if qs := query.Analyze(app); len(qs) != 0 {
		t.Errorf("queries from a job's execution id alone: %+v", qs)
	}
	app.SQL[0].Start = 10
	if qs := query.Analyze(app); len(qs) != 1 {
		t.Errorf("an announced execution: %d queries", len(qs))
	}
}

// TestCommand: a statement that ran no job and whose plan is one command
// is that command; a query that ran a job, or a plan of more, is none.
func TestCommand(t *testing.T) {
	for _, c := range []struct {
		q    query.Query
		want string
	}{
		{query.Query{Operators: []query.Operator{{Name: "Execute CreateViewCommand"}}}, "CreateViewCommand"},
		{query.Query{Operators: []query.Operator{{Name: "SetCommand"}}}, "SetCommand"},
		{query.Query{Jobs: []int32{3}, Operators: []query.Operator{{Name: "Execute InsertIntoHadoopFsRelationCommand"}}}, ""},
		{query.Query{Operators: []query.Operator{{Name: "LocalTableScan"}}}, ""},
		{query.Query{Operators: []query.Operator{{Name: "Execute CreateViewCommand"}, {Name: "Project"}}}, ""},
	} {
		if got := c.q.Command(); got != c.want {
			t.Errorf("%+v: Command() = %q, want %q", c.q, got, c.want)
		}
	}
}
