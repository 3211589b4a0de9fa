package history

import (
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// bruteTimes recomputes a stage's slot, wait and failed times and its
// last task by stepping through time 1 ms at a time: another way to the
// numbers stageTimes computes with sweeps.
func bruteTimes(app *model.App, ms *model.Stage) (slot, wait, failed, retry int64, last string) {
	coresAt := func(t int64) int64 {
		var c int64
		for _, e := range app.Executors {
			if e.ID != "driver" && e.Cores > 0 && e.Added <= t && (e.Removed == 0 || t < e.Removed) {
				c += int64(e.Cores)
			}
		}
		return c
	}
	var pending int64
	seen := map[int32]int64{}
	var lastFinish int64
	lastIndex := int32(-1)
	for i := range ms.Tasks {
		t := &ms.Tasks[i]
		if l, ok := seen[t.Index]; !ok || t.Launch < l {
			seen[t.Index] = t.Launch
		}
		if t.Status == model.TaskFailed || t.Status == model.TaskKilled {
			failed += t.Finish - t.Launch
		}
		if t.Status == model.TaskSuccess && t.Finish > lastFinish {
			lastFinish, last, lastIndex = t.Finish, app.Host(t.Host), t.Index
		}
	}
	for i := range ms.Tasks {
		if t := &ms.Tasks[i]; t.Index == lastIndex && (t.Status == model.TaskFailed || t.Status == model.TaskKilled) {
			retry += t.Finish - t.Launch
		}
	}
	for _, l := range seen {
		pending = max(pending, l)
	}
	for t := ms.Submitted; t < ms.Completed; t++ {
		c := coresAt(t)
		slot += c
		if t < pending {
			var running int64
			for _, s := range app.Stages {
				for i := range s.Tasks {
					if k := &s.Tasks[i]; k.Launch <= t && t < k.Finish {
						running++
					}
				}
			}
			wait += max(0, c-running)
		}
	}
	return slot, wait, failed, retry, last
}

// TestStageTimes checks the stage times FromApp keeps against a brute-force
// recount on simulated applications with idle slots (a scheduling gap),
// failed attempts (a hung task and random failures) and a skewed stage.
// The driver's time is recounted likewise.
func TestStageTimes(t *testing.T) {
	sc, err := sim.Named("scheduling-gap")
	if err != nil {
		t.Fatal(err)
	}
	sc.Apps = sc.Apps[:2]
	sc.Apps[1] = sim.AppSpec{Engine: "spark", Class: "sort", Name: "Sort", InputGB: 2, Executors: 3, Cores: 2, Partitions: 12}
	sc.Problems = []sim.ProblemSpec{{Kind: sim.ProblemSchedGap, App: 1, Stage: 1, LaunchesPerS: 2},
		{Kind: sim.ProblemHungTask, App: 0, Stage: 0}, {Kind: sim.ProblemSkew, App: 0, Stage: 1}}
	sc.Scheduler.TaskFailureRate = 0.05
	sc.Scheduler.TimeoutS = 20
	sc.Metrics.Off = true
	res, err := sim.Simulate(sc, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	var waited, failed bool
	for _, app := range res.Apps {
		r := FromApp(app, "", false, nil)
		for i, ms := range app.Stages {
			st := &r.Stages[i]
			slot, wait, fail, retry, last := bruteTimes(app, ms)
			tm := st.Times
			if tm.SlotMs != slot || tm.WaitMs != wait || tm.FailedMs != fail || tm.Last.Host != last || tm.Last.RetryMs != retry {
				t.Errorf("%s stage %d: slot %d wait %d failed %d last %s after %d; brute force %d %d %d %s after %d", app.ID, ms.ID,
					tm.SlotMs, tm.WaitMs, tm.FailedMs, tm.Last.Host, tm.Last.RetryMs, slot, wait, fail, last, retry)
			}
			if tm.SubmitMs != ms.Submitted || tm.CompleteMs != ms.Completed || tm.Last.Ms <= 0 || tm.TaskBytesMedian <= 0 {
				t.Errorf("%s stage %d: times %+v", app.ID, ms.ID, tm)
			}
			waited = waited || wait > slot/4
			failed = failed || tm.FailedMs >= 20_000
		}
		// The driver's time: the application's wall clock no stage covers.
		var covered int64
		for ts := app.Start; ts < app.End; ts++ {
			if slices.ContainsFunc(app.Stages, func(s *model.Stage) bool { return s.Submitted <= ts && ts < s.Completed }) {
				covered++
			}
		}
		if want := app.Duration() - covered; r.DriverMs != want || r.ExecutorWaitMs != 0 {
			t.Errorf("%s: driver %d ms (%d without executors), want %d and 0", app.ID, r.DriverMs, r.ExecutorWaitMs, want)
		}
	}
	if !waited || !failed {
		t.Errorf("no stage waited a quarter of its slots (%v) or had a hung task's attempt (%v): the test lost its cases", waited, failed)
	}
}

// TestConfigOf: a run's spark.* and mapreduce.* settings are kept, sorted,
// without those that name the run.
func TestConfigOf(t *testing.T) {
	app := &model.App{ID: "application_17_0003", Engine: model.Spark}
	app.Env.Spark = [][2]string{{"spark.sql.shuffle.partitions", "200"}, {"spark.app.id", "application_17_0003"},
		{"spark.app.name", "daily"}, {"spark.executor.cores", "4"}, {"spark.eventLog.dir", "hdfs:///logs/application_17_0003"},
		{"spark.driver.port", "4041"}, {"other.key", "x"}}
	got := ConfigOf(app)
	want := [][2]string{{"spark.executor.cores", "4"}, {"spark.sql.shuffle.partitions", "200"}}
	if !slices.Equal(got, want) {
		t.Errorf("spark: %v, want %v", got, want)
	}
	mr := &model.App{ID: "job_17_0003", Engine: model.MapReduce, Conf: [][2]string{{"mapreduce.job.reduces", "8"},
		{"mapreduce.job.name", "x"}, {"mapreduce.job.dir", "/tmp/staging/application_17_0003"}, {"dfs.blocksize", "1"}}}
	if got := ConfigOf(mr); !slices.Equal(got, [][2]string{{"mapreduce.job.reduces", "8"}}) {
		t.Errorf("mapreduce: %v", got)
	}
	id1, text := ConfigID(want)
	id2, _ := ConfigID(slices.Clone(want))
	back, err := ParseConfig(text)
	if id1 == "" || id1 != id2 || err != nil || !slices.Equal(back, want) {
		t.Errorf("ConfigID %q %q, parsed back %v (%v)", id1, id2, back, err)
	}
}

// TestQueriesOf: a SQL application's executions are kept with their plans'
// operators (the simulator's aggregate query: two HashAggregates around an
// Exchange over a scan), its other applications have none.
func TestQueriesOf(t *testing.T) {
	sc, err := sim.Named("sql-clean")
	if err != nil {
		t.Fatal(err)
	}
	sc.Metrics.Off = true
	res, err := sim.Simulate(sc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	aggregates := 0
	for _, app := range res.Apps {
		r := FromApp(app, "", false, nil)
		if len(r.Queries) != len(app.Jobs) {
			t.Errorf("%s: %d queries for %d jobs", app.ID, len(r.Queries), len(app.Jobs))
		}
		for _, q := range r.Queries {
			if len(q.Stages) == 0 || len(q.Plan) == 0 || q.WallMs <= 0 {
				t.Errorf("%s query %d: %+v", app.ID, q.ID, q)
			}
			if strings.Contains(q.Description, "GROUP BY") {
				aggregates++
				if n := strings.Count(strings.Join(q.Plan, ","), "HashAggregate"); n != 2 || !slices.Contains(q.Plan, "Exchange") {
					t.Errorf("%s query %d: plan %v, want two HashAggregates and an Exchange", app.ID, q.ID, q.Plan)
				}
			}
		}
	}
	if aggregates == 0 {
		t.Error("no aggregate query")
	}
}
