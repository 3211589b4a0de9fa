package eventlog

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// genReasons are failure reasons in the wording the reader renders.
var genReasons = []model.Reason{
	{Kind: "ExceptionFailure", Message: "java.lang.RuntimeException: boom \"quoted\"\n        at a.B.c(B.java:12)"},
	{Kind: "TaskKilled", Message: "another attempt succeeded"},
	{Kind: "ExecutorLostFailure", Message: "ExecutorLostFailure (executor 2 exited caused by one of the running tasks) Reason: Container killed by YARN"},
	{Kind: "ExecutorLostFailure", Message: "ExecutorLostFailure (executor 3 exited unrelated to the running tasks)"},
	{Kind: "FetchFailed", Message: "FetchFailed(BlockManagerId(1, host-1, 7337, None), shuffleId=0, mapIndex=3, mapId=5, reduceId=2, message=\norg.apache.spark.shuffle.FetchFailedException: gone\n)"},
	{Kind: "FetchFailed", Message: "FetchFailed(null, shuffleId=1, mapIndex=Unknown, mapId=-1, reduceId=0, message=\nlost\n)"},
	{Kind: "TaskCommitDenied", Message: "TaskCommitDenied (Driver denied task commit) for job: 1, partition: 2, attemptNumber: 3"},
	{Kind: "TaskResultLost", Message: "TaskResultLost (result lost from block manager)"},
	{Kind: "UnknownReason", Message: "UnknownReason"},
}

// genApp makes a consistent Spark application: jobs of a few stages run one
// after the other, tasks on executors in time order, some failing. With
// rich, it also draws the rarer shapes: stage retries, skipped stages,
// failed jobs, SQL executions, miscellaneous processes, exclusions, and an
// application still running (running tasks, an active stage and job).
func genApp(r *rand.Rand, jobs, stagesPerJob, tasksPerStage, executors int, rich bool) *model.App {
	chance := func(n int) bool { return rich && r.IntN(n) == 0 }
	start := int64(1_700_000_000_000) + r.Int64N(1000)
	app := &model.App{
		ID: "app-" + strconv.Itoa(r.IntN(1e6)), Name: "gen ünïcode\t\"app\"", User: "u", Engine: model.Spark,
		Version: "3.5.1", Start: start, Complete: true,
		Env: model.Environment{Seen: true, Spark: [][2]string{{"spark.app.name", "gen"}, {"spark.executor.cores", "4"}},
			JVM: [][2]string{{"Java Version", "17"}}},
		ResourceProfiles: []model.ResourceProfile{defaultProfile},
		Hosts:            []string{""},
		Reasons:          []model.Reason{{}},
	}
	if chance(2) {
		app.AttemptID = "1"
		app.DriverLogs = [][2]string{{"stdout", "http://driver/stdout"}}
	}
	running := chance(4)
	reasonIdx := map[model.Reason]uint32{}
	driver := &model.Executor{ID: "driver", Host: "driver-host", HostPort: "driver-host:40000",
		BlockManagerSeen: true, BlockManagerAdded: start + 1, MaxMemory: 1 << 30, MaxOnHeapMemory: 1 << 30}
	app.Executors = append(app.Executors, driver)
	for i := 1; i <= executors; i++ {
		h := "host-" + strconv.Itoa(i%7)
		x := &model.Executor{ID: strconv.Itoa(i), Host: h,
			HostPort: h + ":" + strconv.Itoa(30000+i), Cores: 4, Added: start + 10 + int64(i),
			LogURLs: [][2]string{{"stdout", "http://" + h + "/stdout"}}, Attributes: [][2]string{},
			BlockManagerSeen: true, MaxMemory: 2 << 30, MaxOnHeapMemory: 2 << 30, MaxOffHeapMemory: 0}
		if chance(3) {
			x.Resources = []model.ExecutorResource{{Name: "gpu", Addresses: []string{"0", "1"}}}
		}
		app.Executors = append(app.Executors, x)
	}
	if chance(3) {
		app.Processes = []*model.Process{{ID: "plugin-1", Host: "host-1:1234", Cores: 2, Time: start + 5,
			LogURLs: [][2]string{{"stdout", "http://host-1/plugin"}}}}
	}
	hostIDs := map[string]uint32{}
	now := start + 100
	taskID := int64(0)
	stageID := int32(0)
	addReason := func(rs model.Reason) uint32 {
		id, ok := reasonIdx[rs]
		if !ok {
			id = uint32(len(app.Reasons))
			reasonIdx[rs] = id
			app.Reasons = append(app.Reasons, rs)
		}
		return id
	}
	// runStage runs the tasks of one stage attempt from now; with live, the
	// last tasks are still running.
	runStage := func(st *model.Stage, n int, live, fail bool) {
		end := now
		for k := 0; k < n; k++ {
			x := 1 + r.IntN(executors)
			ex := app.Executors[x]
			hid, ok := hostIDs[ex.Host]
			if !ok {
				hid = uint32(len(app.Hosts))
				hostIDs[ex.Host] = hid
				app.Hosts = append(app.Hosts, ex.Host)
			}
			launch := now + int64(k/8)
			t := model.Task{ID: taskID, Launch: launch, Finish: launch + 1 + r.Int64N(500), Index: int32(k), Partition: int32(k),
				Attempt: st.Attempt, Executor: uint32(x), Host: hid, Status: model.TaskSuccess,
				Locality: model.Locality(1 + r.IntN(5)), Speculative: r.IntN(20) == 0, HasMetrics: true}
			taskID++
			var m model.TaskMetrics
			if live && k >= n/2 {
				t.Finish, t.Status, t.HasMetrics = 0, model.TaskRunning, false
				st.AddTask(t, &m)
				continue
			}
			if r.IntN(10) == 0 || fail && k == 0 {
				t.Reason, t.Status = addReason(genReasons[r.IntN(len(genReasons))]), model.TaskFailed
				if app.Reasons[t.Reason].Kind == "TaskKilled" {
					t.Status = model.TaskKilled
				}
			}
			if r.IntN(5) == 0 {
				t.GettingResult = t.Finish - 1
			}
			for mi := model.ExecutorDeserializeTime; mi <= model.ShuffleWriteRecords; mi++ {
				if r.IntN(3) == 0 {
					m[mi] = r.Int64N(1 << 40)
				}
			}
			st.AddTask(t, &m)
			if r.IntN(8) == 0 {
				if st.TaskAccumulables == nil {
					st.TaskAccumulables = map[int64][]model.Accumulable{}
				}
				st.TaskAccumulables[t.ID] = []model.Accumulable{{ID: 500, Name: "records", Update: "3", Value: "7"}}
			}
			end = max(end, t.Finish)
			if r.IntN(3) == 0 {
				p := &model.ExecutorMetrics{Set: true}
				for i := range p.Values {
					p.Values[i] = r.Int64N(1 << 30)
				}
				if st.ExecutorPeaks == nil {
					st.ExecutorPeaks = map[uint32]*model.ExecutorMetrics{}
				}
				if old := st.ExecutorPeaks[uint32(x)]; old != nil {
					old.Peak(p)
				} else {
					st.ExecutorPeaks[uint32(x)] = p
				}
			}
		}
		for x, p := range st.ExecutorPeaks {
			st.PeakExecutor.Peak(p)
			app.Executors[x].Peak.Peak(p)
		}
		if r.IntN(4) == 0 && !live { // known from the stage's completion
			st.Accumulables = []model.Accumulable{{ID: 9000 + int64(st.ID), Name: "my counter", Value: strconv.Itoa(r.IntN(100))}}
		}
		if live {
			st.Status = model.StageActive
		} else {
			st.Completed = end + 1
			now = st.Completed
		}
	}
	for j := 0; j < jobs; j++ {
		last := j == jobs-1
		job := &model.Job{ID: int32(j), SQLID: -1, Submitted: now, Status: model.JobSucceeded,
			Properties:  [][2]string{{"spark.job.description", "job " + strconv.Itoa(j)}, {"spark.rdd.scope", `{"id":"1"}`}},
			Description: "job " + strconv.Itoa(j)}
		if chance(2) {
			x := &model.SQLExecution{ID: int64(j), RootID: int64(j), Description: "query " + strconv.Itoa(j),
				Details: model.PackText("plan"), Start: now - 1, Jobs: []int32{job.ID}, StreamBatch: -1,
				Plan: genPlan(int64(j) * 100), PlanDescription: model.PackText("== Physical Plan ==\n* HashAggregate (3)")}
			if chance(3) {
				x.InitialPlan, x.Plan = x.Plan, genPlan(int64(j)*100+50)
			}
			app.SQL = append(app.SQL, x)
			job.SQLID = x.ID
			job.Properties = append(job.Properties, [2]string{"spark.sql.execution.id", strconv.Itoa(j)})
		}
		app.Jobs = append(app.Jobs, job)
		// The job's stages are all created at its start, in id order, a
		// skipped one first; retries are created when submitted.
		var stages []*model.Stage
		if chance(3) {
			sk := &model.Stage{ID: stageID, Name: "skipped " + strconv.Itoa(int(stageID)), NumTasks: int32(tasksPerStage),
				ParentIDs: []int32{}, RDDIDs: []int32{stageID * 2}, JobIDs: []int32{job.ID}, Status: model.StageSkipped}
			stageID++
			stages = append(stages, sk)
			if last && running {
				sk.Status = model.StagePending
			}
		}
		for s := 0; s < stagesPerJob; s++ {
			st := &model.Stage{ID: stageID, Name: "stage " + strconv.Itoa(int(stageID)), Details: "at Gen.scala:" + strconv.Itoa(s),
				NumTasks: int32(tasksPerStage), ParentIDs: []int32{}, RDDIDs: []int32{stageID * 2, stageID*2 + 1},
				JobIDs: []int32{job.ID}, Status: model.StageComplete, Properties: [][2]string{{"spark.scheduler.pool", "default"}},
				Pool: "default"}
			if s > 0 {
				st.ParentIDs = []int32{stageID - 1}
			}
			stageID++
			stages = append(stages, st)
		}
		for _, st := range stages {
			job.StageIDs = append(job.StageIDs, st.ID)
			job.StageTasks = append(job.StageTasks, st.NumTasks)
			job.NumTasks += int64(st.NumTasks)
			job.Name, job.ResultStage = st.Name, st.ID
		}
		app.Stages = append(app.Stages, stages...)
		var retries []*model.Stage
		failJob := !last && chance(4)
	run:
		for _, st := range stages {
			if st.Status == model.StageSkipped || st.Status == model.StagePending {
				continue
			}
			now += 1 + r.Int64N(3)
			st.Submitted = now
			live := last && running && st == stages[len(stages)-1]
			switch {
			case live:
				runStage(st, tasksPerStage, true, false)
			case failJob:
				runStage(st, tasksPerStage, false, true)
				st.Status, st.Failure = model.StageFailed, "Job aborted due to stage failure: boom"
				job.Status, job.Failure = model.JobFailed, "Job aborted due to stage failure: boom"
				for _, rest := range stages {
					if rest.Submitted == 0 && rest != st { // never submitted: no submission properties
						rest.Status, rest.Properties, rest.Pool = model.StageSkipped, nil, ""
					}
				}
				break run
			case chance(4): // fails, then a retry of its missing tasks succeeds
				runStage(st, tasksPerStage, false, true)
				st.Status, st.Failure = model.StageFailed, "FetchFailed while reading shuffle"
				re := &model.Stage{ID: st.ID, Attempt: 1, Name: st.Name, Details: st.Details, NumTasks: st.NumTasks / 2,
					ParentIDs: st.ParentIDs, RDDIDs: st.RDDIDs, JobIDs: []int32{job.ID}, Status: model.StageComplete,
					Properties: st.Properties, Pool: st.Pool}
				now++
				re.Submitted = now
				runStage(re, int(re.NumTasks), false, false)
				retries = append(retries, re)
			default:
				runStage(st, tasksPerStage, false, false)
			}
		}
		app.Stages = append(app.Stages, retries...)
		if last && running {
			job.Status = model.JobRunning
			for _, x := range app.SQL {
				if x.ID == int64(j) {
					x.Start = job.Submitted - 1
				}
			}
			break
		}
		now++
		job.Completed = now
		for _, x := range app.SQL {
			if x.ID == int64(j) {
				x.End = now + 1
				if job.Status == model.JobFailed {
					x.Error, x.HasError = job.Failure, true
				}
			}
		}
		now += 2
	}
	if chance(3) {
		x := app.Executors[1]
		x.Excluded = true
		st := app.Stages[len(app.Stages)-1]
		st.ExcludedExecutors = []uint32{1}
		x.ExcludedStages = []int32{st.ID}
	}
	if running {
		app.Complete = false
		return app
	}
	lastEx := app.Executors[len(app.Executors)-1]
	lastEx.Removed, lastEx.RemoveReason = now+1, "Executor killed by driver."
	if chance(3) {
		app.ExcludedNodes = []string{lastEx.Host} // the removed executor is not live: unaffected
	}
	app.End = now + 5
	return app
}

// TestWriteReadProperty: random small models survive Write then Read.
func TestWriteReadProperty(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		app := genApp(r, 1+r.IntN(3), 1+r.IntN(3), 1+r.IntN(40), 1+r.IntN(5), true)
		back, _ := roundTrip(t, app)
		if d := DiffApps(app, back); d != "" {
			t.Fatalf("seed %d: round trip differs (-model +read):\n%s", seed, d)
		}
	}
}

// BenchmarkWrite measures writing a 100,000-task application.
func BenchmarkWrite(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	app := genApp(r, 20, 5, 1000, 200, false)
	var cw countWriter
	if err := Write(&cw, app); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(cw.n)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := Write(io.Discard, app); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(app.NumTasks())*float64(b.N)/b.Elapsed().Seconds(), "tasks/s")
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func TestGenAppSane(t *testing.T) {
	app := genApp(rand.New(rand.NewPCG(3, 3)), 2, 2, 10, 3, false)
	var buf bytes.Buffer
	if err := Write(&buf, app); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(buf.Bytes(), []byte("\n")); n < 2*app.NumTasks() {
		t.Fatalf("%d lines for %d tasks", n, app.NumTasks())
	}
	_ = fmt.Sprint
}

// TestWriteMemory checks the writer's extra memory: the 16-byte schedule
// entry per event plus fixed buffers, whatever the number of tasks.
func TestWriteMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 50,000-task model")
	}
	app := genApp(rand.New(rand.NewPCG(5, 5)), 10, 5, 1000, 100, false)
	events := 0
	for _, st := range app.Stages {
		for k := range st.Tasks {
			events += 2
			if st.Tasks[k].GettingResult != 0 {
				events++
			}
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := Write(io.Discard, app); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	got := after.TotalAlloc - before.TotalAlloc
	limit := uint64(24*events + 2<<20)
	t.Logf("%d events, %d bytes allocated (%.1f per event)", events, got, float64(got)/float64(events))
	if got > limit {
		t.Errorf("Write allocated %d bytes for %d events, want at most %d", got, events, limit)
	}
}

// GenApp makes a random application for the external tests: still
// running when running is set, complete otherwise.
func GenApp(seed uint64, running bool) *model.App {
	for s := seed; ; s++ {
		app := genApp(rand.New(rand.NewPCG(s, 9)), 3, 3, 30, 4, true)
		if app.Complete != running {
			return app
		}
	}
}

// TestAppendInt compares appendInt with strconv around its shortcut and
// at the extremes.
func TestAppendInt(t *testing.T) {
	for _, v := range []int64{0, 1, 9, 10, 11, 99, 100, -1, -9, -10, 1 << 40, -1 << 63, 1<<63 - 1} {
		got := string(appendInt([]byte("x"), v))
		if want := "x" + strconv.FormatInt(v, 10); got != want {
			t.Errorf("appendInt(%d) = %q, want %q", v, got, want)
		}
	}
}

// genPlan is a small plan graph whose accumulators start at base: a
// codegen stage (aggregate) reading an exchange fed by a second codegen
// stage (project, filter) over a scan outside it.
func genPlan(base int64) *model.SQLPlan {
	m := func(k int64, name string, t model.SQLMetricType) model.SQLPlanMetric {
		return model.SQLPlanMetric{AccumID: base + k, Name: name, Type: t}
	}
	return &model.SQLPlan{
		Nodes: []model.SQLNode{
			{ID: 0, Name: "WholeStageCodegen (2)", Desc: "WholeStageCodegen (2)", Cluster: -1, IsCluster: true,
				Metrics: []model.SQLPlanMetric{m(0, "duration", model.MetricTiming)}},
			{ID: 1, Name: "HashAggregate", Desc: "HashAggregate(keys=[k#1], functions=[count(1)])", Cluster: 0,
				Metrics: []model.SQLPlanMetric{m(1, "number of output rows", model.MetricSum), m(2, "peak memory", model.MetricSize)}},
			{ID: 2, Name: "Exchange", Desc: "Exchange hashpartitioning(k#1, 200)", Cluster: -1,
				Metrics: []model.SQLPlanMetric{m(3, "shuffle bytes written", model.MetricSize), m(4, "shuffle write time", model.MetricNsTiming)}},
			{ID: 3, Name: "WholeStageCodegen (1)", Desc: "WholeStageCodegen (1)", Cluster: -1, IsCluster: true,
				Metrics: []model.SQLPlanMetric{m(5, "duration", model.MetricTiming)}},
			{ID: 4, Name: "Project", Desc: "Project [k#1]", Cluster: 3},
			{ID: 5, Name: "Filter", Desc: "Filter isnotnull(k#1)", Cluster: 3,
				Metrics: []model.SQLPlanMetric{m(6, "number of output rows", model.MetricSum)}},
			{ID: 6, Name: "Scan parquet ", Desc: "FileScan parquet [k#1] PartitionFilters: []", Cluster: -1,
				Metrics: []model.SQLPlanMetric{m(7, "number of files read", model.MetricSum), m(8, "scan time", model.MetricTiming)}},
		},
		Edges: []model.SQLEdge{{From: 2, To: 1}, {From: 4, To: 2}, {From: 5, To: 4}, {From: 6, To: 5}},
	}
}
