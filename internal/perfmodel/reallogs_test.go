package perfmodel

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/source"
)

// TestReplayReproducesRealLogs replays every real Spark log at 100% of its
// executors and reports the model error. Where the log allows it the error
// must stay within 5%; it does not allow it when it is incomplete, when
// executors came or went while tasks ran (the replay assumes the peak slots
// throughout), or when the recorded scheduler kept slots idle while started
// stages had tasks waiting (delay scheduling; the replay fills slots at
// once). A log beyond 5% without such a reason fails the test.
func TestReplayReproducesRealLogs(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	res, err := decodelogs.Paths([]string{root}, decodelogs.Options{Kinds: []source.Kind{source.SparkEventLog}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	pass, checked, strict := 0, 0, 0
	for _, app := range res.Apps {
		name, _ := filepath.Rel(root, app.Source)
		w, err := FromApp(app)
		if err != nil {
			fmt.Fprintf(&report, "%-60s skip: %v\n", short(name), err)
			continue
		}
		wi, err := EstimateWhatIf(w, []int{100})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkBounds(t, name, w)
		why := cannotReproduce(app, w)
		if why == "" {
			if held := heldBackMs(app, CoresOf(w).Slots); float64(held) > 0.05*float64(w.Duration()) {
				why = fmt.Sprintf("slots idle %d ms while started stages had tasks waiting: delay scheduling", held)
			}
		}
		status := "PASS"
		switch {
		case wi.ModelError <= 0.05:
			pass++
			if why != "" {
				status = "PASS (though " + why + ")"
			}
		case why != "":
			status = "cannot (" + why + ")"
		default:
			status = "FAIL"
			t.Errorf("%s: replay %d ms vs recorded %d ms: error %.1f%% > 5%%", name, wi.ModelMs, wi.RecordedMs, 100*wi.ModelError)
		}
		checked++
		if why == "" {
			strict++
		}
		fmt.Fprintf(&report, "%-60s tasks %6d slots %4d recorded %9d model %9d error %6.2f%%  %s\n",
			short(name), w.NumTasks(), CoresOf(w).Slots, wi.RecordedMs, wi.ModelMs, 100*wi.ModelError, status)
	}
	t.Logf("replay at 100%% of executors: %d of %d logs with tasks within 5%%; all %d complete logs with steady executors and no delay scheduling within 5%%\n%s",
		pass, checked, strict, report.String())
	if strict == 0 {
		t.Error("no real log could be checked")
	}
}

// cannotReproduce says why a log does not allow the comparison, or "": the
// replay assumes the log's peak slots for the whole run, so the cores alive
// while tasks ran must not have changed (no executor added after the first
// task launched or removed before the last finished), and the log must have
// recorded the application's end.
func cannotReproduce(_ *model.App, w *Workload) string {
	if !w.Complete {
		return "incomplete log"
	}
	first, last := w.TaskWindow()
	for _, e := range w.Executors {
		switch {
		case e.Added > first && e.Added < last:
			return "executor added while tasks ran"
		case e.Ended > first && e.Ended < last:
			return "executor removed while tasks ran"
		}
	}
	return ""
}

// heldBackMs measures how long the recorded run kept a slot free while a
// stage that had already launched tasks still had tasks to launch: Spark's
// delay scheduling (spark.locality.wait) or a slow driver. The replay fills
// every free slot at once, so such a run is faster replayed.
func heldBackMs(app *model.App, slots int) int64 {
	type ev struct {
		t       int64
		run, pe int
	}
	var evs []ev
	for _, st := range app.Stages {
		var first, lastLaunch int64
		for i := range st.Tasks {
			t := &st.Tasks[i]
			if !t.Done() || t.Launch <= 0 || t.Finish < t.Launch {
				continue
			}
			evs = append(evs, ev{t.Launch, 1, 0}, ev{t.Finish, -1, 0})
			if first == 0 || t.Launch < first {
				first = t.Launch
			}
			lastLaunch = max(lastLaunch, t.Launch)
		}
		if lastLaunch > first {
			evs = append(evs, ev{first, 0, 1}, ev{lastLaunch, 0, -1})
		}
	}
	slices.SortFunc(evs, func(a, b ev) int { return cmp.Compare(a.t, b.t) })
	var held int64
	running, pending := 0, 0
	for i, e := range evs {
		if i > 0 && running < slots && pending > 0 {
			held += e.t - evs[i-1].t
		}
		running += e.run
		pending += e.pe
	}
	return held
}

func short(s string) string {
	if len(s) <= 60 {
		return s
	}
	return "…" + s[len(s)-59:]
}

// checkBounds checks two laws of any correct replay: on one slot every task
// runs after another, so the time is at least the sum of task durations; on
// unlimited slots it is still at least the critical path.
func checkBounds(t *testing.T, name string, w *Workload) {
	t.Helper()
	plan := NewPlan(w)
	var used int64
	for i := range w.Stages {
		used += w.Stages[i].Used()
	}
	one, err := plan.Replay(1)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if one < used {
		t.Errorf("%s: replay on one slot %d ms < %d ms of tasks", name, one, used)
	}
	inf, err := plan.Replay(w.NumTasks() + 1)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return
	}
	if cp := FindCriticalPath(w); inf < cp.Ms {
		t.Errorf("%s: replay on unlimited slots %d ms < critical path %d ms", name, inf, cp.Ms)
	}
	if inf > one {
		t.Errorf("%s: unlimited slots %d ms slower than one slot %d ms", name, inf, one)
	}
}
