package sim

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
)

// SQL problems: the plan a query runs is one Spark would choose badly.
// They apply to applications with SQL set, on the query (job) holding the
// problem's stage.
const (
	// ProblemSQLShouldBroadcast joins a small table (1-8 MB) by
	// sort-merge, shuffling the large side too.
	ProblemSQLShouldBroadcast = "sql-should-broadcast"
	// ProblemSQLBroadcastLarge broadcasts a 1-4 GB table.
	ProblemSQLBroadcastLarge = "sql-broadcast-large"
	// ProblemSQLFullScan reads every partition of a partitioned table and
	// keeps 1-4% of its rows with a filter no partition filter pruned.
	ProblemSQLFullScan = "sql-full-scan"
	// ProblemSQLCartesian joins without a key (CartesianProduct).
	ProblemSQLCartesian = "sql-cartesian"
	// ProblemSQLSmallFiles reads its input from files of 64-256 KB.
	ProblemSQLSmallFiles = "sql-small-files"
)

// sqlQueries makes every job of a SQL application a query: a
// SparkListenerSQLExecutionStart/End around it, a physical plan over its
// stages (a scan; an aggregate over an exchange, or for sort classes a
// join), the metrics its operators report per task as Spark logs them
// (Stage.TaskSQLUpdates) and the driver's (file listing, broadcasts).
// Metric values follow the tasks' own metrics (records, bytes, times), so
// that a skewed or slow stage shows in its operators as Spark shows it. It
// runs after the application ended, from a random stream of its own, so
// that making an application SQL changes none of its task times.
func sqlQueries(a *appRun, probs []ProblemSpec) {
	app := a.app
	h := fnv.New64a()
	h.Write([]byte(app.ID))
	// The end time varies with the seed's task times.
	q := sqlBuilder{app: app, rng: rand.New(rand.NewPCG(h.Sum64(), uint64(app.End))), accum: 10_000}
	stageOf := map[int32]*model.Stage{}
	for _, st := range app.Stages {
		if st.Attempt == 0 {
			stageOf[st.ID] = st
		}
	}
	planIndex := map[int32]int{} // model stage id -> plan index
	for pi, sr := range a.stages {
		if sr != nil && sr.m != nil {
			planIndex[sr.m.ID] = pi
		}
	}
	for qi, job := range app.Jobs {
		kind := ""
		for _, p := range probs {
			for _, sid := range job.StageIDs {
				if pi, ok := planIndex[sid]; ok && pi == a.plan.problemStage(p.Stage) {
					kind = p.Kind
				}
			}
		}
		var stages []*model.Stage
		for _, sid := range job.StageIDs {
			if st := stageOf[sid]; st != nil {
				stages = append(stages, st)
			}
		}
		x := q.query(int64(qi), job, stages, kind, a.plan.spec.Class == "sort" || a.plan.spec.Class == "terasort")
		job.SQLID = x.ID
		job.Properties = append(job.Properties, [2]string{"spark.sql.execution.id", strconv.FormatInt(x.ID, 10)})
		app.SQL = append(app.SQL, x)
	}
}

// sqlBuilder lays out one application's queries.
type sqlBuilder struct {
	app   *model.App
	rng   *rand.Rand
	accum int64
	plan  *model.SQLPlan
	x     *model.SQLExecution
}

// node adds an operator (inside codegen cluster c, -1 for none) with its
// metrics, and an edge to parent (-1 for the root); it returns the node id
// and the metrics' accumulator ids by name.
func (q *sqlBuilder) node(name, desc string, c, parent int32, metrics ...string) (int32, map[string]int64) {
	id := int32(len(q.plan.Nodes))
	n := model.SQLNode{ID: id, Name: name, Desc: desc, Cluster: c}
	ids := map[string]int64{}
	for i := 0; i+1 < len(metrics); i += 2 {
		q.accum++
		n.Metrics = append(n.Metrics, model.SQLPlanMetric{AccumID: q.accum, Name: metrics[i], Type: model.ParseSQLMetricType(metrics[i+1])})
		ids[metrics[i]] = q.accum
	}
	q.plan.Nodes = append(q.plan.Nodes, n)
	if parent >= 0 {
		q.plan.Edges = append(q.plan.Edges, model.SQLEdge{From: id, To: parent})
	}
	return id, ids
}

// cluster adds a WholeStageCodegen node.
func (q *sqlBuilder) cluster(n int) (int32, int64) {
	id, m := q.node(fmt.Sprintf("WholeStageCodegen (%d)", n), fmt.Sprintf("WholeStageCodegen (%d)", n), -1, -1, "duration", "timing")
	q.plan.Nodes[id].IsCluster = true
	return id, m["duration"]
}

// task records a task's SQL update.
func (q *sqlBuilder) task(st *model.Stage, t *model.Task, id, v int64) {
	if st.TaskSQLUpdates == nil {
		st.TaskSQLUpdates = map[int64][]model.SQLUpdate{}
	}
	st.TaskSQLUpdates[t.ID] = append(st.TaskSQLUpdates[t.ID], model.SQLUpdate{AccumID: id, Value: v})
}

func (q *sqlBuilder) driver(id, v int64) {
	q.x.DriverUpdates = append(q.x.DriverUpdates, model.SQLUpdate{AccumID: id, Value: v})
}

// eachTask calls f for every finished task attempt of st with its metrics.
func eachTask(st *model.Stage, f func(t *model.Task, m *model.TaskMetrics)) {
	var m model.TaskMetrics
	for i := range st.Tasks {
		t := &st.Tasks[i]
		if t.Status == model.TaskRunning || !t.HasMetrics {
			continue
		}
		st.TaskMetrics(i, &m)
		f(t, &m)
	}
}

// query builds the execution of one job.
func (q *sqlBuilder) query(id int64, job *model.Job, stages []*model.Stage, kind string, joinClass bool) *model.SQLExecution {
	q.plan = &model.SQLPlan{}
	end := job.Completed
	if end == 0 {
		end = q.app.End
	}
	q.x = &model.SQLExecution{ID: id, RootID: id, StreamBatch: -1, Start: job.Submitted - 3, End: end + 2, HasError: true,
		Jobs: []int32{job.ID}, Plan: q.plan}
	if job.Status == model.JobFailed {
		q.x.Error = job.Failure
	}
	if len(stages) == 0 {
		return q.x
	}
	mapStage, last := stages[0], stages[len(stages)-1]
	join := kind == ProblemSQLShouldBroadcast || kind == ProblemSQLBroadcastLarge || kind == ProblemSQLCartesian ||
		joinClass && len(stages) > 1
	table := "db.events"
	switch {
	case len(stages) == 1:
		root, _ := q.node("Execute InsertIntoHadoopFsRelationCommand", "Execute InsertIntoHadoopFsRelationCommand parquet", -1, -1,
			"number of written files", "sum", "written output", "size")
		q.x.Description = fmt.Sprintf("INSERT INTO db.out_%d SELECT * FROM %s WHERE ok", id, table)
		q.scanSide(mapStage, root, -1, table, kind, nil)
	case join:
		q.x.Description = fmt.Sprintf("SELECT f.k, d.name FROM db.facts f JOIN db.dims d ON f.k = d.k -- query %d", id)
		q.join(mapStage, last, kind)
	default:
		q.x.Description = fmt.Sprintf("SELECT k, count(*) FROM %s WHERE ok GROUP BY k -- query %d", table, id)
		c2, dur2 := q.cluster(2)
		agg, am := q.node("HashAggregate", "HashAggregate(keys=[k#1], functions=[count(1)])", c2, -1,
			"number of output rows", "sum", "peak memory", "size", "spill size", "size", "time in aggregation build", "timing")
		ex := q.exchange(mapStage, last, agg, "Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS", 1)
		q.reduceSide(last, dur2, am, 0.2)
		if kind == ProblemSQLNoPartialAgg { // every row read is shuffled (regression.go)
			q.scanSide(mapStage, ex, -1, table, "", nil)
			break
		}
		c1, dur1 := q.cluster(1)
		pagg, pm := q.node("HashAggregate", "HashAggregate(keys=[k#1], functions=[partial_count(1)])", c1, ex,
			"number of output rows", "sum", "peak memory", "size", "spill size", "size", "time in aggregation build", "timing")
		q.scanSide(mapStage, pagg, c1, table, kind, func(t *model.Task, m *model.TaskMetrics) {
			q.task(mapStage, t, pm["number of output rows"], m[model.ShuffleWriteRecords])
			q.task(mapStage, t, pm["time in aggregation build"], m[model.ExecutorRunTime]/5)
			q.task(mapStage, t, pm["peak memory"], 64<<20)
			q.task(mapStage, t, dur1, m[model.ExecutorRunTime]*9/10)
		})
	}
	q.x.PlanDescription = model.PackText(planText(q.plan))
	return q.x
}

// scanSide adds a filter over a file scan under parent reading st's
// input; the filter is fused into codegen cluster c, or a new one when c
// is -1; each, when set, adds the stage's other per-task updates.
func (q *sqlBuilder) scanSide(st *model.Stage, parent, c int32, table, kind string, each func(t *model.Task, m *model.TaskMetrics)) {
	if c < 0 {
		n := 1
		for _, x := range q.plan.Nodes {
			if x.IsCluster {
				n++
			}
		}
		c, _ = q.cluster(n)
	}
	keep := 0.3 + 0.6*q.rng.Float64()
	partFilter := "[isnotnull(dt#2), (dt#2 = 2026-11-01)]"
	parts := int64(1 + q.rng.IntN(3))
	if kind == ProblemSQLFullScan {
		keep, partFilter, parts = 0.01+0.03*q.rng.Float64(), "[]", 200+int64(q.rng.IntN(600))
	}
	filter, fm := q.node("Filter", "Filter (isnotnull(ok#3) AND ok#3)", c, parent, "number of output rows", "sum")
	_, sm := q.node("Scan parquet "+table, fmt.Sprintf("FileScan parquet %s[k#1,ok#3,dt#2] Batched: true, DataFilters: [isnotnull(ok#3), ok#3], "+
		"Format: Parquet, PartitionFilters: %s, PushedFilters: [IsNotNull(ok), EqualTo(ok,true)], ReadSchema: struct<k:bigint,ok:boolean>", table, partFilter),
		-1, filter, "number of output rows", "sum", "number of files read", "sum", "size of files read", "size",
		"metadata time", "timing", "number of partitions read", "sum", "scan time", "timing")
	var bytes, tasks int64
	eachTask(st, func(t *model.Task, m *model.TaskMetrics) {
		rows := m[model.InputRecords]
		q.task(st, t, sm["number of output rows"], rows)
		q.task(st, t, sm["scan time"], m[model.ExecutorRunTime]*3/10)
		q.task(st, t, fm["number of output rows"], int64(float64(rows)*keep))
		bytes += m[model.InputBytes]
		tasks++
		if each != nil {
			each(t, m)
		}
	})
	fileSize := int64(96<<20) + q.rng.Int64N(64<<20)
	if kind == ProblemSQLSmallFiles {
		fileSize = int64(64<<10) + q.rng.Int64N(192<<10)
	}
	q.driver(sm["number of files read"], max(tasks, bytes/fileSize))
	q.driver(sm["size of files read"], bytes)
	q.driver(sm["metadata time"], 20+q.rng.Int64N(200))
	q.driver(sm["number of partitions read"], parts)
}

// exchange adds a shuffle exchange under parent, written by mapSt's tasks
// and read by readSt's; share scales the map side's records and bytes (a
// join's two sides share one simulated map stage).
func (q *sqlBuilder) exchange(mapSt, readSt *model.Stage, parent int32, desc string, share float64) int32 {
	ex, em := q.node("Exchange", desc, -1, parent,
		"shuffle records written", "sum", "shuffle write time", "nsTiming", "records read", "sum", "local bytes read", "size",
		"fetch wait time", "timing", "remote bytes read", "size", "data size", "size", "shuffle bytes written", "size")
	scale := func(v int64) int64 { return int64(float64(v) * share) }
	eachTask(mapSt, func(t *model.Task, m *model.TaskMetrics) {
		q.task(mapSt, t, em["shuffle records written"], scale(m[model.ShuffleWriteRecords]))
		q.task(mapSt, t, em["shuffle write time"], scale(m[model.ShuffleWriteNanos]))
		q.task(mapSt, t, em["shuffle bytes written"], scale(m[model.ShuffleWriteBytes]))
		q.task(mapSt, t, em["data size"], scale(m[model.ShuffleWriteBytes]*6/5))
	})
	eachTask(readSt, func(t *model.Task, m *model.TaskMetrics) {
		q.task(readSt, t, em["records read"], scale(m[model.ShuffleRecordsRead]))
		q.task(readSt, t, em["local bytes read"], scale(m[model.ShuffleLocalBytesRead]))
		q.task(readSt, t, em["remote bytes read"], scale(m[model.ShuffleRemoteBytesRead]))
		q.task(readSt, t, em["fetch wait time"], m[model.ShuffleFetchWaitTime])
	})
	return ex
}

// reduceSide reports the reducing operator's per-task metrics.
func (q *sqlBuilder) reduceSide(st *model.Stage, dur int64, om map[string]int64, outShare float64) {
	eachTask(st, func(t *model.Task, m *model.TaskMetrics) {
		q.task(st, t, dur, m[model.ExecutorRunTime]*9/10)
		q.task(st, t, om["number of output rows"], int64(float64(m[model.ShuffleRecordsRead])*outShare))
		if id, ok := om["spill size"]; ok {
			q.task(st, t, id, m[model.DiskBytesSpilled])
		}
		if id, ok := om["peak memory"]; ok {
			q.task(st, t, id, 128<<20)
		}
		if id, ok := om["time in aggregation build"]; ok {
			q.task(st, t, id, m[model.ExecutorRunTime]/4)
		}
	})
}

// join lays out a join of a large fact table and a dimension table: a
// sort-merge join when the dimension table is large, a broadcast hash
// join when it is small, as Spark's planner chooses them, unless the
// query's problem says otherwise.
func (q *sqlBuilder) join(mapSt, readSt *model.Stage, kind string) {
	var factBytes int64
	eachTask(mapSt, func(_ *model.Task, m *model.TaskMetrics) { factBytes += m[model.ShuffleWriteBytes] })
	dimShare := 0.3 + 0.5*q.rng.Float64()
	broadcast := q.rng.IntN(2) == 0
	bcastBytes := int64(1<<20) + q.rng.Int64N(7<<20)
	switch kind {
	case ProblemSQLShouldBroadcast:
		broadcast, dimShare = false, float64(int64(1<<20)+q.rng.Int64N(7<<20))/float64(max(factBytes, 1))
	case ProblemSQLBroadcastLarge:
		broadcast, bcastBytes = true, int64(1<<30)+q.rng.Int64N(3<<30)
	}
	c3, dur3 := q.cluster(3)
	q.node("Project", "Project [k#1, name#9]", c3, -1)
	switch {
	case kind == ProblemSQLCartesian:
		j, jm := q.node("CartesianProduct", "CartesianProduct", -1, 1, "number of output rows", "sum")
		q.reduceSide(readSt, dur3, jm, 40)
		q.scanSide(mapSt, j, -1, "db.facts", kind, nil)
		q.scanSide(mapSt, j, -1, "db.dims", "", nil)
	case broadcast:
		j, jm := q.node("BroadcastHashJoin", "BroadcastHashJoin [k#1], [k#8], Inner, BuildRight, false", c3, 1, "number of output rows", "sum")
		q.reduceSide(readSt, dur3, jm, 0.9)
		ex := q.exchange(mapSt, readSt, j, "Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS", 1)
		q.scanSide(mapSt, ex, -1, "db.facts", kind, nil)
		b, bm := q.node("BroadcastExchange", "BroadcastExchange HashedRelationBroadcastMode(List(input[0, bigint, false]),false)", -1, j,
			"data size", "size", "number of output rows", "sum", "time to collect", "timing", "time to build", "timing", "time to broadcast", "timing")
		q.driver(bm["data size"], bcastBytes)
		q.driver(bm["number of output rows"], bcastBytes/64)
		q.driver(bm["time to collect"], bcastBytes/(50<<20)*1000+50)
		q.driver(bm["time to build"], bcastBytes/(200<<20)*1000+10)
		q.driver(bm["time to broadcast"], bcastBytes/(100<<20)*1000+20)
		c2, _ := q.cluster(2)
		f, fm := q.node("Filter", "Filter isnotnull(k#8)", c2, b, "number of output rows", "sum")
		_, sm := q.node("Scan parquet db.dims", "FileScan parquet db.dims[k#8,name#9] PartitionFilters: [], PushedFilters: [IsNotNull(k)]", -1, f,
			"number of output rows", "sum", "number of files read", "sum", "size of files read", "size")
		q.driver(fm["number of output rows"], bcastBytes/64)
		q.driver(sm["number of output rows"], bcastBytes/64)
		q.driver(sm["number of files read"], 1+bcastBytes/(128<<20))
		q.driver(sm["size of files read"], bcastBytes/3)
	default:
		j, jm := q.node("SortMergeJoin", "SortMergeJoin [k#1], [k#8], Inner", c3, 1, "number of output rows", "sum", "spill size", "size")
		q.reduceSide(readSt, dur3, jm, 0.9)
		for side, share := range []float64{1, dimShare} {
			srt, so := q.node("Sort", "Sort [k#1 ASC NULLS FIRST], false, 0", c3, j, "sort time", "timing", "peak memory", "size", "spill size", "size")
			eachTask(readSt, func(t *model.Task, m *model.TaskMetrics) {
				q.task(readSt, t, so["sort time"], int64(float64(m[model.ExecutorRunTime])*share/3))
				q.task(readSt, t, so["spill size"], int64(float64(m[model.DiskBytesSpilled])*share))
			})
			ex := q.exchange(mapSt, readSt, srt, "Exchange hashpartitioning(k#1, 200), ENSURE_REQUIREMENTS", share)
			q.scanSide(mapSt, ex, -1, []string{"db.facts", "db.dims"}[side], []string{kind, ""}[side], nil)
		}
	}
}

// planText writes a plan's formatted description as Spark's "formatted"
// explain mode lays it out: the tree, then each operator's details.
func planText(p *model.SQLPlan) string {
	b := []byte("== Physical Plan ==\n")
	for _, n := range p.Nodes {
		b = fmt.Appendf(b, "%s (%d)\n", n.Name, n.ID+1)
	}
	b = append(b, '\n')
	for _, n := range p.Nodes {
		b = fmt.Appendf(b, "(%d) %s\n%s\n\n", n.ID+1, n.Name, n.Desc)
	}
	return string(b)
}

// appProblems are the scenario's problems on application a.
func (e *engine) appProblems(a *appRun) []ProblemSpec {
	var out []ProblemSpec
	for _, p := range e.sc.Problems {
		if p.App == a.plan.index {
			out = append(out, p)
		}
	}
	return out
}
