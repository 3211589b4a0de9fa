package diagnose

import (
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// TestSchedulingGapIdleWhileWaiting: one executor with 4 slots and a stage
// of 8 tasks of 10 s submitted at 0 but launched one every 5 s. Idle slots
// while tasks waited: 3x5 s, then 2x5 s five times, then 1x5 s = 70 slot-s
// over 35 s of wall time, of 4x45 = 180 slot-s allocated (0.389, severe);
// 7 launches in 35 s is 0.6 per 3 s heartbeat: few per heartbeat.
func TestSchedulingGapIdleWhileWaiting(t *testing.T) {
	b := newMulti(model.Spark, 45, 1, 4)
	var tasks []hbTask
	for k := 0; k < 8; k++ {
		tasks = append(tasks, hbTask{host: 1, launch: float64(5 * k), dur: 10, mib: 1})
	}
	b.stage(0, 0, model.StageSpark, 0, tasks...)
	b.job(0, 0, 45, 0)
	fs := runOnly(b, "scheduling-gap")
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	// Spark offers tasks to executors without MapReduce's heartbeats: the
	// heartbeat diagnosis is not made.
	if f.RuleSeverity != Severe || f.Scope.Kind != ScopeApplication || contains(f.Summary, "Few tasks are launched per heartbeat") {
		t.Errorf("finding %+v", f)
	}
	checkEvidence(t, f, map[string]float64{"idleWhileWaitingShare": 70.0 / 180, "idleWhileWaitingSlotMs": 70_000, "idleWhileWaitingWallMs": 35_000,
		"allocatedSlotMs": 180_000, "launchesWhileIdle": 7, "launchesPerHeartbeat": 7 / (35.0 / 3), "waitingTasks": 7})

	// Two full waves launched at once: no gap.
	b = newMulti(model.Spark, 20, 1, 4)
	b.stage(0, 0, model.StageSpark, 0, wave(1, 8, 4, 0, 10, 1, 0)...)
	if fs := runOnly(b, "scheduling-gap"); len(fs) != 0 {
		t.Errorf("packed stage reported: %+v", fs)
	}
}

// TestSchedulingGapSlotWait: delay scheduling, not a scheduling gap. Host 1
// (2 slots) runs 8 tasks of 20 s back to back, each waiting one launched the
// moment a full executor freed a slot (the tasks wait for their cached
// partitions there), while host 2's 2 slots sit idle for 60 s. The 6 tasks
// that waited are slot waits: no finding, however long host 2 idled. The
// same launches on an executor that had a free slot all along are a gap.
func TestSchedulingGapSlotWait(t *testing.T) {
	b := newMulti(model.Spark, 80, 2, 2)
	b.stage(0, 0, model.StageSpark, 0, append(wave(1, 8, 2, 0, 20, 1, model.ProcessLocal), hbTask{host: 2, launch: 0, dur: 20, mib: 1})...)
	b.job(0, 0, 80, 0)
	if fs := runOnly(b, "scheduling-gap"); len(fs) != 0 {
		t.Errorf("delay-scheduling waits reported as a scheduling gap: %+v", fs)
	}
	// Host 1 with 4 slots, 2 used: launches at slot frees on an executor
	// that was not full are the scheduler's gap.
	b = newMulti(model.Spark, 80, 2, 4)
	b.stage(0, 0, model.StageSpark, 0, append(wave(1, 8, 2, 0, 20, 1, model.ProcessLocal), hbTask{host: 2, launch: 0, dur: 20, mib: 1})...)
	b.job(0, 0, 80, 0)
	fs := runOnly(b, "scheduling-gap")
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	checkEvidence(t, fs[0], map[string]float64{"waitingTasks": 6, "slotWaitTasks": 0})
}

// mrJob builds a MapReduce job of 50 s: 4 maps of 20 s on h1 and h2 (two
// each, at once) and one reduce on h2 launched at reduceAt that ends its
// shuffle at 35 s, its sort at 40 s and finishes at 45 s.
func mrJob(reduceAt float64) *multiApp {
	b := newMulti(model.MapReduce, 50, 2, 0)
	b.app.ID = "job_1"
	b.stage(0, -1, model.StageMap, 0, append(wave(1, 2, 2, 0, 20, 64, model.NodeLocal), wave(2, 2, 2, 0, 20, 64, model.NodeLocal)...)...)
	r := hbTask{host: 2, launch: reduceAt, dur: 45 - reduceAt}
	r.m[model.ReduceShuffleBytes] = 1 << 30 // 1 GiB: a copy, not latency
	r.m[model.ShufflePhaseFinish] = ms(35)
	r.m[model.SortPhaseFinish] = ms(40)
	b.stage(1, -1, model.StageReduce, reduceAt, r)
	return b
}

// TestSchedulingGapSerialized: the reduce launched at 25 s, 5 s after the
// last map: its 10 s shuffle overlapped none of the 20 s map stage; 10 s
// of 50 s could overlap (0.2, severe).
func TestSchedulingGapSerialized(t *testing.T) {
	fs := runOnly(mrJob(25), "scheduling-gap")
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if f.RuleSeverity != Severe || f.Scope.IDs[0] != "job_1" {
		t.Errorf("finding %+v", f)
	}
	checkEvidence(t, f, map[string]float64{"serializedShare": 0.2, "overlappableMs": 10_000, "reduceStartAfterMapsMs": 5000, "shuffleMs": 10_000, "mapStageMs": 20_000})
	if fs := runOnly(mrJob(10), "scheduling-gap"); len(fs) != 0 {
		t.Errorf("overlapping reduce reported: %+v", fs)
	}
}

// TestShuffleGapMapReduce: the reduce launched at 10 s, during the maps;
// the last map ended at 20 s and the shuffle at 35 s: a 15 s gap, 0.3 of
// the 50 s job (severe). The reduce's slot time: 10 s waiting for maps,
// 15 s copying after them, 5 s merge/sort, 5 s reduce.
func TestShuffleGapMapReduce(t *testing.T) {
	fs := runOnly(mrJob(10), "shuffle-gap")
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if f.RuleSeverity != Severe || f.Scope.Kind != ScopeApplication {
		t.Errorf("finding %+v", f)
	}
	checkEvidence(t, f, map[string]float64{"gapShare": 0.3, "gapMs": 15_000, "jobMs": 50_000, "firstWaveReduces": 1,
		"shuffleWaitSlotMs": 10_000, "copyAfterMapsSlotMs": 15_000, "sortSlotMs": 5000, "reduceSlotMs": 5000})
	// The same gap for a few bytes is the reduces learning late that the
	// maps ended: event latency, not a copy to speed up.
	b := mrJob(10)
	b.app.Stages[1].SetTaskMetrics(0, &model.TaskMetrics{model.ShufflePhaseFinish: ms(35), model.SortPhaseFinish: ms(40), model.ReduceShuffleBytes: 336})
	if fs := runOnly(b, "shuffle-gap"); len(fs) != 1 || !contains(fs[0].Summary, "waiting, not copying") || contains(fs[0].Recommendation, "parallelcopies") {
		t.Errorf("a 336-byte shuffle: %+v", fs)
	}
}

// TestShuffleGapSpark: job 0 runs a map stage (4 tasks, 0-20 s) and a
// reduce stage whose 4 tasks of 10 s (20-30 s) each waited 8 s for shuffle
// fetches: 32 slot-s over 4 slots, 8 s of the 40 s job (0.2, severe).
// Without fetch wait there is no gap.
func TestShuffleGapSpark(t *testing.T) {
	build := func(waitMs int64) *multiApp {
		b := newMulti(model.Spark, 40, 1, 4)
		b.stage(0, 0, model.StageSpark, 0, wave(1, 4, 4, 0, 20, 100, model.NodeLocal)...)
		var red []hbTask
		for _, t := range wave(1, 4, 4, 20, 10, 0, model.NodeLocal) {
			t.m[model.ShuffleFetchWaitTime] = waitMs
			t.m[model.ShuffleRemoteBytesRead] = 50 * oneMiB
			red = append(red, t)
		}
		b.stage(1, 0, model.StageSpark, 20, red...).ParentIDs = []int32{0}
		b.job(0, 0, 40, 0, 1)
		return b
	}
	fs := runOnly(build(8000), "shuffle-gap")
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if f.RuleSeverity != Severe || f.Scope.Kind != ScopeStage || f.Scope.IDs[0] != "1" {
		t.Errorf("finding %+v", f)
	}
	checkEvidence(t, f, map[string]float64{"gapShare": 0.2, "gapMs": 8000, "shuffleWaitSlotMs": 32_000, "taskSlotMs": 40_000, "slots": 4, "jobMs": 40_000})
	if fs := runOnly(build(0), "shuffle-gap"); len(fs) != 0 {
		t.Errorf("no fetch wait reported: %+v", fs)
	}
}
