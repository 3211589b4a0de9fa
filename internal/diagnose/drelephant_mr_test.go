package diagnose

import (
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// TestDrElephantStatistics checks the Statistics.java arithmetic by hand.
// findTwoGroups({0, 10, 60, 70, 100}): the average 48 splits {0, 10} (5) /
// {60, 70, 100} (76); the next middle is 76 − 5 = 71: {0, 10, 60, 70} (35) /
// {100}; the last 100 − 35 = 65: {0, 10, 60} / {70, 100}, not the split at
// the mean. average truncates (7/2 = 3); median of an even count is the
// truncated mean of the middle two; percentile is the nearest rank.
func TestDrElephantStatistics(t *testing.T) {
	small, large := drTwoGroups([]int64{0, 10, 60, 70, 100})
	if !slices.Equal(small, []int64{0, 10, 60}) || !slices.Equal(large, []int64{70, 100}) {
		t.Errorf("two groups %v %v, want [0 10 60] [70 100]", small, large)
	}
	if s, l := drTwoGroups(nil); s != nil || l != nil {
		t.Errorf("two groups of nothing: %v %v", s, l)
	}
	if got := drAverage([]int64{3, 4}); got != 3 {
		t.Errorf("average 3, 4 = %d, want 3", got)
	}
	if got := drAverage(nil); got != 0 {
		t.Errorf("average of nothing = %d, want 0", got)
	}
	if got, ok := drMedian([]int64{9, 1, 4, 6}); !ok || got != 5 {
		t.Errorf("median = %d %v, want 5", got, ok)
	}
	if _, ok := drMedian(nil); ok {
		t.Error("median of nothing accepted")
	}
	sorted := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if p25, p75 := drPercentile(sorted, 25), drPercentile(sorted, 75); p25 != 3 || p75 != 8 {
		t.Errorf("p25 %d p75 %d, want 3 and 8", p25, p75)
	}
}

// TestDrElephantSkewBoundaries: 10 tasks reading 3 MiB and 10 reading
// 9 MiB: deviation (9 − 3) / 3 = 2 (low), group B 9 MiB ≥ 64/8 MiB (low),
// group A 10 tasks (low): low. With 9 small tasks group A falls below 10:
// none. With a 128 MiB block (dfs.blocksize in the job conf) the limit is
// 16 MiB: none. A failed job is not analysed.
func TestDrElephantSkewBoundaries(t *testing.T) {
	in := func(m int64) model.TaskMetrics { return drMetrics(map[model.Metric]int64{model.HDFSBytesRead: m}) }
	b := drNewMR().tasks(model.StageMap, 10, 0, in(3*drMiB)).tasks(model.StageMap, 10, 0, in(9*drMiB))
	sev, f := drRun(t, b.app, "drelephant-mapper-skew", nil)
	if sev != Low || f.Scope.IDs[0] != "0" {
		t.Fatalf("severity %v scope %v, want low on stage 0", sev, f.Scope)
	}
	for name, want := range map[string]float64{"dataDeviation": 2, "dataGroupBAvgBytes": 9 * drMiB, "dataGroupATasks": 10, "dataGroupAAvgBytes": 3 * drMiB, "timeDeviation": 0} {
		if got := evidence(t, f, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if sev, _ := drRun(t, drNewMR().tasks(model.StageMap, 9, 0, in(3*drMiB)).tasks(model.StageMap, 10, 0, in(9*drMiB)).app, "drelephant-mapper-skew", nil); sev != None {
		t.Errorf("9 tasks in group A: %v, want none", sev)
	}
	b = drNewMR().tasks(model.StageMap, 10, 0, in(3*drMiB)).tasks(model.StageMap, 10, 0, in(9*drMiB)).conf("dfs.blocksize", "128m")
	if sev, _ := drRun(t, b.app, "drelephant-mapper-skew", nil); sev != None {
		t.Errorf("128 MiB blocks: %v, want none", sev)
	}
	b = drNewMR().tasks(model.StageMap, 10, 0, in(3*drMiB)).tasks(model.StageMap, 10, 0, in(9*drMiB))
	b.app.Jobs[0].Status = model.JobFailed
	if sev, _ := drRun(t, b.app, "drelephant-mapper-skew", nil); sev != None {
		t.Errorf("failed job analysed: %v", sev)
	}
	if !contains(f.Summary, "split into 10 averaging 3.0 MiB and 10 averaging 9.0 MiB of") {
		t.Errorf("summary %q does not give the data split", f.Summary)
	}
	// No recorded input: the time split alone (10 tasks of 1 s, 10 of 60 s:
	// deviation 59, critical), and the summary says there was no input.
	b = drNewMR().tasks(model.StageMap, 10, 1000, model.TaskMetrics{}).tasks(model.StageMap, 10, 60_000, model.TaskMetrics{})
	if sev, f := drRun(t, b.app, "drelephant-mapper-skew", nil); sev == None || !contains(f.Summary, "read no input") || contains(f.Summary, "averaging 0 B") {
		t.Errorf("no input: %v %q", sev, f.Summary)
	}
	// A retried task counts once, by its successful attempt.
	b = drNewMR().tasks(model.StageMap, 10, 0, in(3*drMiB)).tasks(model.StageMap, 10, 0, in(9*drMiB))
	st := b.app.Stages[0]
	st.AddTask(model.Task{ID: 99, Index: 0, Attempt: 1, Launch: origin, Finish: origin + 5, Status: model.TaskFailed}, &model.TaskMetrics{})
	if got := len(mrTasks(b.app, model.StageMap)); got != 20 {
		t.Errorf("%d tasks, want 20", got)
	}
}

// TestDrElephantTimeBoundaries: an average of exactly 15 minutes is long
// (low) and 1 ms less is not; exactly 10 minutes with 50 tasks is short
// (low), 1 ms more is not.
func TestDrElephantTimeBoundaries(t *testing.T) {
	cases := []struct {
		tasks int
		run   int64
		want  Severity
	}{
		{10, 15 * drMinuteMs, Low},
		{10, 15*drMinuteMs - 1, None},
		{50, 10 * drMinuteMs, Low},
		{50, 10*drMinuteMs + 1, None},
		{49, 10 * drMinuteMs, None},
	}
	for _, c := range cases {
		b := drNewMR().tasks(model.StageReduce, c.tasks, c.run, model.TaskMetrics{})
		sev, f := drRun(t, b.app, "drelephant-reducer-time", nil)
		if sev != c.want {
			t.Errorf("%d tasks of %d ms: %v, want %v", c.tasks, c.run, sev, c.want)
		}
		if sev != None && evidence(t, f, "avgRuntimeMs") != float64(c.run) {
			t.Errorf("avgRuntimeMs %v, want %d", evidence(t, f, "avgRuntimeMs"), c.run)
		}
	}
}

// TestDrElephantGCBoundaries: GC exactly 1% of CPU over tasks of exactly 5
// minutes is low; 4 minutes 59.999 s is under the gate.
func TestDrElephantGCBoundaries(t *testing.T) {
	m := drMetrics(map[model.Metric]int64{model.CPUMillis: 100_000, model.JVMGCTime: 1000})
	if sev, f := drRun(t, drNewMR().tasks(model.StageMap, 3, 5*drMinuteMs, m).app, "drelephant-mapper-gc", nil); sev != Low || evidence(t, f, "gcCpuRatio") != 0.01 {
		t.Errorf("severity %v (%+v), want low at 0.01", sev, f.Evidence)
	}
	if sev, _ := drRun(t, drNewMR().tasks(model.StageMap, 3, 5*drMinuteMs-1, m).app, "drelephant-mapper-gc", nil); sev != None {
		t.Errorf("short tasks: %v, want none", sev)
	}
	// No CPU time but some GC: Java's ratio is +Infinity (critical), reported as Long.MAX_VALUE.
	m = drMetrics(map[model.Metric]int64{model.JVMGCTime: 1000})
	if sev, f := drRun(t, drNewMR().tasks(model.StageMap, 3, 20*drMinuteMs, m).app, "drelephant-mapper-gc", nil); sev != Critical || evidence(t, f, "gcCpuRatio") <= 1e18 {
		t.Errorf("zero CPU: %v %+v", sev, f.Evidence)
	}
}

// TestDrElephantSpillBoundaries: Dr. Elephant compares (long)(ratio × 10000)
// with 2.01 × 10000, both doubles: 201/100 gives 2.0099999999999998 ×
// 10000 = 20099.999999999996, truncated to 20099, below the limit (itself
// 20099.999999999996): none. 20101/10000 passes: low. 50 tasks is the
// least for low, 49 none.
func TestDrElephantSpillBoundaries(t *testing.T) {
	cases := []struct {
		spilled, out int64
		tasks        int
		want         Severity
	}{
		{201, 100, 50, None},
		{20101, 10000, 50, Low},
		{20101, 10000, 49, None},
		{3, 0, 1000, Critical}, // spills with no output: Infinity
	}
	for _, c := range cases {
		m := drMetrics(map[model.Metric]int64{model.SpilledRecords: c.spilled, model.MapOutputRecords: c.out})
		if sev, _ := drRun(t, drNewMR().tasks(model.StageMap, c.tasks, 0, m).app, "drelephant-mapper-spill", nil); sev != c.want {
			t.Errorf("%d/%d over %d tasks: %v, want %v", c.spilled, c.out, c.tasks, sev, c.want)
		}
	}
}

// TestDrElephantMemoryBoundaries: a 2253 MiB container is just above
// 1.1 × 2048 = 2252.8 MiB (low gate), 2252 MiB is below; tasks using 1351
// MiB use 0.5996 of it (≤ 0.6: low). "${VAR}" indirection is followed; a
// container of another default size moves the gate.
func TestDrElephantMemoryBoundaries(t *testing.T) {
	m := drMetrics(map[model.Metric]int64{model.PhysicalMemoryBytes: 1351 * drMiB})
	mk := func() *drMRBuilder { return drNewMR().tasks(model.StageMap, 10, 1000, m) }
	if sev, f := drRun(t, mk().conf("mapreduce.map.memory.mb", "2253").app, "drelephant-mapper-memory", nil); sev != Low || evidence(t, f, "containerBytes") != 2253*drMiB {
		t.Errorf("2253 MiB: %v %+v, want low", sev, f.Evidence)
	}
	if sev, _ := drRun(t, mk().conf("mapreduce.map.memory.mb", "2252").app, "drelephant-mapper-memory", nil); sev != None {
		t.Errorf("2252 MiB: %v, want none", sev)
	}
	if sev, _ := drRun(t, mk().conf("mapreduce.map.memory.mb", "${mem}").conf("mem", "8192").app, "drelephant-mapper-memory", nil); sev != Critical {
		t.Errorf("${mem} = 8192: %v, want critical (1351/8192 = 0.16)", sev)
	}
	// No physical memory logged at all: unknown, not graded.
	if sev, _ := drRun(t, drNewMR().tasks(model.StageMap, 10, 1000, model.TaskMetrics{}).conf("mapreduce.map.memory.mb", "8192").app, "drelephant-mapper-memory", nil); sev != None {
		t.Errorf("no memory counter: %v, want none", sev)
	}
	p := DefaultDrElephantMapperMemoryParams
	p.ContainerMemoryDefaultMB = 4096 // gate now 4505.6 MiB
	if sev, _ := drRun(t, mk().conf("mapreduce.map.memory.mb", "4096").app, "drelephant-mapper-memory", p); sev != None {
		t.Errorf("4096 MiB default: %v, want none", sev)
	}
}

// TestDrElephantSpeedShuffleBoundaries: a median speed of exactly 50 MiB/s
// (1/2 of 100 MiB/s) over exactly 5 minutes is low; a 1-minute shuffle
// against 2 minutes of code (2 × 1 / 2 = 1) is low, 59.999 s is not.
func TestDrElephantSpeedShuffleBoundaries(t *testing.T) {
	m := drMetrics(map[model.Metric]int64{model.HDFSBytesRead: 50 * drMiB * 300})
	if sev, f := drRun(t, drNewMR().tasks(model.StageMap, 3, 5*drMinuteMs, m).app, "drelephant-mapper-speed", nil); sev != Low || evidence(t, f, "medianSpeedBytesPerSec") != 50*drMiB {
		t.Errorf("50 MiB/s: %v %+v, want low", sev, f.Evidence)
	}
	if sev, f := drRun(t, drReducePhases(10, drMinuteMs, 0, 2*drMinuteMs).app, "drelephant-shuffle-sort", nil); sev != Low || evidence(t, f, "shuffleRatio") != 1 {
		t.Errorf("1-minute shuffle: %v %+v, want low", sev, f.Evidence)
	}
	if sev, _ := drRun(t, drReducePhases(10, drMinuteMs-1, 0, 2*drMinuteMs).app, "drelephant-shuffle-sort", nil); sev != None {
		t.Errorf("59.999 s shuffle: %v, want none", sev)
	}
}
