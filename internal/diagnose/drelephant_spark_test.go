package diagnose

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/shs"
)

// The first tests port Dr. Elephant's own Spark heuristic tests
// (test/com/linkedin/drelephant/spark/heuristics/*Test.scala): the same
// REST data (executor summaries, jobs, stages), thresholds and expected
// severities. The rest run the detectors end to end on hand-built
// applications, whose REST view internal/shs computes.

// TestDrElephantPortedExecutors: ExecutorsHeuristicTest with thresholds
// 1.414, 2, 4, 16 and ignore limits 4 000 000 bytes and 4 000 001 ms. Four
// executors with metrics 1, 2, 3, 4 million (+0…4): medians are
// (2 000 00x + 3 000 00x) / 2 = 2 500 00x, so every ratio is 1.6: low. The
// distribution: min 1 000 000, p25 1 000 000, median 2 500 000, p75
// 3 000 000, max 4 000 000. severityOfDistribution: 16 000 over 1000 with
// ignore 16 000 is critical, with ignore 16 001 none; a zero median is
// critical when the max counts, none when not.
func TestDrElephantPortedExecutors(t *testing.T) {
	p := DrElephantExecutorsParams{MaxToMedian: Limits{1.414, 2, 4, 16}, IgnoreMaxBytesLessThan: 4_000_000, IgnoreMaxMillisLessThan: 4_000_001}
	r := &sparkREST{}
	for i := int64(1); i <= 4; i++ {
		r.executors = append(r.executors, shs.ExecutorSummary{ID: strconv.FormatInt(i, 10), MemoryUsed: i * 1_000_000, TotalDuration: i*1_000_000 + 1,
			TotalInputBytes: i*1_000_000 + 2, TotalShuffleRead: i*1_000_000 + 3, TotalShuffleWrite: i*1_000_000 + 4})
	}
	fs := executorsFindings(r, p, Scope{Kind: ScopeApplication, IDs: []string{"application_1"}})
	if len(fs) != 1 || fs[0].Severity != Low {
		t.Fatalf("findings %+v, want one low", fs)
	}
	for name, want := range map[string]float64{"storageMemoryUsedMedian": 2_500_000, "storageMemoryUsedP25": 1_000_000, "storageMemoryUsedP75": 3_000_000,
		"storageMemoryUsedMax": 4_000_000, "taskTimeMedian": 2_500_001, "taskTimeMax": 4_000_001, "shuffleWriteBytesMedian": 2_500_004} {
		if got := evidence(t, fs[0], name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for _, c := range []struct {
		maxV, median, ignore int64
		want                 Severity
	}{{16000, 1000, 16000, Critical}, {16000, 1000, 16001, None}, {16000, 0, 16000, Critical}, {16000, 0, 16001, None}} {
		if got, _ := drDistributionSeverity(c.maxV, c.median, c.ignore, p.MaxToMedian); got != c.want {
			t.Errorf("max %d median %d ignore %d: %v, want %v", c.maxV, c.median, c.ignore, got, c.want)
		}
	}
}

// TestDrElephantExecutorsZeroMedian: input bytes 0, 0, 0, 8 MB have a zero
// median, which Dr. Elephant grades as Long.MAX_VALUE (critical); shuffle
// read 0, 0, 0, 1 MB too, but its max is below the 4 MB ignore limit. The
// evidence carries no 9.2e18: the graded ratio is capped at the critical
// limit (16) and flagged inputBytesMedianZero, and the ignored metric shows
// its zero median instead of a ratio.
func TestDrElephantExecutorsZeroMedian(t *testing.T) {
	p := DrElephantExecutorsParams{MaxToMedian: Limits{1.414, 2, 4, 16}, IgnoreMaxBytesLessThan: 4_000_000, IgnoreMaxMillisLessThan: 4_000_001}
	r := &sparkREST{}
	for i := int64(1); i <= 4; i++ {
		e := shs.ExecutorSummary{ID: strconv.FormatInt(i, 10), MemoryUsed: 1_000_000, TotalDuration: 1_000_000}
		if i == 4 {
			e.TotalInputBytes, e.TotalShuffleRead = 8_000_000, 1_000_000
		}
		r.executors = append(r.executors, e)
	}
	fs := executorsFindings(r, p, Scope{Kind: ScopeApplication, IDs: []string{"application_1"}})
	if len(fs) != 1 || fs[0].Severity != Critical {
		t.Fatalf("findings %+v, want one critical", fs)
	}
	f := fs[0]
	for name, want := range map[string]float64{"inputBytesMaxToMedian": 16, "inputBytesMedianZero": 1, "inputBytesMedian": 0,
		"inputBytesMax": 8_000_000, "shuffleReadBytesMedian": 0, "shuffleReadBytesMax": 1_000_000} {
		if got := evidence(t, f, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	for _, e := range f.Evidence {
		if e.Value >= 1e15 {
			t.Errorf("evidence %s = %g", e.Name, e.Value)
		}
		if e.Name == "shuffleReadBytesMaxToMedian" {
			t.Errorf("ignored metric with a zero median has a ratio: %+v", e)
		}
	}
	if !strings.Contains(f.Summary, "largest inputBytes is above a median of zero") {
		t.Errorf("summary %q", f.Summary)
	}
}

// TestDrElephantPortedExecutorGC: ExecutorGcHeuristicTest: GC 2, 6, 4, 8
// minutes over 15, 14, 20, 30 minutes of tasks: 1 200 000 / 4 740 000 =
// 0.2531 ≥ 0.2: critical. The driver is left out.
func TestDrElephantPortedExecutorGC(t *testing.T) {
	r := &sparkREST{executors: []shs.ExecutorSummary{
		{ID: "1", TotalGCTime: 2 * drMinuteMs, TotalDuration: 15 * drMinuteMs},
		{ID: "2", TotalGCTime: 6 * drMinuteMs, TotalDuration: 14 * drMinuteMs},
		{ID: "3", TotalGCTime: 4 * drMinuteMs, TotalDuration: 20 * drMinuteMs},
		{ID: "4", TotalGCTime: 8 * drMinuteMs, TotalDuration: 30 * drMinuteMs},
		{ID: "driver", TotalGCTime: 100 * drMinuteMs, TotalDuration: 1},
	}}
	fs := executorGCFindings(r, DefaultDrElephantExecutorGCParams, Scope{Kind: ScopeApplication, IDs: []string{"a"}})
	if len(fs) != 1 || fs[0].Severity != Critical {
		t.Fatalf("findings %+v, want one critical", fs)
	}
	if got := evidence(t, fs[0], "gcRatio"); !near(got, 1_200_000.0/4_740_000) {
		t.Errorf("gcRatio %v, want 0.2531", got)
	}
	if got := evidence(t, fs[0], "totalExecutorRuntimeMs"); got != 4_740_000 {
		t.Errorf("runtime %v, want 4740000", got)
	}
}

// TestDrElephantPortedJobs: JobsHeuristicTest with thresholds 0.2, 0.4,
// 0.6, 0.8: jobs 0–2 succeeded, 3 and 4 failed (rate 0.4, moderate); task
// failure rates 0, 0.2, 0.4, 0.6, 0.8, so jobs 3 (severe) and 4 (critical)
// have high rates: critical.
func TestDrElephantPortedJobs(t *testing.T) {
	p := DrElephantSparkJobsParams{JobFailureRate: Limits{0.2, 0.4, 0.6, 0.8}, TaskFailureRate: Limits{0.2, 0.4, 0.6, 0.8}}
	r := &sparkREST{}
	for i, c := range [][3]int64{{1, 10, 0}, {1, 8, 2}, {1, 6, 4}, {0, 4, 6}, {0, 2, 8}} {
		status := "FAILED"
		if c[0] == 1 {
			status = "SUCCEEDED"
		}
		r.jobs = append(r.jobs, shs.JobData{JobID: int32(i), Status: status, NumCompletedTasks: c[1], NumFailedTasks: c[2]})
	}
	fs := jobsFindings(r, p, Scope{Kind: ScopeApplication, IDs: []string{"a"}})
	if len(fs) != 1 || fs[0].Severity != Critical || !contains(fs[0].Summary, "severe or worse: 3, 4.") {
		t.Fatalf("findings %+v, want one critical", fs)
	}
	for name, want := range map[string]float64{"jobFailureRate": 0.4, "maxJobTaskFailureRate": 0.8, "succeededJobs": 3, "failedJobs": 2, "jobsWithHighTaskFailureRate": 2,
		"job3TaskFailureRate": 0.6, "job4TaskFailureRate": 0.8} {
		if got := evidence(t, fs[0], name); !near(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// With the default limits a 10% job failure rate is exactly low.
	r = &sparkREST{}
	for i := 0; i < 10; i++ {
		status := "SUCCEEDED"
		if i == 0 {
			status = "FAILED"
		}
		r.jobs = append(r.jobs, shs.JobData{JobID: int32(i), Status: status, NumCompletedTasks: 1})
	}
	if fs := jobsFindings(r, DefaultDrElephantSparkJobsParams, Scope{}); len(fs) != 1 || fs[0].Severity != Low || !contains(fs[0].Summary, "severe or worse: none") {
		t.Errorf("1 of 10 jobs failed: %+v, want low, no job listed as severe", fs)
	}
}

// TestDrElephantPortedStages: StagesHeuristicTest with thresholds 0.2, 0.4,
// 0.6, 0.8 and 15, 30, 45, 60 minutes and spark.executor.instances 2: 8
// complete and 2 failed stages (0.2, low); stages 3 and 4 have task failure
// rates 0.6 and 0.8; stages of 90 and 120 executor minutes run 45 and 60
// minutes per executor (severe, critical): critical.
func TestDrElephantPortedStages(t *testing.T) {
	p := DrElephantSparkStagesParams{StageFailureRate: Limits{0.2, 0.4, 0.6, 0.8}, TaskFailureRate: Limits{0.2, 0.4, 0.6, 0.8}, RuntimeMinutes: Limits{15, 30, 45, 60}}
	r := &sparkREST{}
	for i, c := range [][4]int64{{1, 10, 0, 2}, {1, 8, 2, 2}, {1, 6, 4, 2}, {0, 4, 6, 2}, {0, 2, 8, 2}, {1, 10, 0, 0}, {1, 10, 0, 30}, {1, 10, 0, 60}, {1, 10, 0, 90}, {1, 10, 0, 120}} {
		status := "FAILED"
		if c[0] == 1 {
			status = "COMPLETE"
		}
		r.stages = append(r.stages, shs.StageData{StageID: int32(i), Status: status, NumCompleteTasks: c[1], NumFailedTasks: c[2], ExecutorRunTime: c[3] * drMinuteMs})
	}
	prop := func(k string) (string, bool) { return "2", k == "spark.executor.instances" }
	fs := stagesFindings(r, prop, p, Scope{Kind: ScopeApplication, IDs: []string{"a"}})
	if len(fs) != 1 || fs[0].Severity != Critical {
		t.Fatalf("findings %+v, want one critical", fs)
	}
	for name, want := range map[string]float64{"stageFailureRate": 0.2, "maxStageTaskFailureRate": 0.8, "maxStageRuntimePerExecutorMs": 60 * drMinuteMs,
		"completeStages": 8, "failedStages": 2, "stagesWithHighTaskFailureRate": 2, "stagesWithLongRuntime": 2, "executorInstances": 2,
		"stage3.0TaskFailureRate": 0.6, "stage4.0TaskFailureRate": 0.8, "stage8.0RuntimePerExecutorMs": 45 * drMinuteMs, "stage9.0RuntimePerExecutorMs": 60 * drMinuteMs} {
		if got := evidence(t, fs[0], name); !near(got, want) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
}

// TestDrElephantSparkConfig: with Kryo and the shuffle service nothing is
// reported; executor memory "10g" (10 GiB) is exactly low, "9g" passes;
// dynamic allocation without the shuffle service is severe; minExecutors 2
// is critical; an overhead of "2048" (MiB) is 2 GiB, low, and so is "2047",
// which Dr. Elephant formats as "2 GB" before parsing it; no serializer is
// moderate; "*" in spark.yarn.secondary.jars is critical.
func TestDrElephantSparkConfig(t *testing.T) {
	base := map[string]string{"spark.serializer": "org.apache.spark.serializer.KryoSerializer", "spark.shuffle.service.enabled": "true"}
	cases := []struct {
		name string
		set  map[string]string
		drop string
		want Severity
	}{
		{"clean", nil, "", None},
		{"executor memory 10g", map[string]string{"spark.executor.memory": "10g"}, "", Low},
		{"executor memory 9g", map[string]string{"spark.executor.memory": "9g"}, "", None},
		{"driver cores 6", map[string]string{"spark.driver.cores": "6"}, "", Moderate},
		{"dynamic allocation without shuffle service", map[string]string{"spark.dynamicAllocation.enabled": "true"}, "spark.shuffle.service.enabled", Severe},
		{"no shuffle service", nil, "spark.shuffle.service.enabled", Moderate},
		{"min executors 2", map[string]string{"spark.dynamicAllocation.minExecutors": "2"}, "", Critical},
		{"min executors 1", map[string]string{"spark.dynamicAllocation.minExecutors": "1"}, "", None},
		{"max executors 901", map[string]string{"spark.dynamicAllocation.maxExecutors": "901"}, "", Critical},
		{"overhead 2048", map[string]string{"spark.yarn.executor.memoryOverhead": "2048"}, "", Low},
		{"overhead 2047 (formatted as \"2 GB\")", map[string]string{"spark.yarn.driver.memoryOverhead": "2047"}, "", Low},
		{"overhead 2000 (\"1.95 GB\")", map[string]string{"spark.yarn.driver.memoryOverhead": "2000"}, "", None},
		{"overhead 3g", map[string]string{"spark.yarn.executor.memoryOverhead": "3g"}, "", Low},
		{"no serializer", nil, "spark.serializer", Moderate},
		{"java serializer", map[string]string{"spark.serializer": "org.apache.spark.serializer.JavaSerializer"}, "", Moderate},
		{"jars *", map[string]string{"spark.yarn.secondary.jars": "lib/*.jar"}, "", Critical},
	}
	for _, c := range cases {
		props := map[string]string{}
		for k, v := range base {
			if k != c.drop {
				props[k] = v
			}
		}
		for k, v := range c.set {
			props[k] = v
		}
		prop := func(k string) (string, bool) { v, ok := props[k]; return v, ok }
		fs := configFindings(prop, DefaultDrElephantSparkConfigParams, Scope{})
		got := None
		if len(fs) == 1 {
			got = fs[0].Severity
		}
		if got != c.want {
			t.Errorf("%s: %v, want %v (%+v)", c.name, got, c.want, fs)
		}
	}
}

// TestDrElephantSparkConfigDatabricks: Databricks sets the executor memory
// from the worker type; the finding says to change that instead.
func TestDrElephantSparkConfigDatabricks(t *testing.T) {
	a := &model.App{Engine: model.Spark, Env: model.Environment{Seen: true, Spark: [][2]string{
		{"spark.executor.memory", "47016m"}, {"spark.serializer", "org.apache.spark.serializer.KryoSerializer"}, {"spark.shuffle.service.enabled", "true"}}}}
	for _, dbx := range []bool{false, true} {
		if dbx {
			a.Platform = model.Platform{Name: model.PlatformDatabricks, Cluster: model.Cluster{WorkerNodeType: "m5.4xlarge"}}
		}
		fs := drSparkConfig(NewInput(a), DefaultDrElephantSparkConfigParams)
		if len(fs) != 1 || fs[0].Severity != Critical || strings.HasSuffix(fs[0].Recommendation, "(m5.4xlarge): choose another worker type rather than setting the property.") != dbx ||
			slices.ContainsFunc(fs[0].Evidence, func(e Evidence) bool { return e.Name == "platformSetsExecutorMemory" }) != dbx {
			t.Errorf("Databricks %v: %+v", dbx, fs)
		}
	}
}

// TestDrElephantStringToBytes: MemoryFormatUtils.stringToBytes, whose
// pattern takes T, G, M, K with an optional B (no P), exponents, and no
// surrounding spaces or commas.
func TestDrElephantStringToBytes(t *testing.T) {
	for s, want := range map[string]int64{"4g": 4 << 30, "512 MB": 512 << 20, "1.5GB": 3 << 29, "100": 100, "2k": 2048, "1e3": 1000, ".5kb": 512, "+1T": 1 << 40} {
		if got, err := drStringToBytes(s); err != nil || got != want {
			t.Errorf("%q = %d, %v; want %d", s, got, err, want)
		}
	}
	for v, want := range map[int64]string{2047 << 20: "2 GB", 2000 << 20: "1.95 GB", 500 << 20: "500 MB", 1023 << 20: "1,023 MB", 5: "5 B", 0: "0 B", 1536: "1.5 KB"} {
		if got := drBytesToString(v); got != want {
			t.Errorf("bytesToString(%d) = %q, want %q", v, got, want)
		}
	}
	for _, s := range []string{"", "lots", "4 zb", "-1g", "1pb", " 4g", "1,024 KB", "2|B"} {
		if _, err := drStringToBytes(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}

// TestDrElephantPortedConfiguration: ConfigurationHeuristicTest. "apply
// with NO Severity" (Kryo, driver 2G, 900 instances, executor 1g, shuffle
// service and dynamic allocation on, jars without *, driver overhead 500
// MiB): none. "apply with Severity" (dummySerializer, shuffle service off,
// dynamic allocation on): severe. The Evaluator cases: nothing set →
// moderate; Kryo alone → moderate; FooSerializer → moderate; Kryo with
// shuffle service and dynamic allocation → none; both flags, no serializer
// → moderate; Kryo, shuffle off, dynamic on → severe; Kryo, both off →
// moderate; jars "somethingWith*.jar" → critical.
func TestDrElephantPortedConfiguration(t *testing.T) {
	const kryo = "org.apache.spark.serializer.KryoSerializer"
	cases := []struct {
		name  string
		props map[string]string
		want  Severity
	}{
		{"apply with NO Severity", map[string]string{"spark.serializer": kryo, "spark.storage.memoryFraction": "0.3", "spark.driver.memory": "2G",
			"spark.executor.instances": "900", "spark.executor.memory": "1g", "spark.shuffle.memoryFraction": "0.5", "spark.shuffle.service.enabled": "true",
			"spark.dynamicAllocation.enabled": "true", "spark.yarn.secondary.jars": "something without star", "spark.yarn.driver.memoryOverhead": "500"}, None},
		{"apply with Severity", map[string]string{"spark.serializer": "dummySerializer", "spark.shuffle.service.enabled": "false", "spark.dynamicAllocation.enabled": "true"}, Severe},
		{"absent", map[string]string{}, Moderate},
		{"kryo only", map[string]string{"spark.serializer": kryo}, Moderate},
		{"foo serializer", map[string]string{"spark.serializer": "org.apache.spark.serializer.FooSerializer"}, Moderate},
		{"kryo, shuffle, dynamic", map[string]string{"spark.serializer": kryo, "spark.shuffle.service.enabled": "true", "spark.dynamicAllocation.enabled": "true"}, None},
		{"shuffle, dynamic", map[string]string{"spark.shuffle.service.enabled": "true", "spark.dynamicAllocation.enabled": "true"}, Moderate},
		{"kryo, shuffle off, dynamic", map[string]string{"spark.serializer": kryo, "spark.shuffle.service.enabled": "false", "spark.dynamicAllocation.enabled": "true"}, Severe},
		{"kryo, both off", map[string]string{"spark.serializer": kryo, "spark.shuffle.service.enabled": "false", "spark.dynamicAllocation.enabled": "false"}, Moderate},
		{"jars with *", map[string]string{"spark.serializer": kryo, "spark.shuffle.service.enabled": "true", "spark.yarn.secondary.jars": "somethingWith*.jar"}, Critical},
	}
	for _, c := range cases {
		prop := func(k string) (string, bool) { v, ok := c.props[k]; return v, ok }
		fs := configFindings(prop, DefaultDrElephantSparkConfigParams, Scope{Kind: ScopeApplication, IDs: []string{"application_1"}})
		got := None
		if len(fs) == 1 {
			got = fs[0].Severity
		}
		if got != c.want {
			t.Errorf("%s: %v, want %v (%+v)", c.name, got, c.want, fs)
		}
	}
}

// TestDrElephantSparkEndToEnd runs the Spark heuristics on a hand-built
// application through internal/shs. Three executors run one task each of
// 10, 10 and 40 minutes with 1 minute of GC each: the task-time median is
// 10 minutes and the max 40 (4x ≥ 3.162: severe); GC is 3 of 60 minutes
// (0.05 < 0.08: none). Shorter tasks (1, 1, 4 minutes) fall under the
// 5-minute ignore limit: none.
func TestDrElephantSparkEndToEnd(t *testing.T) {
	build := func(mins ...float64) *model.App {
		b := newApp(3000, len(mins), 1)
		st := &model.Stage{ID: 0, JobIDs: []int32{0}, Submitted: ms(0), Completed: ms(2400), Status: model.StageComplete, NumTasks: int32(len(mins))}
		for i, m := range mins {
			tm := model.TaskMetrics{}
			tm[model.JVMGCTime] = drMinuteMs
			tm[model.ExecutorRunTime] = int64(m * drMinuteMs)
			st.AddTask(model.Task{ID: int64(i), Index: int32(i), Launch: ms(0), Finish: ms(m * 60), Status: model.TaskSuccess, Executor: uint32(i), Host: 1, HasMetrics: true}, &tm)
		}
		b.app.Stages = append(b.app.Stages, st)
		b.app.Jobs = append(b.app.Jobs, &model.Job{ID: 0, Submitted: ms(0), Completed: ms(2400), Status: model.JobSucceeded, StageIDs: []int32{0}})
		return b.app
	}
	sev, f := drRun(t, build(10, 10, 40), "drelephant-spark-executors", nil)
	if sev != Severe || !near(evidence(t, f, "taskTimeMaxToMedian"), 4) {
		t.Errorf("executors: %v %+v, want severe at 4x", sev, f.Evidence)
	}
	if sev, _ := drRun(t, build(1, 1, 4), "drelephant-spark-executors", nil); sev != None {
		t.Errorf("short tasks: %v, want none", sev)
	}
	if sev, f := drRun(t, build(10, 10, 40), "drelephant-spark-executor-gc", nil); sev != None {
		t.Errorf("gc: %v %+v, want none", sev, f.Evidence)
	}
	// 8 of 40 minutes in GC (0.2): critical.
	app := build(10, 10, 20)
	for i := range app.Stages[0].Tasks {
		var m model.TaskMetrics
		app.Stages[0].TaskMetrics(i, &m)
		m[model.JVMGCTime] = 8 * drMinuteMs / 3
		app.Stages[0].SetTaskMetrics(i, &m)
	}
	sev, f = drRun(t, app, "drelephant-spark-executor-gc", nil)
	if sev != Critical || !near(evidence(t, f, "gcRatio"), 0.2) || strings.Contains(f.Summary, "Photon") {
		t.Errorf("gc: %v %+v, want critical", sev, f.Evidence)
	}
	// Photon ran it: the same finding says whose GC it is and advises on
	// the work Photon did not run, not on the JVM heap.
	app.Platform.Photon = true
	sev, f = drRun(t, app, "drelephant-spark-executor-gc", nil)
	if sev != Critical || evidence(t, f, "photon") != 1 || !strings.HasSuffix(f.Summary, photonGCSummary) || f.Recommendation != photonGCAdvice {
		t.Errorf("gc on Photon: %v %+v", sev, f)
	}
	// MapReduce jobs are not Spark applications.
	for _, name := range []string{"drelephant-spark-executors", "drelephant-spark-executor-gc", "drelephant-spark-jobs", "drelephant-spark-stages", "drelephant-spark-configuration"} {
		if sev, _ := drRun(t, drNewMR().tasks(model.StageMap, 3, 1000, model.TaskMetrics{}).app, name, nil); sev != None {
			t.Errorf("%s on MapReduce: %v", name, sev)
		}
	}
	if !slices.IsSorted(drElephantDetectors) {
		t.Error("drElephantDetectors not sorted")
	}
}

// TestDrElephantRESTCache: one Input computes its REST data once; another
// Input of the same application computes its own.
func TestDrElephantRESTCache(t *testing.T) {
	b := newApp(100, 2, 1).job(0, nil, 0, 2, 10, 20)
	in := NewInput(b.app)
	r1, err1 := fetchSparkREST(in)
	r2, err2 := fetchSparkREST(in)
	if err1 != nil || err2 != nil || r1 != r2 || len(r1.executors) != 2 || len(r1.jobs) != 1 || len(r1.stages) != 1 {
		t.Fatalf("%p %v / %p %v", r1, err1, r2, err2)
	}
	if r3, _ := fetchSparkREST(NewInput(b.app)); r3 == r1 {
		t.Error("a new Input reused another Input's data")
	}
	if _, err := fetchSparkREST(NewInput(drNewMR().app)); err == nil {
		t.Error("REST data for a MapReduce job")
	}
}

// TestDrElephantDriverTaskTime: the driver's task time is that of the tasks
// it ran (here one of 30 s in a 100 s application), not the application's
// duration that Spark 3's History Server reports for it.
func TestDrElephantDriverTaskTime(t *testing.T) {
	b := newApp(100, 1, 1)
	b.app.Executors = append(b.app.Executors, &model.Executor{ID: "driver", Host: "h1", Added: ms(0), BlockManagerSeen: true})
	b.job(0, nil, 0, 2, 10, 30)
	b.app.Stages[0].Tasks[1].Executor = 1
	r, err := fetchSparkREST(NewInput(b.app))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range r.executors {
		want := int64(10_000)
		if e.ID == "driver" {
			want = 30_000
		}
		if e.TotalDuration != want {
			t.Errorf("executor %s: task time %d, want %d", e.ID, e.TotalDuration, want)
		}
	}
	if len(r.executors) != 2 {
		t.Errorf("%d executors, want 2", len(r.executors))
	}
}
