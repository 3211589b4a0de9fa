package dataflow

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// handmadeMapReduce is a tiny MapReduce job worked out by hand in
// TestHandmadeMapReduce: two maps and a reduce on hosts h1 and h2.
func handmadeMapReduce() *model.App {
	app := &model.App{ID: "job_hand", Engine: model.MapReduce, Start: 500, End: 11000, Complete: true,
		Hosts: []string{"", "h1", "h2"}}
	app.Executors = []*model.Executor{{ID: "h1", Host: "h1", Added: 1000}, {ID: "h2", Host: "h2", Added: 1000}}
	maps := &model.Stage{ID: 0, Kind: model.StageMap}
	var m model.TaskMetrics
	m[model.MapPhaseFinish], m[model.SpilledRecords], m[model.MapOutputRecords], m[model.JVMGCTime] = 4000, 300, 100, 200
	maps.AddTask(model.Task{ID: 0, Launch: 1000, Finish: 5000, Executor: 0, Host: 1, Status: model.TaskSuccess, HasMetrics: true}, &m)
	m = model.TaskMetrics{}
	maps.AddTask(model.Task{ID: 1, Index: 1, Launch: 1000, Finish: 7000, Executor: 1, Host: 2, Status: model.TaskSuccess, HasMetrics: true}, &m)
	reduces := &model.Stage{ID: 1, Kind: model.StageReduce}
	m = model.TaskMetrics{}
	m[model.ShufflePhaseFinish], m[model.SortPhaseFinish], m[model.JVMGCTime] = 8000, 9000, 100
	reduces.AddTask(model.Task{ID: 2, Launch: 2000, Finish: 10000, Executor: 0, Host: 1, Status: model.TaskSuccess, HasMetrics: true}, &m)
	app.Stages = []*model.Stage{maps, reduces}
	return app
}

// TestHandmadeMapReduce checks the Hadoop reconstruction (HiTune Figure 8)
// and the shuffle wait of §7.2 by hand.
func TestHandmadeMapReduce(t *testing.T) {
	r, err := Reconstruct(handmadeMapReduce(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"map", "spill", "merge", "copier", "merge+sort", "reduce"}
	if len(r.Activities) != len(names) {
		t.Fatalf("activities %+v", r.Activities)
	}
	for i, n := range names {
		if r.Activities[i].Name != n {
			t.Errorf("activity %d is %q, want %q", i, r.Activities[i].Name, n)
		}
	}
	if r.Activities[3].WaitsFor != PoolMap {
		t.Errorf("copier waits for %v, want the map pool", r.Activities[3].WaitsFor)
	}
	// m0: map 3000, then 1000 after the map phase split by 100 of 300 spilled records: spill 333, merge 667.
	want := [][maxPhases]int32{{3000, 333, 667}, {6000, 0, 0}, {6000, 1000, 1000}}
	for i, w := range want {
		if r.Attempts[i].Dur != w {
			t.Errorf("attempt %d phases %v, want %v", i, r.Attempts[i].Dur, w)
		}
	}
	// The reduce copies from 2 s; the last map ends at 7 s: 5 s of its 6 s shuffle is waiting.
	if r.Attempts[2].Wait != 5000 || r.Attempts[2].GC != 100 || r.Attempts[2].Slot != 1 {
		t.Errorf("reduce attempt %+v, want wait 5000, GC 100, slot 1", r.Attempts[2])
	}
	b := BuildBreakdown(r)
	// h1: 2 slots x 10 s. Busy: map 4000-200 GC, reduce 8000-5000 wait-100 GC. Idle: slot 0 after 5 s is
	// allocated-idle to 10 s (a task still runs) and driver to 11 s; slot 1 is idle 1-2 s and driver 10-11 s.
	wantH1 := CauseTimes{6700, 0, 5000, 300, 0, 0, 2000, 6000}
	if b.Executors[0].Cause != wantH1 || b.Executors[0].Total != 20000 {
		t.Errorf("h1 %+v, want causes %v of 20000", b.Executors[0].Times, wantH1)
	}
	for _, e := range b.Executors {
		checkAddsUp(t, e.ID, &e.Times)
	}
	if b.Stages[0].MedianFinish != 5000 || b.Stages[0].TailMs != 2000 || b.Stages[1].Kind != "reduce" {
		t.Errorf("stages %+v", b.Stages)
	}
}

// TestUserSpecHive reconstructs the MapReduce job with the Hive
// specification modelled on the paper's Figure 21: the Hive operators share
// the map and reduce phases.
func TestUserSpecHive(t *testing.T) {
	spec, err := ParseFile(filepath.Join("testdata", "hive.flow"))
	if err != nil {
		t.Fatal(err)
	}
	r, err := Reconstruct(handmadeMapReduce(), Options{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Activities[0].Name; got != "TableScan+Filter+GroupBy.hash+ReduceSink" {
		t.Errorf("map activity %q", got)
	}
	if got := r.Activities[5].Name; got != "GroupBy.merge+Select+FileSink" {
		t.Errorf("reduce activity %q", got)
	}
	inst := r.Instances(2)
	if len(inst) != 3 || len(inst[2].Vertices) != 3 || inst[2].Start != 9000 || inst[2].End != 10000 {
		t.Errorf("reduce instances %+v", inst)
	}
	b := BuildBreakdown(r)
	for _, e := range b.Executors {
		checkAddsUp(t, e.ID, &e.Times)
	}
	if _, err := Reconstruct(handmadeSpark(), Options{Spec: spec}); !errors.Is(err, ErrSpecMismatch) {
		t.Errorf("Spark application with the Hive spec: error %v, want ErrSpecMismatch", err)
	}
}

// TestRobustness feeds the reconstruction what broken and running logs
// contain: no end events, attempts still running, no launch time, unknown
// executors, negative and oversized metrics, disordered phase ends.
func TestRobustness(t *testing.T) {
	app := handmadeSpark()
	app.End, app.Complete = 0, false
	app.Executors[1].Removed = 0
	app.Executors = append(app.Executors, &model.Executor{ID: "3", Host: "C", Cores: 4, Added: 5000, Removed: 4000})
	st := app.Stages[1]
	var m model.TaskMetrics
	m[model.ExecutorRunTime], m[model.ExecutorDeserializeTime], m[model.JVMGCTime] = -5, 1<<40, 1<<40
	st.AddTask(model.Task{ID: 10, Launch: 16000, Executor: 2, Host: 0, HasMetrics: true}, &m)                     // still running
	st.AddTask(model.Task{ID: 11, Launch: 0, Finish: 9000, Executor: 0}, &m)                                      // no launch
	st.AddTask(model.Task{ID: 12, Launch: 9000, Finish: 9500, Executor: 9}, &m)                                   // unknown executor
	st.AddTask(model.Task{ID: 13, Launch: 9000, Finish: 8000, Executor: 0, HasMetrics: true}, &m)                 // ends before it starts
	st.AddTask(model.Task{ID: 14, Launch: 9000, Finish: 9000 + 1<<40, Executor: 1, Status: model.TaskFailed}, &m) // absurdly long
	app.Stages = append(app.Stages, &model.Stage{ID: 7, Kind: model.StageReduce})
	var rm model.TaskMetrics
	rm[model.ShufflePhaseFinish], rm[model.SortPhaseFinish] = 9000, 3000
	r, err := Reconstruct(app, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Skipped: the attempt still running, the one without a launch time and
	// the one that ends before it starts (an impossible time, model.App.Misdated).
	if r.Skipped != 3 || len(r.Attempts) != 6 {
		t.Errorf("skipped %d, attempts %d; want 3 and 6", r.Skipped, len(r.Attempts))
	}
	for i, a := range r.Attempts {
		var sum int64
		for _, d := range a.Dur {
			if d < 0 {
				t.Errorf("attempt %d: negative phase %v", i, a.Dur)
			}
			sum += int64(d)
		}
		if sum != a.End-a.Start || a.GC < 0 || a.End < a.Start {
			t.Errorf("attempt %d: phases %v sum to %d, span %d..%d, GC %d", i, a.Dur, sum, a.Start, a.End, a.GC)
		}
	}
	b := BuildBreakdown(r)
	for _, e := range b.Executors {
		checkAddsUp(t, "executor "+e.ID, &e.Times)
		if e.End < e.Start {
			t.Errorf("executor %s ends before it starts", e.ID)
		}
	}
	for _, s := range b.Stages {
		checkAddsUp(t, "stage", &s.Times)
	}
	var buf []byte
	tl := BuildTimeline(r, TimelineOptions{})
	w := &sliceWriter{&buf}
	if err := tl.WriteText(w, 0, 1); err != nil || len(buf) == 0 {
		t.Errorf("text timeline: %v", err)
	}
	// A reduce with disordered phase ends is clamped.
	a := Attempt{Start: 2000, End: 10000, Pool: PoolReduce}
	splitReduce(&a, &rm)
	if a.Dur != [maxPhases]int32{7000, 0, 1000} {
		t.Errorf("disordered reduce phases %v, want 7000, 0, 1000", a.Dur)
	}
}

type sliceWriter struct{ b *[]byte }

func (w *sliceWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }
