package diagnose

import (
	"strconv"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// The cases below are ported from Dr. Elephant's own unit tests
// (test/com/linkedin/drelephant/mapreduce/heuristics/*Test.java): the same
// inputs and expected severities, built as clusterlens models. Each of
// those tests adds one "non-sampled task" without time or counter data; it
// is an attempt still running here (unsampled). Where a test spreads input
// over the HDFS, S3, S3A and S3N counters, all of it is HDFS bytes here
// (clusterlens's model has no S3 counters; Dr. Elephant sums them).

const drUnit = drMiB // UNITSIZE = HDFS_BLOCK_SIZE / 64 with the default 64 MiB block

// TestDrElephantPortedSkew: MapperSkewHeuristicTest and
// ReducerSkewHeuristicTest. analyzeJob(200, 200, 1 MiB, 100 MiB): groups
// 200 × 1 MiB and 200 × 100 MiB, deviation (100−1)/1 = 99 ≥ 16, group B
// 100 MiB ≥ 64 MiB, group A 200 tasks ≥ 200: critical; 10 vs 100: 90/10 = 9
// (severe); 20: 80/20 = 4 (moderate); 30: 70/30 = 2 (low); 50: 50/50 = 1
// (none). Small files: 4/1 = 4 but 5 MiB < 8 MiB (1/8 block): none. Small
// tasks: 5 in group A < 10: none. The time cases are the same in seconds
// (1000 s units).
func TestDrElephantPortedSkew(t *testing.T) {
	cases := []struct {
		name         string
		small, large int
		a, b         int64
		time         bool
		want         Severity
	}{
		{"testCritical", 200, 200, 1 * drUnit, 100 * drUnit, false, Critical},
		{"testSevere", 200, 200, 10 * drUnit, 100 * drUnit, false, Severe},
		{"testModerate", 200, 200, 20 * drUnit, 100 * drUnit, false, Moderate},
		{"testLow", 200, 200, 30 * drUnit, 100 * drUnit, false, Low},
		{"testNone", 200, 200, 50 * drUnit, 100 * drUnit, false, None},
		{"testSmallFiles", 200, 200, 1 * drUnit, 5 * drUnit, false, None},
		{"testSmallTasks", 5, 5, 10 * drUnit, 100 * drUnit, false, None},
		{"testCriticalTime", 200, 200, 1_000_000, 100_000_000, true, Critical},
		{"testSevereTime", 200, 200, 10_000_000, 100_000_000, true, Severe},
		{"testModerateTime", 200, 200, 20_000_000, 100_000_000, true, Moderate},
		{"testLowTime", 200, 200, 30_000_000, 100_000_000, true, Low},
		{"testNoneTime", 200, 200, 50_000_000, 100_000_000, true, None},
		{"testSmallTasksTime", 5, 5, 10_000_000, 100_000_000, true, None},
	}
	for _, kind := range []model.StageKind{model.StageMap, model.StageReduce} {
		name, counter := "drelephant-mapper-skew", model.HDFSBytesRead
		if kind == model.StageReduce {
			name, counter = "drelephant-reducer-skew", model.ReduceShuffleBytes
		}
		for _, c := range cases {
			b := drNewMR()
			if c.time {
				b.tasks(kind, c.small, c.a, model.TaskMetrics{}).tasks(kind, c.large, c.b, model.TaskMetrics{})
			} else {
				b.tasks(kind, c.small, 0, drMetrics(map[model.Metric]int64{counter: c.a})).tasks(kind, c.large, 0, drMetrics(map[model.Metric]int64{counter: c.b}))
			}
			b.unsampled(kind)
			if got, f := drRun(t, b.app, name, nil); got != c.want {
				t.Errorf("%s %s: severity %v, want %v (%+v)", name, c.name, got, c.want, f.Evidence)
			}
		}
	}
}

// TestDrElephantPortedGC: MapperGCHeuristicTest and ReducerGCHeuristicTest,
// 100 tasks. Runtime 1 000 000 ms (16.7 min ≥ 15: critical gate), CPU
// 50 000 ms: GC 2000 → 0.04 (critical), 1500 → 0.03 (severe), 1000 → 0.02
// (moderate), 300 → 0.006 (none); runtime 100 000 ms (1.7 min < 5): none.
func TestDrElephantPortedGC(t *testing.T) {
	cases := []struct {
		name           string
		run, cpu, gcMs int64
		want           Severity
	}{
		{"testGCCritical", 1_000_000, 50_000, 2000, Critical},
		{"testGCSevere", 1_000_000, 50_000, 1500, Severe},
		{"testGCModerate", 1_000_000, 50_000, 1000, Moderate},
		{"testGCNone", 1_000_000, 50_000, 300, None},
		{"testShortTasksNone", 100_000, 50_000, 2000, None},
	}
	for _, kind := range []model.StageKind{model.StageMap, model.StageReduce} {
		name := "drelephant-mapper-gc"
		if kind == model.StageReduce {
			name = "drelephant-reducer-gc"
		}
		for _, c := range cases {
			b := drNewMR().tasks(kind, 100, c.run, drMetrics(map[model.Metric]int64{model.CPUMillis: c.cpu, model.JVMGCTime: c.gcMs})).unsampled(kind)
			if got, _ := drRun(t, b.app, name, nil); got != c.want {
				t.Errorf("%s %s: severity %v, want %v", name, c.name, got, c.want)
			}
		}
	}
}

// TestDrElephantPortedTime: MapperTimeHeuristicTest and
// ReducerTimeHeuristicTest; every job has one more (unsampled) task than
// its runs. Long runs are graded whatever the task count (120 min critical,
// 60 min severe); 1-minute runs are critical for the run time but lowered
// to the task count: 1001 ≥ 1000 critical, 501 ≥ 500 severe, 102 ≥ 101
// moderate, 51 ≥ 50 low, 6 or 3 none.
func TestDrElephantPortedTime(t *testing.T) {
	cases := []struct {
		name  string
		tasks int
		run   int64
		want  Severity
	}{
		{"testLongRuntimeTasksCritical", 10, 120 * drMinuteMs, Critical},
		{"testLongRuntimeTasksCriticalMore", 1000, 120 * drMinuteMs, Critical},
		{"testLongRuntimeTasksSevere", 10, 60 * drMinuteMs, Severe},
		{"testLongRuntimeTasksSevereMore", 1000, 60 * drMinuteMs, Severe},
		{"testShortRuntimeTasksCritical", 1000, 1 * drMinuteMs, Critical},
		{"testShortRuntimeTasksSevere", 500, 1 * drMinuteMs, Severe},
		{"testShortRuntimeTasksModerate", 101, 1 * drMinuteMs, Moderate},
		{"testShortRuntimeTasksLow", 50, 1 * drMinuteMs, Low},
		{"testShortRuntimeTasksNone", 5, 1 * drMinuteMs, None},
		{"testShortRunetimeNone (reducer)", 2, 1 * drMinuteMs, None},
	}
	for _, name := range []string{"drelephant-mapper-time", "drelephant-reducer-time"} {
		kind := model.StageMap
		if name == "drelephant-reducer-time" {
			kind = model.StageReduce
		}
		for _, c := range cases {
			b := drNewMR().tasks(kind, c.tasks, c.run, drMetrics(map[model.Metric]int64{model.HDFSBytesRead: 4 * drUnit})).unsampled(kind)
			if got, _ := drRun(t, b.app, name, nil); got != c.want {
				t.Errorf("%s %s: severity %v, want %v", name, c.name, got, c.want)
			}
		}
	}
}

// TestDrElephantPortedSpeed: MapperSpeedHeuristicTest, 100 tasks of 120
// minutes reading k MiB/s (speed = 1000 × bytes / ms): limits are 1/2, 1/4,
// 1/8, 1/32 of 100 MiB/s = 50, 25, 12.5, 3.125 MiB/s, so 1 → critical,
// 4 → severe, 13 → moderate, 50 → low, 51 → none; 2-minute tasks are below
// the 5-minute gate: none.
func TestDrElephantPortedSpeed(t *testing.T) {
	cases := []struct {
		name string
		run  int64
		k    int64
		want Severity
	}{
		{"testCritical", 120 * drMinuteMs, 1, Critical},
		{"testSevere", 120 * drMinuteMs, 4, Severe},
		{"testModerate", 120 * drMinuteMs, 13, Moderate},
		{"testLow", 120 * drMinuteMs, 50, Low},
		{"testNone", 120 * drMinuteMs, 51, None},
		{"testShortTask", 2 * drMinuteMs, 1, None},
	}
	for _, c := range cases {
		bytes := c.k * (c.run * drMiB / 1000)
		b := drNewMR().tasks(model.StageMap, 100, c.run, drMetrics(map[model.Metric]int64{model.HDFSBytesRead: bytes})).unsampled(model.StageMap)
		if got, _ := drRun(t, b.app, "drelephant-mapper-speed", nil); got != c.want {
			t.Errorf("%s: severity %v, want %v", c.name, got, c.want)
		}
	}
}

// TestDrElephantPortedSpill: MapperSpillHeuristicTest: spilled / output
// records 3.0 with 1001 tasks critical, 2.5 severe, 2.3 moderate, 2.1 low,
// 1.0 none; 3.0 with 11 tasks (< 50) none.
func TestDrElephantPortedSpill(t *testing.T) {
	cases := []struct {
		name            string
		spilled, output int64
		tasks           int
		want            Severity
	}{
		{"testCritical", 3000, 1000, 1000, Critical},
		{"testSevere", 2500, 1000, 1000, Severe},
		{"testModerate", 2300, 1000, 1000, Moderate},
		{"testLow", 2100, 1000, 1000, Low},
		{"testNone", 1000, 1000, 1000, None},
		{"testSmallNumTasks", 3000, 1000, 10, None},
	}
	for _, c := range cases {
		b := drNewMR().tasks(model.StageMap, c.tasks, 0, drMetrics(map[model.Metric]int64{model.SpilledRecords: c.spilled, model.MapOutputRecords: c.output})).unsampled(model.StageMap)
		if got, _ := drRun(t, b.app, "drelephant-mapper-spill", nil); got != c.want {
			t.Errorf("%s: severity %v, want %v", c.name, got, c.want)
		}
	}
}

// TestDrElephantPortedMemory: MapperMemoryHeuristicTest and
// ReducerMemoryHeuristicTest, 100 tasks. 8192 MiB containers (4 × the 2048
// default ≥ 2.5×: critical gate): 2048 MiB used → 0.25 (critical), 3072 →
// 0.375 (severe), 4096 → 0.5 (moderate), 6144 → 0.75 (none); default
// 2048 MiB containers (< 1.1 × 2048) pass whatever the use.
func TestDrElephantPortedMemory(t *testing.T) {
	cases := []struct {
		name            string
		used, container int64
		want            Severity
	}{
		{"testLargeContainerSizeCritical", 2048, 8192, Critical},
		{"testLargeContainerSizeSevere", 3072, 8192, Severe},
		{"testLargeContainerSizeModerate", 4096, 8192, Moderate},
		{"testLargeContainerSizeNone", 6144, 8192, None},
		{"testDefaultContainerNone", 256, 2048, None},
		{"testDefaultContainerNoneMore", 1024, 2048, None},
	}
	for _, kind := range []model.StageKind{model.StageMap, model.StageReduce} {
		name, key := "drelephant-mapper-memory", "mapreduce.map.memory.mb"
		if kind == model.StageReduce {
			name, key = "drelephant-reducer-memory", "mapreduce.reduce.memory.mb"
		}
		for _, c := range cases {
			b := drNewMR().tasks(kind, 100, 0, drMetrics(map[model.Metric]int64{model.PhysicalMemoryBytes: c.used * drMiB})).unsampled(kind).
				conf(key, strconv.FormatInt(c.container, 10))
			if got, _ := drRun(t, b.app, name, nil); got != c.want {
				t.Errorf("%s %s: severity %v, want %v", name, c.name, got, c.want)
			}
		}
	}
}

// TestDrElephantPortedShuffleSort: ShuffleSortHeuristicTest, 100 reducers.
// A 30-minute shuffle (critical by length) against 5, 10, 20, 40, 80
// minutes of reduce code: 2 × 30 / code = 12, 6, 3, 1, 0 → critical,
// severe, moderate, low, none; the same for a 30-minute sort; a 30-second
// shuffle or sort is under the 1-minute gate: none.
func TestDrElephantPortedShuffleSort(t *testing.T) {
	cases := []struct {
		name                string
		shuffle, sort, code int64
		want                Severity
	}{
		{"testLongShuffleCritical", 30 * drMinuteMs, 0, 5 * drMinuteMs, Critical},
		{"testLongShuffleSevere", 30 * drMinuteMs, 0, 10 * drMinuteMs, Severe},
		{"testLongShuffleModerate", 30 * drMinuteMs, 0, 20 * drMinuteMs, Moderate},
		{"testLongShuffleLow", 30 * drMinuteMs, 0, 40 * drMinuteMs, Low},
		{"testLongShuffleNone", 30 * drMinuteMs, 0, 80 * drMinuteMs, None},
		{"testLongSortCritical", 0, 30 * drMinuteMs, 5 * drMinuteMs, Critical},
		{"testLongSortSevere", 0, 30 * drMinuteMs, 10 * drMinuteMs, Severe},
		{"testLongSortModerate", 0, 30 * drMinuteMs, 20 * drMinuteMs, Moderate},
		{"testLongSortLow", 0, 30 * drMinuteMs, 40 * drMinuteMs, Low},
		{"testLongSortNone", 0, 30 * drMinuteMs, 80 * drMinuteMs, None},
		{"testShortShuffle", drMinuteMs / 2, 0, drMinuteMs / 2, None},
		{"testShortSort", 0, drMinuteMs / 2, drMinuteMs / 2, None},
	}
	for _, c := range cases {
		b := drReducePhases(100, c.shuffle, c.sort, c.code)
		if got, f := drRun(t, b.app, "drelephant-shuffle-sort", nil); got != c.want {
			t.Errorf("%s: severity %v, want %v (%+v)", c.name, got, c.want, f.Evidence)
		}
	}
}

// drReducePhases is a job with n reducers, launched at origin, that shuffle,
// sort and run reduce code for the given milliseconds, plus one unsampled
// reducer.
func drReducePhases(n int, shuffle, sort, code int64) *drMRBuilder {
	m := drMetrics(map[model.Metric]int64{model.ShufflePhaseFinish: origin + shuffle, model.SortPhaseFinish: origin + shuffle + sort})
	return drNewMR().tasks(model.StageReduce, n, shuffle+sort+code, m).unsampled(model.StageReduce)
}
