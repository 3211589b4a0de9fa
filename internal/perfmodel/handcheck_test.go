package perfmodel

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// loadOne reads the single application of a real log.
func loadOne(t testing.TB, path string) *model.App {
	t.Helper()
	res, err := decodelogs.Paths([]string{path}, decodelogs.Options{Workers: 1})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	if len(res.Apps) != 1 {
		t.Fatalf("load %s: %d applications, want 1", path, len(res.Apps))
	}
	return res.Apps[0]
}

// TestSparklensLogByHand checks every Sparklens number on Sparklens's own
// test log, computed by hand from its 30 lines (times are epoch ms; only the
// last four digits differ, written as +NNNN after 1532512540000):
//
//	application start +9494, end +25469: 15975 ms
//	executor "driver", 4 cores, added +10459, never removed: 15010 ms alive
//	job 0 submitted +21759, completed +22228
//	  stage 0 submitted +21782, completed +22223 (441 ms)
//	  tasks (launch→finish): 0: +21948→+22213 = 265, 1: +21968→+22216 = 248,
//	         2: +21968→+22216 = 248, 3: +21969→+22216 = 247; sum 1008, max 265
//	job 1 submitted +23447, completed +23461
//	  stage 1 submitted +23448, completed +23460 (12 ms)
//	  tasks: 4: +23452→+23459 = 7, 5: +23453→+23459 = 6, 6: +23453→+23459 = 6,
//	         7: +23453→+23460 = 7; sum 26, max 7
//
// Executor wall clock = 441 + 12 = 453; driver = 15975 - 453 = 15522 in 3 gaps
// (start→stage 0: 12288, stage 0→stage 1: 1225, stage 1→end: 2009).
// Critical path: job 1 follows job 0, so 265 + 7 = 272; with the driver 15794.
// Used = 1008 + 26 = 1034 core-ms; ideal = 15522 + 1034/4 = 15780.5.
// Available = 4 x 15010 = 60040 core-ms; wasted 60040 - 1034 = 59006; during
// driver gaps the executor was alive 15010 - 453 = 14557 ms: 58228 core-ms.
// Stage 0: available 4 x 441 = 1764, used 1008, wasted 756, median 248
// (upper median of 247,248,248,265), skew 265/248.
//
// Replay at 4 slots: job 0 released at +12265 (its submission after the
// start), stage 0 launches 189 ms later (+21948 - +21759) at 12454, its
// tasks run in parallel until 12454+265 = 12719, it completes 7 ms later
// (+22223 - +22216) at 12726, job 0 5 ms later at 12731. Job 1 follows
// after the recorded gap 1219 (+23447 - +22228) at 13950, stage 1 launches 5
// ms later at 13955, ends at 13962 (endDelay 0), job 1 at 13963; the
// application ends 2008 ms later (+25469 - +23461): 15971 ms, 4 ms (0.03%)
// short of the recorded 15975. At 1 slot (25%) stage 0 takes 1008 ms and
// stage 1 26 ms: 12454+1008+7+5 = 13474, +1219+5 = 14698, +26+0+1 = 14725,
// +2008 = 16733.
func TestSparklensLogByHand(t *testing.T) {
	app := loadOne(t, filepath.Join(sharedtest.Dir(t, "logs/sparklens"), "src/test/event-history-test-files/local-1532512550423"))
	w, err := FromApp(app)
	if err != nil {
		t.Fatal(err)
	}
	e := Analyze(w)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"appMs", float64(e.AppMs), 15975},
		{"executorMs", float64(e.ExecutorMs), 453},
		{"driverMs", float64(e.DriverMs), 15522},
		{"gaps", float64(e.Gaps), 3},
		{"longestGapMs", float64(e.LongestGapMs), 12288},
		{"slots", float64(e.Cores.Slots), 4},
		{"maxExecutors", float64(e.Cores.MaxExecutors), 1},
		{"criticalPathMs", float64(e.CriticalPath.Ms), 272},
		{"criticalPathAppMs", float64(e.CriticalPathAppMs), 15794},
		{"idealAppMs", e.IdealAppMs, 15780.5},
		{"oneCoreAppMs", float64(e.OneCoreAppMs), 15522 + 1034},
		{"coreMsUsed", float64(e.CoreMsUsed), 1034},
		{"coreMsAvailable", float64(e.CoreMsAvailable), 60040},
		{"coreMsWasted", float64(e.CoreMsWasted), 59006},
		{"driverCoreMsWasted", float64(e.DriverCoreMsWasted), 58228},
		{"stage0.available", float64(e.Stages[0].CoreMsAvailable), 1764},
		{"stage0.used", float64(e.Stages[0].CoreMsUsed), 1008},
		{"stage0.wasted", float64(e.Stages[0].CoreMsWasted), 756},
		{"stage0.median", float64(e.Stages[0].MedianTaskMs), 248},
		{"stage0.skew", e.Stages[0].TaskSkew(), 265.0 / 248},
		{"stage0.idealMs", e.Stages[0].IdealMs, 252},
		{"stage1.used", float64(e.Stages[1].CoreMsUsed), 26},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if got := e.CriticalPath.Stages; len(got) != 2 || got[0] != 0 || got[1] != 1 {
		t.Errorf("critical path stages = %v, want [0 1]", got)
	}
	plan := NewPlan(w)
	for _, c := range []struct {
		slots int
		want  int64
	}{{4, 15971}, {1, 16733}} {
		got, err := plan.Replay(c.slots)
		if err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("replay on %d slots = %d ms, want %d", c.slots, got, c.want)
		}
	}
	wi, err := EstimateWhatIf(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(wi.Estimates) != 12 || wi.ModelMs != 15971 || wi.RecordedMs != 15975 {
		t.Errorf("what-if: %d estimates, model %d, recorded %d; want 12, 15971, 15975", len(wi.Estimates), wi.ModelMs, wi.RecordedMs)
	}
	// 10% of 4 slots rounds to 0: at least one slot.
	if e10, _ := wi.At(10); e10.Slots != 1 || e10.AppMs != 16733 {
		t.Errorf("10%%: %+v, want 1 slot, 16733 ms", e10)
	}
}

// TestSparklensFiguresByHand computes Sparklens's own figures on its test log
// (see TestSparklensLogByHand for the times), with executorRunTime as task
// time: stage 0 ran 20, 21, 21, 21 ms (sum 83, max 21), stage 1 2, 2, 2, 2
// (sum 8, max 2). Jobs span 469 (+21759→+22228) and 14 (+23447→+23461): 483
// ms; driver 15975 - 483 = 15492. One executor of 4 cores: 4 total cores.
// Critical path 21 + 2 = 23, with the driver 15515. Perfect parallelism
// 15492 + 91/4 (integer: 22) = 15514. One core: 15492 + 91 = 15583.
// Available 4 x 15975 = 63900; autoscale-aware 4 x 15010 = 60040; wasted by
// the driver 4 x 15492 = 61968; executors' 4 x 483 = 1932, used 91,
// wasted 1841.
func TestSparklensFiguresByHand(t *testing.T) {
	app := loadOne(t, filepath.Join(sharedtest.Dir(t, "logs/sparklens"), "src/test/event-history-test-files/local-1532512550423"))
	w, err := FromAppWith(app, Options{ExecutorRunTime: true})
	if err != nil {
		t.Fatal(err)
	}
	got := Sparklens(w)
	want := SparklensFigures{
		AppMs: 15975, JobMs: 483, DriverMs: 15492, TotalCores: 4,
		CriticalPathMs: 23, CriticalPathAppMs: 15515, PerfectAppMs: 15514, OneCoreAppMs: 15583,
		CoreMsAvailable: 63900, CoreMsAvailableAutoScale: 60040, DriverCoreMsWasted: 61968,
		ExecutorCoreMsAvailable: 1932, CoreMsUsed: 91, ExecutorCoreMsWasted: 1841,
	}
	if got != want {
		t.Errorf("Sparklens figures\n got %+v\nwant %+v", got, want)
	}
	// Task time changes, stage windows do not: the wall-clock split is the same.
	if e := Analyze(w); e.DriverMs != 15522 || e.CoreMsUsed != 91 {
		t.Errorf("with executorRunTime: driver %d, used %d; want 15522, 91", e.DriverMs, e.CoreMsUsed)
	}
}
