package diagnose

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// TestWorkloadImbalance: two hosts with 2 slots each. h1 runs 6 tasks of
// 10 s (60 s, 30 s per slot), h2 runs 2 (10 s per slot) plus an ultrashort
// 0.5 s task that Algorithm 1 removes (under 0.1 of the 10 s median). The
// mean per-slot load is 20 s: h1 deviates +0.5, h2 -0.5, tilt degree 0.5
// (severe), and balancing would save 10 s.
func TestWorkloadImbalance(t *testing.T) {
	b := newMulti(model.Spark, 40, 2, 2)
	tasks := append(wave(1, 6, 2, 0, 10, 1, model.NodeLocal), wave(2, 2, 2, 0, 10, 1, model.NodeLocal)...)
	tasks = append(tasks, hbTask{host: 2, launch: 10, dur: 0.5, mib: 1})
	b.stage(0, 0, model.StageSpark, 0, tasks...)
	b.job(0, 0, 30, 0)
	fs := runOnly(b, "workload-imbalance")
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if f.RuleSeverity != Severe || f.Scope.Kind != ScopeNode || !slices.Equal(f.Scope.IDs, []string{"h1"}) {
		t.Errorf("finding %+v", f)
	}
	checkEvidence(t, f, map[string]float64{"tiltDegree": 0.5, "stage": 0, "nodes": 2, "overloadedNodes": 1, "underloadedNodes": 1,
		"meanSlotMs": 20_000, "maxSlotMs": 30_000, "excessMs": 10_000, "tasks": 8})

	// Balanced: 4 tasks on each host.
	b = newMulti(model.Spark, 40, 2, 2)
	b.stage(0, 0, model.StageSpark, 0, append(wave(1, 4, 2, 0, 10, 1, 0), wave(2, 4, 2, 0, 10, 1, 0)...)...)
	if fs := runOnly(b, "workload-imbalance"); len(fs) != 0 {
		t.Errorf("balanced stage reported: %+v", fs)
	}

	// Job level: two stages leaning opposite ways balance over the job
	// (two stage findings, none for the job); leaning the same way, the
	// job is imbalanced too.
	for _, same := range []bool{false, true} {
		b = newMulti(model.Spark, 80, 2, 2)
		b.stage(0, 0, model.StageSpark, 0, append(wave(1, 6, 2, 0, 10, 1, 0), wave(2, 2, 2, 0, 10, 1, 0)...)...)
		heavy, light := 2, 1
		if same {
			heavy, light = 1, 2
		}
		b.stage(1, 0, model.StageSpark, 40, append(wave(heavy, 6, 2, 40, 10, 1, 0), wave(light, 2, 2, 40, 10, 1, 0)...)...)
		fs := runOnly(b, "workload-imbalance")
		want := 2
		if same {
			want = 3
		}
		if len(fs) != want {
			t.Fatalf("same=%v: %d findings, want %d: %+v", same, len(fs), want, fs)
		}
		if same {
			job := slices.IndexFunc(fs, func(f Finding) bool { _, ok := evidenceOf(&f, "job"); return ok })
			checkEvidence(t, fs[max(0, job)], map[string]float64{"job": 0, "tiltDegree": 0.5, "meanSlotMs": 40_000, "maxSlotMs": 60_000})
		}
	}
}

// TestDataSkew: 9 tasks on 3 hosts, 3 each; h3's read 250 MiB, the others
// 100 MiB. The median task reads 100 MiB, so h3's three tasks are skewed
// (2.5x, moderate); per node and slot (4 each) h3 read 187.5 MiB against
// the median node's 75 MiB (2.5x, moderate).
func TestDataSkew(t *testing.T) {
	b := newMulti(model.Spark, 100, 3, 4)
	b.stage(0, 0, model.StageSpark, 0, append(append(wave(1, 3, 4, 0, 10, 100, 0), wave(2, 3, 4, 0, 10, 100, 0)...), wave(3, 3, 4, 0, 25, 250, 0)...)...)
	fs := runOnly(b, "data-skew")
	if len(fs) != 1 || len(fs[0].Symptoms) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	// One cause: the node's share of the data folds under the tasks'.
	task, node := fs[0], fs[0].Symptoms[0]
	if task.RuleSeverity != Moderate || task.Scope.Kind != ScopeTask || !slices.Equal(task.Scope.IDs, []string{"7", "8", "9"}) {
		t.Errorf("task finding %+v", task)
	}
	checkEvidence(t, task, map[string]float64{"maxDataRatio": 2.5, "maxBytes": 250 * oneMiB, "skewedTasks": 3, "tasks": 9,
		"medianBytes": 100 * oneMiB, "skewedTaskMsShare": 75.0 / 135, "skewedMedianMs": 25_000, "medianMs": 10_000})
	if node.RuleSeverity != Moderate || node.Scope.Kind != ScopeNode || !slices.Equal(node.Scope.IDs, []string{"h3"}) {
		t.Errorf("node finding %+v", node)
	}
	checkEvidence(t, node, map[string]float64{"maxNodeDataRatio": 2.5, "maxNodeBytes": 750 * oneMiB, "skewedNodes": 1, "nodes": 3, "medianNodeBytesPerSlot": 75 * oneMiB})

	// Even data: nothing. Skew below the 16 MiB gate: nothing.
	b = newMulti(model.Spark, 100, 3, 4)
	b.stage(0, 0, model.StageSpark, 0, append(append(wave(1, 3, 4, 0, 10, 100, 0), wave(2, 3, 4, 0, 10, 100, 0)...), wave(3, 3, 4, 0, 10, 100, 0)...)...)
	if fs := runOnly(b, "data-skew"); len(fs) != 0 {
		t.Errorf("even stage reported: %+v", fs)
	}
	b = newMulti(model.Spark, 100, 3, 4)
	b.stage(0, 0, model.StageSpark, 0, append(append(wave(1, 3, 4, 0, 10, 1, 0), wave(2, 3, 4, 0, 10, 1, 0)...), wave(3, 3, 4, 0, 10, 5, 0)...)...)
	if fs := runOnly(b, "data-skew"); len(fs) != 0 {
		t.Errorf("tiny skew reported: %+v", fs)
	}
}

// TestUnevenPlacement: three hosts with 4 slots. h1 and h2 run 4
// node-local tasks of 10 s each (10 s per slot); h3 runs two 20 s tasks
// (10 s per slot, but twice the median node's mean duration). In runtime
// space h1 and h2 sit at the median node (distance 0), h3 at distance 1:
// the Euclidean split makes h3 the outlier. Off-rack, its locality ratio
// is 1 (>= 0.5): it lacks the data; its 4 of 12 slots are 0.33 of the
// stage (severe).
func TestUnevenPlacement(t *testing.T) {
	build := func(locs ...model.Locality) *multiApp {
		b := newMulti(model.Spark, 100, 3, 4)
		tasks := append(wave(1, 4, 4, 0, 10, 100, model.NodeLocal), wave(2, 4, 4, 0, 10, 100, model.NodeLocal)...)
		for _, l := range locs {
			tasks = append(tasks, hbTask{host: 3, dur: 20, mib: 100, loc: l})
		}
		b.stage(0, 0, model.StageSpark, 0, tasks...)
		return b
	}
	fs := runOnly(build(model.AnyLocality, model.AnyLocality), "uneven-placement")
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if f.RuleSeverity != Severe || f.Scope.Kind != ScopeNode || !slices.Equal(f.Scope.IDs, []string{"h3"}) {
		t.Errorf("finding %+v", f)
	}
	checkEvidence(t, f, map[string]float64{"flaggedSlotShare": 1.0 / 3, "maxNodeRatio": 1, "outlierDistance": 1, "stage": 0, "outlierNodes": 1,
		"nodes": 3, "medianNodeSlotMs": 10_000, "medianNodeTaskMs": 10_000})
	// Rack-local and node-local: ratio 0.25, a slow node rather than missing data.
	if fs := runOnly(build(model.RackLocal, model.NodeLocal), "uneven-placement"); len(fs) != 0 {
		t.Errorf("mostly local outlier reported: %+v", fs)
	}
	// Slow but local: not a placement problem.
	if fs := runOnly(build(model.NodeLocal, model.NodeLocal), "uneven-placement"); len(fs) != 0 {
		t.Errorf("local outliers reported: %+v", fs)
	}
	// Underloaded instead of slow: h3 ran one 10 s off-rack task (2.5 s per
	// slot, a quarter of the median node's): distance 0.75, flagged.
	b := newMulti(model.Spark, 100, 3, 4)
	b.stage(0, 0, model.StageSpark, 0, append(append(wave(1, 4, 4, 0, 10, 100, model.NodeLocal), wave(2, 4, 4, 0, 10, 100, model.NodeLocal)...),
		hbTask{host: 3, dur: 10, mib: 100, loc: model.AnyLocality})...)
	fs = runOnly(b, "uneven-placement")
	if len(fs) != 1 || !slices.Equal(fs[0].Scope.IDs, []string{"h3"}) {
		t.Fatalf("underloaded node: %+v", fs)
	}
	checkEvidence(t, fs[0], map[string]float64{"outlierDistance": 0.75})
}

// TestSplitOutliers checks the exact 1-D two-cluster split.
func TestSplitOutliers(t *testing.T) {
	cut, lo, hi, ok := splitOutliers([]float64{1, 2, 3, 10, 11})
	if !ok || cut != 10 || lo != 2 || hi != 10.5 {
		t.Errorf("split = %v %v %v %v", cut, lo, hi, ok)
	}
	if _, _, _, ok := splitOutliers([]float64{5, 5, 5}); ok {
		t.Error("equal durations split")
	}
}

// TestStragglerTasks: 11 tasks on one host, nine of 10 s with 100 MiB; task
// 10 ran 40 s reading 400 MiB (data explains 10 s x 3 = 30 s, all its
// excess), task 11 ran 40 s with 25 s of GC. Median 10 s, max ratio 4
// (severe).
func TestStragglerTasks(t *testing.T) {
	b := newMulti(model.Spark, 100, 1, 12)
	tasks := wave(1, 9, 12, 0, 10, 100, model.NodeLocal)
	tasks = append(tasks, hbTask{host: 1, dur: 40, mib: 400, loc: model.NodeLocal})
	gc := hbTask{host: 1, dur: 40, mib: 100, loc: model.NodeLocal}
	gc.m[model.JVMGCTime] = 25_000
	tasks = append(tasks, gc)
	b.stage(0, 0, model.StageSpark, 0, tasks...)
	fs := runOnly(b, "straggler-tasks")
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if f.RuleSeverity != Severe || f.Scope.Kind != ScopeTask || !slices.Equal(f.Scope.IDs, []string{"10", "11"}) {
		t.Errorf("finding %+v", f)
	}
	checkEvidence(t, f, map[string]float64{"maxDurationRatio": 4, "maxExcessMs": 30_000, "stragglers": 2, "tasks": 11, "medianMs": 10_000,
		"maxMs": 40_000, "cause.dataSize": 1, "cause.gc": 1})
	// Even tasks: nothing; a 14 s task beside 10 s ones is under Th_D.
	b = newMulti(model.Spark, 100, 1, 12)
	b.stage(0, 0, model.StageSpark, 0, append(wave(1, 9, 12, 0, 10, 100, 0), hbTask{host: 1, dur: 14, mib: 100})...)
	if fs := runOnly(b, "straggler-tasks"); len(fs) != 0 {
		t.Errorf("no stragglers reported: %+v", fs)
	}
	// A GC straggler: the JVM advice, unless Photon ran the application.
	for _, photon := range []bool{false, true} {
		b = newMulti(model.Spark, 100, 1, 12)
		b.stage(0, 0, model.StageSpark, 0, append(wave(1, 9, 12, 0, 10, 100, model.NodeLocal), gc)...)
		b.app.Platform.Photon = photon
		fs = runOnly(b, "straggler-tasks")
		if len(fs) != 1 || strings.HasPrefix(fs[0].Recommendation, "Find the work Photon did not run") != photon ||
			slices.ContainsFunc(fs[0].Evidence, func(e Evidence) bool { return e.Name == "photon" }) != photon {
			t.Errorf("GC straggler, Photon %v: %+v", photon, fs)
		}
	}
}

// TestStragglerNode: three hosts run three tasks each with the same data;
// h3's take 30 s against 10 s elsewhere. The stage median is 10 s; h3's
// tasks run 3x it (moderate), unexplained by data, locality, GC, fetch
// wait or spill: the node itself. Its tasks are stragglers whose cause is
// the node.
func TestStragglerNode(t *testing.T) {
	b := newMulti(model.Spark, 100, 3, 4)
	b.stage(0, 0, model.StageSpark, 0, append(append(wave(1, 3, 4, 0, 10, 100, 0), wave(2, 3, 4, 0, 10, 100, 0)...), wave(3, 3, 4, 0, 30, 100, 0)...)...)
	fs := runOnly(b, "straggler-nodes")
	if len(fs) != 1 {
		t.Fatalf("findings: %+v", fs)
	}
	f := fs[0]
	if f.RuleSeverity != Moderate || !slices.Equal(f.Scope.IDs, []string{"h3"}) || !contains(f.Summary, "likeliest cause: node") {
		t.Errorf("finding %+v", f)
	}
	checkEvidence(t, f, map[string]float64{"medianDurationRatio": 3, "tasks": 3, "excessMs": 60_000, "explainedByNamedCausesMs": 0, "nodes": 3})
	ts := runOnly(b, "straggler-tasks")
	if len(ts) != 1 {
		t.Fatalf("task findings: %+v", ts)
	}
	checkEvidence(t, ts[0], map[string]float64{"stragglers": 3, "cause.node": 3})
	// Equal hosts: no straggler node.
	b = newMulti(model.Spark, 100, 3, 4)
	b.stage(0, 0, model.StageSpark, 0, append(append(wave(1, 3, 4, 0, 10, 100, 0), wave(2, 3, 4, 0, 10, 100, 0)...), wave(3, 3, 4, 0, 10, 100, 0)...)...)
	if fs := runOnly(b, "straggler-nodes"); len(fs) != 0 {
		t.Errorf("even hosts reported: %+v", fs)
	}
}

// TestStragglerNodeUncertain: four hosts run tasks of 8, 10 and 12.5 s
// (the same data), h5 runs its three 1.6x or 3x slower. The stage median
// is 10 s, so h5's median ratio is 1.6 or 3. The pooled log spread is
// 1.4826 × ln 1.25 (every non-middle attempt deviates ln 1.25 from its
// host's median; the evidence gives its exponential, attemptSpread), and the interval is ratio × exp(±1.645 × 1.2533 ×
// spread / √3): 1.08–2.37 around 1.6, which reaches below Th_D (uncertain,
// low), and 2.02–4.45 around 3 (moderate).
func TestStragglerNodeUncertain(t *testing.T) {
	spread := 1.4826 * math.Log(1.25)
	w := 1.645 * 1.2533 * spread / math.Sqrt(3)
	for _, c := range []struct {
		ratio     float64
		sev       Severity
		uncertain bool
	}{{1.6, Low, true}, {3, Moderate, false}} {
		b := newMulti(model.Spark, 200, 5, 4)
		var tasks []hbTask
		for h := 1; h <= 5; h++ {
			f := 1.0
			if h == 5 {
				f = c.ratio
			}
			for _, d := range []float64{8, 10, 12.5} {
				tasks = append(tasks, hbTask{host: h, dur: d * f, mib: 100})
			}
		}
		b.stage(0, 0, model.StageSpark, 0, tasks...)
		fs := runOnly(b, "straggler-nodes")
		if len(fs) != 1 || !slices.Equal(fs[0].Scope.IDs, []string{"h5"}) {
			t.Fatalf("ratio %v: findings %+v", c.ratio, fs)
		}
		f := fs[0]
		if f.RuleSeverity != c.sev || contains(f.Summary, "Uncertain") != c.uncertain || contains(f.Recommendation, "Confirm before acting") != c.uncertain {
			t.Errorf("ratio %v: severity %v, summary %q, recommendation %q", c.ratio, f.RuleSeverity, f.Summary, f.Recommendation)
		}
		checkEvidence(t, f, map[string]float64{"medianDurationRatio": c.ratio, "tasks": 3, "attemptSpread": math.Exp(spread),
			"medianDurationRatioLow": c.ratio * math.Exp(-w), "medianDurationRatioHigh": c.ratio * math.Exp(w)})
	}
}
