package diagnose

import (
	"math"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// only runs one detector with its defaults (or p) on the application.
func only(t *testing.T, b *appBuilder, name string, p any) []Finding {
	t.Helper()
	opts := Options{Only: []string{name}}
	if p != nil {
		opts.Params = map[string]any{name: p}
	}
	if err := Validate(opts); err != nil {
		t.Fatal(err)
	}
	return Run(b.app, opts)
}

// evidence returns the named evidence of f.
func evidence(t *testing.T, f Finding, name string) float64 {
	t.Helper()
	for _, e := range f.Evidence {
		if e.Name == name {
			return e.Value
		}
	}
	t.Fatalf("%s: no evidence %q in %+v", f.ID, name, f.Evidence)
	return 0
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestDriverBound: a 600 s application with one 60 s stage from 100 s: the
// driver worked alone 540 s (share 0.9, critical) in two gaps, the longest
// 440 s; 4 cores idle for 540 s waste 2160 core-s.
func TestDriverBound(t *testing.T) {
	b := newApp(600, 1, 4).job(0, nil, 100, 4, repeat(4, 60)...)
	fs := only(t, b, "driver-bound", nil)
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if f.RuleSeverity != Critical || f.Scope.Kind != ScopeApplication || f.Scope.IDs[0] != "app-test" {
		t.Errorf("finding %+v", f)
	}
	for name, want := range map[string]float64{"driverShare": 0.9, "driverMs": 540_000, "longestDriverGapMs": 440_000, "driverGaps": 2, "driverCoreMsWasted": 2_160_000, "criticalPathAppMs": 600_000} {
		if got := evidence(t, f, name); !near(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// A short driver time is below the default gate; a stage filling the run is not driver-bound.
	if fs := only(t, newApp(100, 1, 4).job(0, nil, 10, 4, repeat(4, 60)...), "driver-bound", nil); len(fs) != 0 {
		t.Errorf("40 s of driver time reported: %+v", fs)
	}
	if fs := only(t, newApp(600, 1, 4).job(0, nil, 0, 4, repeat(4, 590)...), "driver-bound", nil); len(fs) != 0 {
		t.Errorf("executor-bound application reported: %+v", fs)
	}
}

// TestTooManyExecutors: 10 executors x 4 cores (40 slots) for one wave of 8
// tasks of 600 s. At 20% (8 slots) the replay still takes 600 s; at 10% (4
// slots) 1200 s. So 80% of the slots can go (critical), saving
// 40x600 - 8x600 = 19200 core-s (5.3 core-hours, above the 1 core-hour gate).
func TestTooManyExecutors(t *testing.T) {
	b := newApp(600, 10, 4).job(0, nil, 0, 40, repeat(8, 600)...)
	fs := only(t, b, "too-many-executors", nil)
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if f.RuleSeverity != Critical {
		t.Errorf("severity %v, want critical", f.RuleSeverity)
	}
	for name, want := range map[string]float64{"removableShare": 0.8, "slotsRecorded": 40, "slotsSuggested": 8, "executorsSuggested": 2, "appMsSuggested": 600_000, "coreMsSaved": 19_200_000, "slowdown": 0} {
		if got := evidence(t, f, name); !near(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if !contains(f.Recommendation, "about 2 executors") {
		t.Errorf("recommendation %q", f.Recommendation)
	}
	// On Databricks the executors are the cluster's workers.
	b.app.Platform = model.Platform{Name: model.PlatformDatabricks, Cluster: model.Cluster{WorkerNodeType: "m5.4xlarge", Workers: 10}}
	if fs := only(t, b, "too-many-executors", nil); len(fs) != 1 || !contains(fs[0].Recommendation, "about 2 workers (m5.4xlarge), 8 task slots (Databricks runs one executor per worker): set the cluster's number of workers to 2") {
		t.Errorf("on Databricks: %+v", fs)
	}
	// A full cluster: 40 tasks on 40 slots; 90% would already be slower.
	if fs := only(t, newApp(600, 10, 4).job(0, nil, 0, 40, repeat(40, 600)...), "too-many-executors", nil); len(fs) != 0 {
		t.Errorf("busy cluster reported: %+v", fs)
	}
	// The same shape at a tenth of the length saves 0.53 core-hours: below the gate.
	if fs := only(t, newApp(60, 10, 4).job(0, nil, 0, 40, repeat(8, 60)...), "too-many-executors", nil); len(fs) != 0 {
		t.Errorf("trivial saving reported: %+v", fs)
	}
}

// TestTooFewExecutors: 1 executor x 2 cores, 40 tasks of 10 s: 20 waves,
// 200 s. At 200% (4 slots) 100 s: gain 0.5 (severe). The fastest setting is
// 500% (10 slots, 40 s); the fewest within 5% of it is 500% too.
func TestTooFewExecutors(t *testing.T) {
	b := newApp(200, 1, 2).job(0, nil, 0, 2, repeat(40, 10)...)
	fs := only(t, b, "too-few-executors", nil)
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if f.RuleSeverity != Severe {
		t.Errorf("severity %v, want severe", f.RuleSeverity)
	}
	for name, want := range map[string]float64{"gainShare": 0.5, "appMsMoreExecutors": 100_000, "percentSuggested": 500, "appMsSuggested": 40_000, "executorsSuggested": 5} {
		if got := evidence(t, f, name); !near(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// Its last job cancelled, the run's length was someone's choice: the
	// same gain is uncertain and at most low.
	c := newApp(200, 1, 2).job(0, nil, 0, 2, repeat(40, 10)...)
	j := c.app.Jobs[len(c.app.Jobs)-1]
	j.Status, j.Failure = model.JobFailed, "Job 0 cancelled as part of cancellation of all jobs"
	if fs := only(t, c, "too-few-executors", nil); len(fs) != 1 || fs[0].Severity != Low || evidence(t, fs[0], "uncertain") != 1 {
		t.Errorf("cancelled run: %+v", fs)
	}
	// With the gain graded from 300% instead, the gain is 1-70/200 = 0.65: critical.
	fs = only(t, b, "too-few-executors", TooFewExecutorsParams{Percent: 300, Gain: DefaultTooFewExecutorsParams.Gain, Tolerance: 0.05})
	if len(fs) != 1 || fs[0].RuleSeverity != Critical || !near(evidence(t, fs[0], "gainShare"), 0.65) {
		t.Errorf("at 300%%: %+v", fs)
	}
}

// TestCriticalStageTail: job 0 runs 10 tasks on 10 slots, nine of 1 s and one
// of 100 s; job 1 (20 s) follows at 110 s; the application lasts 200 s.
// Stage 0 is on the critical path with skew 100 and a 99 s tail: 49.5% of
// the run (critical). Stage 1 has no tail.
func TestCriticalStageTail(t *testing.T) {
	b := newApp(200, 10, 1).job(0, nil, 0, 10, append(repeat(9, 1), 100)...).job(1, nil, 110, 10, repeat(10, 20)...)
	fs := only(t, b, "critical-stage-tail", nil)
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if f.RuleSeverity != Critical || f.Scope.Kind != ScopeStage || f.Scope.IDs[0] != "0" {
		t.Errorf("finding %+v", f)
	}
	for name, want := range map[string]float64{"tailShare": 0.495, "taskSkew": 100, "tailMs": 99_000, "maxTaskMs": 100_000, "medianTaskMs": 1000, "taskStageSkew": 1} {
		if got := evidence(t, f, name); !near(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}

// TestLowParallelism: 10 executors x 4 cores (40 slots) and one stage of 4
// tasks of 100 s in a 100 s application: the stage left 40x100 - 4x100 =
// 3600 core-s idle of 4000 available (share 0.9, critical); ratio 0.1. The
// advice is 3 x 40 = 120 partitions.
func TestLowParallelism(t *testing.T) {
	b := newApp(100, 10, 4).job(0, nil, 0, 40, repeat(4, 100)...)
	fs := only(t, b, "low-parallelism", nil)
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if f.RuleSeverity != Critical {
		t.Errorf("severity %v", f.RuleSeverity)
	}
	for name, want := range map[string]float64{"idleShare": 0.9, "parallelismRatio": 0.1, "coreMsWasted": 3_600_000, "slots": 40} {
		if got := evidence(t, f, name); !near(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if want := "about 120 partitions"; !contains(f.Recommendation, want) {
		t.Errorf("recommendation %q lacks %q", f.Recommendation, want)
	}
}
