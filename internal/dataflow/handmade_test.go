package dataflow

import (
	"bytes"
	"strings"
	"testing"
	"unsafe"

	"github.com/clusterlens/clusterlens/internal/model"
)

// sparkTask is a task attempt of the hand-made application.
type sparkTask struct {
	exec                             uint32
	launch, finish, getting          int64
	run, deser, resultSer, fetch, gc int64
	shuffleWriteMs                   int64
}

// handmadeSpark is a tiny Spark application whose numbers are worked out by
// hand in TestHandmadeSpark: two executors (2 cores on host A, alive from
// 2 s to the end at 21 s; 1 core on host B, removed at 12 s), a stage of
// three tasks and a stage of one.
func handmadeSpark() *model.App {
	app := &model.App{ID: "app-hand", Engine: model.Spark, Start: 1000, End: 21000, Complete: true,
		Hosts: []string{"", "A", "B"}}
	app.Executors = []*model.Executor{
		{ID: "1", Host: "A", Cores: 2, Added: 2000},
		{ID: "2", Host: "B", Cores: 1, Added: 2000, Removed: 12000},
	}
	stages := [][]sparkTask{
		{
			{exec: 0, launch: 3000, finish: 8000, run: 4000, deser: 200, resultSer: 100, gc: 300, shuffleWriteMs: 500},
			{exec: 0, launch: 3000, finish: 6000, run: 2800, deser: 100},
			{exec: 1, launch: 3500, finish: 11000, run: 7000, deser: 400},
		},
		{
			{exec: 0, launch: 9000, finish: 15000, getting: 14500, run: 5000, fetch: 1000},
		},
	}
	id := int64(0)
	for si, ts := range stages {
		st := &model.Stage{ID: int32(si), Kind: model.StageSpark, Name: "stage", NumTasks: int32(len(ts))}
		for i, x := range ts {
			var m model.TaskMetrics
			m[model.ExecutorRunTime] = x.run
			m[model.ExecutorDeserializeTime] = x.deser
			m[model.ResultSerializationTime] = x.resultSer
			m[model.ShuffleFetchWaitTime] = x.fetch
			m[model.JVMGCTime] = x.gc
			m[model.ShuffleWriteNanos] = x.shuffleWriteMs * 1e6
			st.AddTask(model.Task{ID: id, Index: int32(i), Launch: x.launch, Finish: x.finish, GettingResult: x.getting,
				Executor: x.exec, Host: x.exec + 1, Status: model.TaskSuccess, HasMetrics: true}, &m)
			id++
		}
		app.Stages = append(app.Stages, st)
	}
	return app
}

// TestHandmadeSpark checks every number of the hand-made application.
func TestHandmadeSpark(t *testing.T) {
	r, err := Reconstruct(handmadeSpark(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Phases: scheduler delay, deserialize, fetch wait, compute, shuffle write, result serialize, getting result.
	wantDur := [][maxPhases]int32{
		{700, 200, 0, 3500, 500, 100, 0}, // 5000 = 700 + 200 + 4000 + 100; run 4000 = 3500 + 500
		{100, 100, 0, 2800, 0, 0, 0},
		{100, 400, 0, 7000, 0, 0, 0},
		{500, 0, 1000, 4000, 0, 0, 500}, // getting result 15000 - 14500
	}
	wantSlot := []int32{0, 1, 0, 0}
	for i, a := range r.Attempts {
		if a.Dur != wantDur[i] {
			t.Errorf("attempt %d: phases %v, want %v", i, a.Dur, wantDur[i])
		}
		if a.Slot != wantSlot[i] {
			t.Errorf("attempt %d: slot %d, want %d", i, a.Slot, wantSlot[i])
		}
	}
	if r.Attempts[0].GC != 300 {
		t.Errorf("attempt 0 GC %d, want 300", r.Attempts[0].GC)
	}
	if len(r.Executors) != 2 || r.Executors[0].Slots != 2 || r.Executors[0].Allocated() != 38000 || r.Executors[1].Allocated() != 10000 {
		t.Fatalf("executors %+v, want 2 slots x 19 s and 1 slot x 10 s", r.Executors)
	}
	inst := r.Instances(3)
	if len(inst) != 4 || inst[2].Activity != "compute" || inst[2].Start != 10500 || inst[2].End != 14500 || inst[2].Node != "A" {
		t.Errorf("instances of attempt 3: %+v", inst)
	}

	var all int64
	n := 0
	for _, s := range r.All() {
		all += s.End - s.Start
		n++
	}
	if all != 5000+3000+7500+6000 || n != 15 {
		t.Errorf("All: %d instances, %d ms; want 15 and 21500", n, all)
	}
	b := BuildBreakdown(r)
	// Executor 1 (host A): busy 3700+2800+4000, scheduler delay 700+100+500, shuffle wait 1000, GC 300,
	// serialization 300+100+500; idle: slot 0 driver 1000+6000, tail 1000 (8-9 s); slot 1 driver 1000+6000,
	// idle 2000 (6-8 s) + 6000 (9-15 s), tail 1000.
	want1 := CauseTimes{10500, 1300, 1000, 300, 900, 2000, 14000, 8000}
	want2 := CauseTimes{7000, 100, 0, 0, 400, 0, 1000, 1500}
	if got := b.Executors[0].Cause; got != want1 {
		t.Errorf("executor 1 causes %v, want %v", got, want1)
	}
	if got := b.Executors[1].Cause; got != want2 {
		t.Errorf("executor 2 causes %v, want %v", got, want2)
	}
	for _, e := range b.Executors {
		checkAddsUp(t, "executor "+e.ID, &e.Times)
	}
	if b.App.Total != 48000 || b.App.Busy() != 17500 || b.App.Idle() != 30500 {
		t.Errorf("application total %d busy %d idle %d, want 48000, 17500, 30500", b.App.Total, b.App.Busy(), b.App.Idle())
	}
	if b.WallMs != 20000 || b.BootstrapMs != 2000 || b.DriverMs != 8000 {
		t.Errorf("wall %d bootstrap %d driver %d, want 20000, 2000, 8000", b.WallMs, b.BootstrapMs, b.DriverMs)
	}
	s0 := b.Stages[0]
	if s0.Attempts != 3 || s0.Start != 3000 || s0.MedianFinish != 8000 || s0.End != 11000 || s0.TailMs != 3000 ||
		s0.TaskTime() != 15500 || s0.Cause[CauseStragglerTail] != 2000 || s0.Total != 17500 {
		t.Errorf("stage 0 %+v", s0)
	}
	checkAddsUp(t, "stage 0", &s0.Times)
	if len(b.Nodes) != 2 || b.Nodes[0].Host != "A" || b.Nodes[0].Total != 38000 || b.Nodes[1].Slots != 1 {
		t.Errorf("nodes %+v", b.Nodes)
	}
	if got := b.App.Activity[3]; got != 17300 { // compute 3500+2800+7000+4000
		t.Errorf("compute time %d, want 17300", got)
	}

	tl := BuildTimeline(r, TimelineOptions{})
	if len(tl.Lines) != 3 || len(tl.Lines[0].Bars) != 9 || tl.Lines[1].Bars[0].Start != 3000 || tl.Lines[2].Host != "B" {
		t.Fatalf("timeline lines %+v", tl.Lines)
	}
	var buf bytes.Buffer
	if err := tl.WriteText(&buf, 20, 0); err != nil {
		t.Fatal(err)
	}
	text := buf.String()
	// 20 columns of 1 s from 1 s: bootstrap until the first task at 3 s; nothing allocated before 2 s.
	for _, want := range []string{
		"      |==------------------|",
		"1/0 A | .scccu.shcccc......|", // s: 700 ms scheduler delay at 3-4 s; u: shuffle write at 7-8 s
		"1/1 A | .ccc...............|",
		"2/0 B | .dccccccc.         |", // d: 400 ms deserializing in 3-4 s; removed at 12 s
		"c compute",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text timeline lacks %q:\n%s", want, text)
		}
	}
	per := BuildTimeline(r, TimelineOptions{PerTask: true})
	if len(per.Lines) != 4 || per.Lines[2].Start != 3500 || per.Lines[2].Slot != -1 {
		t.Errorf("per-task timeline %+v", per.Lines)
	}
}

// checkAddsUp asserts that causes sum to the total, none is negative, and
// task time by activity does not exceed the total.
func checkAddsUp(t *testing.T, what string, x *Times) {
	t.Helper()
	var sum int64
	for c, v := range x.Cause {
		if v < 0 {
			t.Errorf("%s: %s is negative (%d)", what, Cause(c), v)
		}
		sum += v
	}
	if sum != x.Total {
		t.Errorf("%s: causes sum to %d, total is %d (%v)", what, sum, x.Total, x.Cause)
	}
	if x.TaskTime() > x.Total {
		t.Errorf("%s: task time %d exceeds total %d", what, x.TaskTime(), x.Total)
	}
}

// TestAttemptSize keeps the per-attempt cost in check.
func TestAttemptSize(t *testing.T) {
	if n := unsafe.Sizeof(Attempt{}); n > 80 {
		t.Errorf("Attempt is %d bytes, want at most 80", n)
	}
}
