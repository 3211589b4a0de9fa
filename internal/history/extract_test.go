package history

import (
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// TestHostFacts checks the per-host facts FromApp keeps against the
// simulator's truth: every host that ran tasks has one; a MapReduce job's
// hosts have the racks truth.json gives, a Spark application's hosts the
// cores of their executors (4 each in the clean scenario's Spark
// applications) and the run's executor memory.
func TestHostFacts(t *testing.T) {
	sc, err := sim.Named("clean")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	rack := map[string]string{}
	for _, n := range res.Truth.Nodes {
		rack[n.Host] = n.Rack
	}
	for _, app := range res.Apps {
		r := FromApp(app, "", false, nil)
		hosts := map[string]bool{}
		for _, h := range r.Hosts {
			hosts[h.Host] = true
		}
		if len(r.HostFacts) != len(hosts) {
			t.Errorf("%s: %d host facts for %d hosts", app.ID, len(r.HostFacts), len(hosts))
		}
		for _, f := range r.HostFacts {
			switch {
			case !hosts[f.Host]:
				t.Errorf("%s: facts of %s, which ran no task", app.ID, f.Host)
			case app.Engine == model.MapReduce && f.Rack != rack[f.Host]:
				t.Errorf("%s: %s on rack %q, truth %q", app.ID, f.Host, f.Rack, rack[f.Host])
			case app.Engine == model.Spark && (f.Executors < 1 || f.Cores != 4*f.Executors || f.MemoryMB != r.Cluster.ExecutorMemoryMB):
				t.Errorf("%s: %s has %d executors with %d cores (%d MB), want 4 cores each and %d MB", app.ID, f.Host, f.Executors, f.Cores, f.MemoryMB, r.Cluster.ExecutorMemoryMB)
			}
		}
	}
}

// TestHostFactsInstanceTypes: the platform's worker type is every task
// host's, but the driver's host has the driver's type; a local-mode
// driver counts as the host's executor.
func TestHostFactsInstanceTypes(t *testing.T) {
	app := &model.App{Engine: model.Spark, ID: "app-1", Hosts: []string{"", "w1", "d"}}
	app.Platform.Cluster.WorkerNodeType, app.Platform.Cluster.DriverNodeType = "i3.xlarge", "m5.large"
	app.Executors = []*model.Executor{{ID: "driver", Host: "d", Cores: 2, Added: 1}, {ID: "1", Host: "w1", Cores: 4, Added: 1}, {ID: "2", Host: "w1", Cores: 4, Added: 5, Removed: 9}}
	st := &model.Stage{Kind: model.StageSpark}
	var m model.TaskMetrics
	for h := uint32(1); h <= 2; h++ {
		st.AddTask(model.Task{ID: int64(h), Launch: 1, Finish: 10, Host: h, Status: model.TaskSuccess, HasMetrics: true}, &m)
	}
	app.Stages = []*model.Stage{st}
	r := FromApp(app, "", false, nil)
	want := []HostFact{{Host: "d", InstanceType: "m5.large"}, {Host: "w1", Executors: 2, Cores: 8, InstanceType: "i3.xlarge"}}
	if len(r.HostFacts) != 2 || r.HostFacts[0] != want[0] || r.HostFacts[1] != want[1] {
		t.Errorf("facts %+v, want %+v", r.HostFacts, want)
	}
	local := &model.App{Engine: model.Spark, ID: "local-1", Hosts: []string{"", "d"}, Stages: []*model.Stage{{Kind: model.StageSpark}}}
	local.Executors = []*model.Executor{{ID: "driver", Host: "d", Cores: 8, Added: 1}}
	local.Stages[0].AddTask(model.Task{ID: 1, Launch: 1, Finish: 10, Host: 1, Status: model.TaskSuccess, HasMetrics: true}, &m)
	if f := FromApp(local, "", false, nil).HostFacts; len(f) != 1 || f[0].Executors != 1 || f[0].Cores != 8 {
		t.Errorf("local mode: %+v, want the driver as one 8-core executor", f)
	}
}

// TestRunTimesWithoutStartOrEnd: a log without its application start is
// stored from its first event, not at 1970 (two such real logs put the
// fleet's time axis at 1970); a run without an end has the span of its
// events as a duration (it showed "0ms").
func TestRunTimesWithoutStartOrEnd(t *testing.T) {
	const t0 = int64(1_700_000_000_000)
	stage := &model.Stage{ID: 0, Submitted: t0 + 500, Completed: t0 + 9_000, Tasks: []model.Task{
		{ID: 1, Launch: t0 + 600, Finish: t0 + 8_000, Status: model.TaskSuccess},
		{ID: 2, Launch: t0 + 700, Finish: t0 + 8_900, Status: model.TaskSuccess},
	}}
	noStart := &model.App{ID: "no-app-start", Engine: model.Spark, End: t0 + 10_000, Complete: true,
		Executors: []*model.Executor{{ID: "1", Added: t0 + 100}}, Stages: []*model.Stage{stage}}
	r := FromApp(noStart, "", false, nil)
	if r.Start != t0+100 || r.DurationMs != 9_900 {
		t.Errorf("no application start: start %d, duration %d; want the first event (%d) and 9900 ms", r.Start, r.DurationMs, t0+100)
	}
	running := &model.App{ID: "running", Engine: model.Spark, Start: t0, Stages: []*model.Stage{stage}}
	r = FromApp(running, "", true, nil)
	if r.End != 0 || r.DurationMs != 9_000 || r.Status == StatusSucceeded {
		t.Errorf("no end: end %d, duration %d, status %s; want 0, 9000 ms to the last event, not succeeded", r.End, r.DurationMs, r.Status)
	}
	// A task launched years before its job (a real log without its
	// application start has one) does not start the run.
	wild := &model.App{ID: "wild", Engine: model.Spark, End: t0 + 10_000, Complete: true,
		Jobs: []*model.Job{{ID: 0, Submitted: t0 + 200, Completed: t0 + 9_500}},
		Stages: []*model.Stage{{ID: 0, Submitted: t0 + 300, Completed: t0 + 9_000, Tasks: []model.Task{
			{ID: 1, Launch: t0 - 5*365*86_400_000, Finish: t0 + 8_000, Status: model.TaskSuccess}}}}}
	if r := FromApp(wild, "", false, nil); r.Start != t0+200 || r.DurationMs != 9_800 {
		t.Errorf("a wild task launch: start %d, duration %d; want the job's submission (%d) and 9800 ms", r.Start, r.DurationMs, t0+200)
	}
	empty := &model.App{ID: "nothing", Engine: model.Spark}
	if r := FromApp(empty, "", false, nil); r.Start != 0 || r.DurationMs != 0 {
		t.Errorf("no time at all: start %d, duration %d; want 0, 0", r.Start, r.DurationMs)
	}
}
