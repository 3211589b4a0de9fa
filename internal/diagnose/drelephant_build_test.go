package diagnose

import (
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// drElephantDetectors are the Dr. Elephant heuristics this package registers.
var drElephantDetectors = []string{
	"drelephant-mapper-gc", "drelephant-mapper-memory", "drelephant-mapper-skew", "drelephant-mapper-speed",
	"drelephant-mapper-spill", "drelephant-mapper-time", "drelephant-reducer-gc", "drelephant-reducer-memory",
	"drelephant-reducer-skew", "drelephant-reducer-time", "drelephant-shuffle-sort", "drelephant-spark-configuration",
	"drelephant-spark-executor-gc", "drelephant-spark-executors", "drelephant-spark-jobs", "drelephant-spark-stages",
}

// withDrElephant adds the Dr. Elephant detectors to a list of expected
// detector names, in name order.
func withDrElephant(want []string) []string {
	out := append(slices.Clone(want), drElephantDetectors...)
	slices.Sort(out)
	return out
}

// drMRBuilder makes MapReduce jobs by hand, shaped as internal/mapreduce
// reads them: one job, a map stage (id 0) and a reduce stage (id 1).
type drMRBuilder struct {
	app    *model.App
	stages map[model.StageKind]*model.Stage
	n      map[model.StageKind]int32
}

// drNewMR starts a succeeded MapReduce job.
func drNewMR() *drMRBuilder {
	a := &model.App{ID: "job_1", Engine: model.MapReduce, Start: origin, End: origin + 1, Complete: true, Hosts: []string{"", "h1"}}
	a.Jobs = []*model.Job{{ID: 0, Status: model.JobSucceeded, StageIDs: []int32{0, 1}}}
	return &drMRBuilder{app: a, stages: map[model.StageKind]*model.Stage{}, n: map[model.StageKind]int32{}}
}

// stage returns the stage of a kind, adding it on first use.
func (b *drMRBuilder) stage(kind model.StageKind) *model.Stage {
	if st, ok := b.stages[kind]; ok {
		return st
	}
	id := int32(0)
	if kind == model.StageReduce {
		id = 1
	}
	st := &model.Stage{ID: id, Kind: kind, Status: model.StageComplete}
	b.stages[kind] = st
	b.app.Stages = append(b.app.Stages, st)
	return st
}

// tasks adds n successful tasks of a kind, launched at origin, that ran
// runMs with metrics m.
func (b *drMRBuilder) tasks(kind model.StageKind, n int, runMs int64, m model.TaskMetrics) *drMRBuilder {
	st := b.stage(kind)
	for i := 0; i < n; i++ {
		mm := m
		st.AddTask(model.Task{ID: int64(b.n[kind]), Index: b.n[kind], Launch: origin, Finish: origin + runMs, Status: model.TaskSuccess, Host: 1}, &mm)
		b.n[kind]++
	}
	return b
}

// unsampled adds a task with neither times nor counters (an attempt still
// running), as Dr. Elephant's tests add one "non-sampled task".
func (b *drMRBuilder) unsampled(kind model.StageKind) *drMRBuilder {
	st := b.stage(kind)
	st.AddTask(model.Task{ID: int64(b.n[kind]), Index: b.n[kind], Launch: origin, Status: model.TaskRunning, Host: 1}, &model.TaskMetrics{})
	b.n[kind]++
	return b
}

// conf sets a job configuration property.
func (b *drMRBuilder) conf(k, v string) *drMRBuilder {
	b.app.Conf = append(b.app.Conf, [2]string{k, v})
	return b
}

// drMetrics builds task metrics.
func drMetrics(kv map[model.Metric]int64) model.TaskMetrics {
	var m model.TaskMetrics
	for k, v := range kv {
		m[k] = v
	}
	return m
}

// drRun runs one detector (defaults, or p) on app and returns its severity
// (None without a finding) and its finding.
func drRun(t *testing.T, app *model.App, name string, p any) (Severity, Finding) {
	t.Helper()
	opts := Options{Only: []string{name}}
	if p != nil {
		opts.Params = map[string]any{name: p}
	}
	if err := Validate(opts); err != nil {
		t.Fatal(err)
	}
	fs := Run(app, opts)
	switch len(fs) {
	case 0:
		return None, Finding{}
	case 1:
		return fs[0].RuleSeverity, fs[0]
	}
	t.Fatalf("%s: %d findings: %+v", name, len(fs), fs)
	return None, Finding{}
}
