package dataflow

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// syntheticSpark builds a Spark application of n task attempts: 125
// executors of 8 cores, stages of 5,000 tasks, each task placed on the
// earliest free core, with scheduler delay, deserialization, fetch wait,
// shuffle write, GC and result serialization.
func syntheticSpark(n int) *model.App {
	const execs, cores, perStage = 125, 8, 5000
	rng := rand.New(rand.NewPCG(1, 2))
	app := &model.App{ID: "synthetic", Engine: model.Spark, Start: 1_000_000, Hosts: []string{""}}
	for e := range execs {
		app.Hosts = append(app.Hosts, "host-"+strconv.Itoa(e))
		app.Executors = append(app.Executors, &model.Executor{ID: strconv.Itoa(e), Host: app.Hosts[e+1], Cores: cores, Added: 1_005_000})
	}
	free := make([]int64, execs*cores)
	for i := range free {
		free[i] = 1_010_000
	}
	var m model.TaskMetrics
	for id := 0; id < n; {
		st := &model.Stage{ID: int32(id / perStage), Kind: model.StageSpark}
		st.Tasks = make([]model.Task, 0, perStage)
		for i := 0; i < perStage && id < n; i++ {
			slot := id % len(free)
			run := 200 + rng.Int64N(5000)
			d := run + 5 + rng.Int64N(40)
			launch := free[slot] + rng.Int64N(20)
			free[slot] = launch + d
			m = model.TaskMetrics{}
			m[model.ExecutorRunTime], m[model.ExecutorDeserializeTime], m[model.ResultSerializationTime] = run, 2+rng.Int64N(5), 1
			m[model.ShuffleFetchWaitTime], m[model.ShuffleWriteNanos], m[model.JVMGCTime] = rng.Int64N(run/4), rng.Int64N(run/8)*1e6, rng.Int64N(run/10)
			st.AddTask(model.Task{ID: int64(id), Index: int32(i), Launch: launch, Finish: launch + d, Executor: uint32(slot / cores),
				Host: uint32(slot/cores) + 1, Status: model.TaskSuccess, HasMetrics: true}, &m)
			id++
		}
		app.Stages = append(app.Stages, st)
	}
	for _, f := range free {
		app.End = max(app.End, f+1000)
	}
	return app
}

// BenchmarkReconstructBreakdown measures reconstruction and breakdown of a
// million task attempts; ns/task is the wall time per attempt, cpu-ns/task
// the CPU time (steadier on a shared machine).
func BenchmarkReconstructBreakdown(b *testing.B) {
	const n = 1_000_000
	app := syntheticSpark(n)
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := sharedtest.ProcessCPU().Nanoseconds()
	for b.Loop() {
		r, err := Reconstruct(app, Options{})
		if err != nil {
			b.Fatal(err)
		}
		bd := BuildBreakdown(r)
		if bd.App.TaskTime() <= 0 {
			b.Fatal("no task time")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/task")
	// CPU time includes the garbage collector's background work.
	b.ReportMetric(float64(sharedtest.ProcessCPU().Nanoseconds()-cpu0)/float64(b.N)/n, "cpu-ns/task")
}

// TestSyntheticAddsUp checks the benchmark's application (scaled down) with
// the same invariants as the real logs.
func TestSyntheticAddsUp(t *testing.T) {
	app := syntheticSpark(20_000)
	r, err := Reconstruct(app, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := BuildBreakdown(r)
	for i := range b.Executors {
		checkAddsUp(t, "executor", &b.Executors[i].Times)
		if b.Executors[i].Slots != 8 {
			t.Errorf("executor %s has %d slots, want 8", b.Executors[i].ID, b.Executors[i].Slots)
		}
	}
	checkAddsUp(t, "application", &b.App)
	if b.App.Cause[CauseGC] == 0 || b.App.Cause[CauseShuffleWait] == 0 || b.App.Cause[CauseStragglerTail] == 0 {
		t.Errorf("synthetic causes %v lack GC, shuffle wait or straggler tail", b.App.Cause)
	}
}
