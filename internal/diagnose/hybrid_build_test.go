package diagnose

import (
	"github.com/clusterlens/clusterlens/internal/model"
)

// multiApp builds small multi-host applications by hand for the HybridTune,
// BDTune and HiTune detectors: one executor per host, times in seconds
// after origin (see ms in build_test.go).
type multiApp struct {
	app    *model.App
	taskID int64
}

// hbTask is one successful attempt: host is 1-based (App.Hosts[host]).
type hbTask struct {
	host        int
	launch, dur float64
	mib         int64 // input MiB
	loc         model.Locality
	m           model.TaskMetrics // further metrics
}

const oneMiB = 1 << 20

// newMulti starts an application of lengthSec on hosts h1..hn with cores
// per executor.
func newMulti(engine model.Engine, lengthSec float64, hosts, cores int) *multiApp {
	a := &model.App{ID: "app-multi", Engine: engine, Start: ms(0), End: ms(lengthSec), Complete: true, Hosts: []string{""}}
	for i := 1; i <= hosts; i++ {
		h := "h" + string(rune('0'+i))
		a.Hosts = append(a.Hosts, h)
		a.Executors = append(a.Executors, &model.Executor{ID: string(rune('0' + i)), Host: h, Cores: int32(cores), Added: ms(0)})
	}
	return &multiApp{app: a}
}

// stage adds a stage (and, for Spark, a job holding it when job >= 0) with
// the given attempts.
func (b *multiApp) stage(id, job int32, kind model.StageKind, submitted float64, tasks ...hbTask) *model.Stage {
	st := &model.Stage{ID: id, Kind: kind, Submitted: ms(submitted), Status: model.StageComplete}
	if job >= 0 {
		st.JobIDs = []int32{job}
	}
	end := submitted
	for i, t := range tasks {
		b.taskID++
		m := t.m
		m[model.InputBytes] += t.mib * oneMiB
		if kind == model.StageSpark && m[model.ExecutorRunTime] == 0 {
			m[model.ExecutorRunTime] = int64(t.dur * 1000)
		}
		st.AddTask(model.Task{ID: b.taskID, Index: int32(i), Launch: ms(t.launch), Finish: ms(t.launch + t.dur), Status: model.TaskSuccess,
			Host: uint32(t.host), Executor: uint32(t.host - 1), Locality: t.loc, HasMetrics: true}, &m)
		end = max(end, t.launch+t.dur)
	}
	st.Completed = ms(end)
	b.app.Stages = append(b.app.Stages, st)
	return st
}

// job adds a job over stages from submitted to completed.
func (b *multiApp) job(id int32, submitted, completed float64, stages ...int32) {
	b.app.Jobs = append(b.app.Jobs, &model.Job{ID: id, Submitted: ms(submitted), Completed: ms(completed), Status: model.JobSucceeded, StageIDs: stages})
}

// wave lays n attempts of dur seconds on host over slots, back to back,
// from start.
func wave(host, n, slots int, start, dur float64, mibEach int64, loc model.Locality) []hbTask {
	var out []hbTask
	for i := 0; i < n; i++ {
		out = append(out, hbTask{host: host, launch: start + float64(i/slots)*dur, dur: dur, mib: mibEach, loc: loc})
	}
	return out
}

// runOnly runs one detector with its defaults on a built application.
func runOnly(b *multiApp, name string) []Finding {
	return Run(b.app, Options{Only: []string{name}})
}

// checkEvidence compares named evidence values exactly (within 1e-9).
func checkEvidence(t interface {
	Helper()
	Errorf(string, ...any)
	Fatalf(string, ...any)
}, f Finding, want map[string]float64) {
	t.Helper()
	for name, w := range want {
		found := false
		for _, e := range f.Evidence {
			if e.Name == name {
				found = true
				if !near(e.Value, w) {
					t.Errorf("%s: %s = %v, want %v", f.ID, name, e.Value, w)
				}
			}
		}
		if !found {
			t.Errorf("%s: no evidence %q in %+v", f.ID, name, f.Evidence)
		}
	}
}
