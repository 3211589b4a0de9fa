package dataflow

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestEveryRealLog reconstructs every Spark and MapReduce application in
// shared/data/logs with the built-in specification and checks that the
// numbers add up: each attempt's phases fill its span; per executor, node,
// stage and application, busy plus idle causes equal the total, none
// negative; the application's total is the executors' allocated time and
// its task time the attempts' time.
func TestEveryRealLog(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	res, err := decodelogs.Paths([]string{root}, decodelogs.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	byEngine := map[model.Engine]int{}
	attempts := 0
	for _, app := range res.Apps {
		rel, _ := filepath.Rel(root, app.Source)
		name := rel + " " + app.ID
		r, err := Reconstruct(app, Options{})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		byEngine[app.Engine]++
		attempts += len(r.Attempts)
		var span int64
		for i, a := range r.Attempts {
			var sum int64
			for _, d := range a.Dur {
				if d < 0 {
					t.Fatalf("%s: attempt %d has a negative phase %v", name, i, a.Dur)
				}
				sum += int64(d)
			}
			if sum != a.End-a.Start || a.GC < 0 || a.Wait < 0 {
				t.Fatalf("%s: attempt %d phases %v sum to %d of %d (GC %d, wait %d)", name, i, a.Dur, sum, a.End-a.Start, a.GC, a.Wait)
			}
			span += sum
		}
		b := BuildBreakdown(r)
		var allocated int64
		for i := range b.Executors {
			e := &b.Executors[i]
			checkAddsUp(t, name+" executor "+e.ID, &e.Times)
			if e.Total != int64(e.Slots)*(e.End-e.Start) || e.End < e.Start {
				t.Errorf("%s: executor %s total %d is not %d slots x [%d, %d]", name, e.ID, e.Total, e.Slots, e.Start, e.End)
			}
			allocated += e.Total
		}
		for i := range b.Nodes {
			checkAddsUp(t, name+" node "+b.Nodes[i].Host, &b.Nodes[i].Times)
		}
		var stageTasks int64
		for i := range b.Stages {
			checkAddsUp(t, name+" stage", &b.Stages[i].Times)
			stageTasks += b.Stages[i].TaskTime()
		}
		checkAddsUp(t, name+" application", &b.App)
		if b.App.Total != allocated || b.App.TaskTime() != span || stageTasks != span {
			t.Errorf("%s: application total %d vs allocated %d; task time %d, stages %d vs attempts %d",
				name, b.App.Total, allocated, b.App.TaskTime(), stageTasks, span)
		}
		if b.DriverMs < 0 || b.DriverMs > b.WallMs || b.BootstrapMs > b.WallMs {
			t.Errorf("%s: driver %d, bootstrap %d of wall %d", name, b.DriverMs, b.BootstrapMs, b.WallMs)
		}
		tl := BuildTimeline(r, TimelineOptions{})
		bars := 0
		for _, l := range tl.Lines {
			bars += len(l.Bars)
			for _, x := range l.Bars {
				if x.End <= x.Start || x.Start < l.Start || x.End > l.End {
					t.Fatalf("%s: bar %+v outside line %s [%d, %d]", name, x, l.Label(), l.Start, l.End)
				}
			}
		}
		if err := tl.WriteText(io.Discard, 0, 0); err != nil {
			t.Errorf("%s: text timeline: %v", name, err)
		}
	}
	if byEngine[model.Spark] < 80 || byEngine[model.MapReduce] < 100 {
		t.Errorf("reconstructed %v applications by engine, want at least 80 Spark and 100 MapReduce", byEngine)
	}
	t.Logf("%d applications (%v by engine), %d attempts", len(res.Apps), byEngine, attempts)
}
