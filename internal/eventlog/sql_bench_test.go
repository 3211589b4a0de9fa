package eventlog

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// sqlBenchApp is a SQL application for the decoder benchmark: queries
// executions, each one job of a map and a result stage of tasks tasks,
// each task reporting 38 plan metrics (the real benchmark log's count) of
// a 40-metric plan, as Spark 3.5 logs them.
func sqlBenchApp(queries, tasks int) *model.App {
	app := &model.App{ID: "app-sql-bench", Name: "sql bench", User: "u", Engine: model.Spark, Version: DefaultSparkVersion,
		Start: 1_700_000_000_000, Complete: true, Hosts: []string{""}, Reasons: []model.Reason{{}}}
	for e := 0; e < 8; e++ {
		host := fmt.Sprintf("host-%d", e)
		app.Hosts = append(app.Hosts, host)
		app.Executors = append(app.Executors, &model.Executor{ID: fmt.Sprint(e + 1), Host: host, Cores: 4, Added: app.Start})
	}
	now := app.Start + 1000
	var accum int64 = 100
	stageID := int32(0)
	for q := 0; q < queries; q++ {
		plan := &model.SQLPlan{}
		for n := 0; n < 20; n++ {
			node := model.SQLNode{ID: int32(n), Name: fmt.Sprintf("Operator%d", n), Desc: fmt.Sprintf("Operator%d [a#%d, b#%d]", n, n, n+1), Cluster: -1}
			for k := 0; k < 2; k++ {
				node.Metrics = append(node.Metrics, model.SQLPlanMetric{AccumID: accum, Name: "number of output rows", Type: model.SQLMetricType(1 + (n+k)%4)})
				accum++
			}
			plan.Nodes = append(plan.Nodes, node)
			if n > 0 {
				plan.Edges = append(plan.Edges, model.SQLEdge{From: int32(n), To: int32(n - 1)})
			}
		}
		x := &model.SQLExecution{ID: int64(q), RootID: int64(q), Description: fmt.Sprintf("query %d", q), StreamBatch: -1,
			Start: now, Plan: plan, PlanDescription: model.PackText("== Physical Plan ==")}
		job := &model.Job{ID: int32(q), SQLID: int64(q), Submitted: now + 1, Status: model.JobSucceeded,
			Properties: [][2]string{{"spark.sql.execution.id", fmt.Sprint(q)}}}
		for s := 0; s < 2; s++ {
			st := &model.Stage{ID: stageID, Name: "stage", NumTasks: int32(tasks), JobIDs: []int32{job.ID}, Status: model.StageComplete,
				Submitted: now + 2, TaskSQLUpdates: map[int64][]model.SQLUpdate{}}
			job.StageIDs = append(job.StageIDs, stageID)
			job.StageTasks = append(job.StageTasks, int32(tasks))
			for i := 0; i < tasks; i++ {
				id := int64(stageID)*int64(tasks) + int64(i)
				m := model.TaskMetrics{}
				m[model.ExecutorRunTime], m[model.ExecutorCPUNanos], m[model.ShuffleWriteBytes] = 100+int64(i%50), 90_000_000, 1<<20+int64(i)
				st.AddTask(model.Task{ID: id, Index: int32(i), Launch: now + 3, Finish: now + 103, Executor: uint32(i % 8), Host: uint32(1 + i%8),
					Status: model.TaskSuccess, HasMetrics: true, Locality: model.NodeLocal}, &m)
				ups := make([]model.SQLUpdate, 0, 38)
				for k := 0; k < 38; k++ {
					ups = append(ups, model.SQLUpdate{AccumID: x.Plan.Nodes[k/2].Metrics[k%2].AccumID, Value: int64(i*k%1000 + 1)})
				}
				st.TaskSQLUpdates[id] = ups
			}
			st.Completed = now + 104
			app.Stages = append(app.Stages, st)
			stageID++
		}
		job.ResultStage = stageID - 1
		job.Name = "stage"
		now += 200
		job.Completed, x.End = now, now+1
		x.Jobs = []int32{job.ID}
		app.Jobs = append(app.Jobs, job)
		app.SQL = append(app.SQL, x)
		now += 10
	}
	app.End = now + 10
	return app
}

// sqlBenchLog writes the SQL benchmark log once to the temp dir.
func sqlBenchLog(tb testing.TB) string {
	path := filepath.Join(os.TempDir(), "clusterlens-bench-sql-v1.log")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	f, err := os.Create(path + ".tmp")
	if err != nil {
		tb.Fatal(err)
	}
	if err := Write(f, sqlBenchApp(50, 1000)); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		tb.Fatal(err)
	}
	return path
}

// BenchmarkDecodeSQL decodes a 100,000-task SQL application whose every
// task end carries 38 SQL metric updates the plans declare: what tracking
// the SQL metrics costs over BenchmarkDecode's mostly untracked lines.
func BenchmarkDecodeSQL(b *testing.B) {
	app := benchDecode(b, sqlBenchLog(b), nil)
	if len(app.SQL) != 50 || len(app.SQL[0].Metrics) != 38 {
		b.Fatalf("%d executions, %d metrics in the first", len(app.SQL), len(app.SQL[0].Metrics))
	}
}
