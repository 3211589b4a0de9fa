package eventlog

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
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
// after the other, tasks on executors in time order, some failing.
func genApp(r *rand.Rand, jobs, stagesPerJob, tasksPerStage, executors int) *model.App {
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
	reasonIdx := map[model.Reason]uint32{}
	driver := &model.Executor{ID: "driver", Host: "driver-host", HostPort: "driver-host:40000",
		BlockManagerSeen: true, BlockManagerAdded: start + 1, MaxMemory: 1 << 30, MaxOnHeapMemory: 1 << 30}
	app.Executors = append(app.Executors, driver)
	for i := 1; i <= executors; i++ {
		h := "host-" + strconv.Itoa(i%7)
		app.Executors = append(app.Executors, &model.Executor{ID: strconv.Itoa(i), Host: h,
			HostPort: h + ":" + strconv.Itoa(30000+i), Cores: 4, Added: start + 10 + int64(i),
			LogURLs: [][2]string{{"stdout", "http://" + h + "/stdout"}}, Attributes: [][2]string{},
			BlockManagerSeen: true, MaxMemory: 2 << 30, MaxOnHeapMemory: 2 << 30, MaxOffHeapMemory: 0})
	}
	hostIDs := map[string]uint32{}
	now := start + 100
	taskID := int64(0)
	stageID := int32(0)
	for j := 0; j < jobs; j++ {
		job := &model.Job{ID: int32(j), SQLID: -1, Submitted: now, Status: model.JobSucceeded,
			Properties:  [][2]string{{"spark.job.description", "job " + strconv.Itoa(j)}, {"spark.rdd.scope", `{"id":"1"}`}},
			Description: "job " + strconv.Itoa(j)}
		app.Jobs = append(app.Jobs, job)
		for s := 0; s < stagesPerJob; s++ {
			now += 1 + r.Int64N(3)
			st := &model.Stage{ID: stageID, Name: "stage " + strconv.Itoa(int(stageID)), Details: "at Gen.scala:" + strconv.Itoa(s),
				NumTasks: int32(tasksPerStage), ParentIDs: []int32{}, RDDIDs: []int32{stageID * 2, stageID*2 + 1},
				JobIDs: []int32{job.ID}, Submitted: now, Status: model.StageComplete, Properties: [][2]string{{"spark.scheduler.pool", "default"}},
				Pool: "default"}
			if s > 0 {
				st.ParentIDs = []int32{stageID - 1}
			}
			stageID++
			job.StageIDs = append(job.StageIDs, st.ID)
			job.StageTasks = append(job.StageTasks, st.NumTasks)
			job.NumTasks += int64(st.NumTasks)
			job.Name, job.ResultStage = st.Name, st.ID
			end := now
			for k := 0; k < tasksPerStage; k++ {
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
					Executor: uint32(x), Host: hid, Status: model.TaskSuccess, Locality: model.Locality(1 + r.IntN(5)),
					Speculative: r.IntN(20) == 0, HasMetrics: true}
				taskID++
				if r.IntN(10) == 0 {
					rs := genReasons[r.IntN(len(genReasons))]
					id, ok := reasonIdx[rs]
					if !ok {
						id = uint32(len(app.Reasons))
						reasonIdx[rs] = id
						app.Reasons = append(app.Reasons, rs)
					}
					t.Reason, t.Status = id, model.TaskFailed
					if rs.Kind == "TaskKilled" {
						t.Status = model.TaskKilled
					}
				}
				if r.IntN(5) == 0 {
					t.GettingResult = t.Finish - 1
				}
				var m model.TaskMetrics
				for mi := model.ExecutorDeserializeTime; mi <= model.ShuffleWriteRecords; mi++ {
					if r.IntN(3) == 0 {
						m[mi] = r.Int64N(1 << 40)
					}
				}
				st.AddTask(t, &m)
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
			if r.IntN(4) == 0 {
				st.Accumulables = []model.Accumulable{{ID: 9000 + int64(st.ID), Name: "my counter", Value: strconv.Itoa(r.IntN(100))}}
			}
			st.Completed = end + 1
			now = st.Completed
			app.Stages = append(app.Stages, st)
		}
		now++
		job.Completed = now
	}
	last := app.Executors[len(app.Executors)-1]
	last.Removed, last.RemoveReason = now+1, "Executor killed by driver."
	app.End = now + 5
	return app
}

// TestWriteReadProperty: random small models survive Write then Read.
func TestWriteReadProperty(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		app := genApp(r, 1+r.IntN(3), 1+r.IntN(3), 1+r.IntN(40), 1+r.IntN(5))
		back, _ := roundTrip(t, app)
		if d := DiffApps(app, back); d != "" {
			t.Fatalf("seed %d: round trip differs (-model +read):\n%s", seed, d)
		}
	}
}

// BenchmarkWrite measures writing a 100,000-task application.
func BenchmarkWrite(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	app := genApp(r, 20, 5, 1000, 200)
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
	app := genApp(rand.New(rand.NewPCG(3, 3)), 2, 2, 10, 3)
	var buf bytes.Buffer
	if err := Write(&buf, app); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(buf.Bytes(), []byte("\n")); n < 2*app.NumTasks() {
		t.Fatalf("%d lines for %d tasks", n, app.NumTasks())
	}
	_ = fmt.Sprint
}
