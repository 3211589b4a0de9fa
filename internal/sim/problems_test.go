package sim

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

func problem(t *testing.T, res *Result, kind string) (ProblemTruth, *model.App, *model.Stage) {
	t.Helper()
	for _, p := range res.Truth.Problems {
		if p.Kind != kind {
			continue
		}
		for _, app := range res.Apps {
			if app.ID != p.App {
				continue
			}
			for _, st := range app.Stages {
				if st.ID == p.Stage {
					return p, app, st
				}
			}
		}
	}
	t.Fatalf("no %s problem with its stage", kind)
	return ProblemTruth{}, nil, nil
}

// TestSkewTruth checks that the tasks truth calls skewed read over 1.5x the
// stage's median bytes and include the longest task.
func TestSkewTruth(t *testing.T) {
	for _, seed := range seeds {
		res, err := Simulate(mustNamed(t, "skew"), seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, _, st := problem(t, res, ProblemSkew)
		if len(p.Tasks) == 0 || len(p.Tasks) > len(st.Tasks)/2 {
			t.Fatalf("seed %d: %d skewed tasks of %d", seed, len(p.Tasks), len(st.Tasks))
		}
		var m model.TaskMetrics
		bytes := map[int32]float64{}
		var all []float64
		longest, idx := int64(0), int32(-1)
		for i := range st.Tasks {
			tk := &st.Tasks[i]
			if tk.Status != model.TaskSuccess {
				continue
			}
			st.TaskMetrics(i, &m)
			b := float64(m.ShuffleReadBytes() + m[model.InputBytes])
			bytes[tk.Index] = b
			all = append(all, b)
			if tk.Duration() > longest {
				longest, idx = tk.Duration(), tk.Index
			}
		}
		slices.Sort(all)
		med := all[len(all)/2]
		for _, i := range p.Tasks {
			if bytes[i] < 1.4*med {
				t.Errorf("seed %d: skewed task %d read %.0f bytes, median %.0f", seed, i, bytes[i], med)
			}
		}
		if !slices.Contains(p.Tasks, idx) {
			t.Errorf("seed %d: the longest task %d is not among the skewed %v", seed, idx, p.Tasks)
		}
	}
}

// TestImbalanceTruth checks that the overloaded hosts ran most of the stage.
func TestImbalanceTruth(t *testing.T) {
	for _, seed := range seeds {
		res, _ := Simulate(mustNamed(t, "imbalance"), seed, nil)
		p, app, st := problem(t, res, ProblemImbalance)
		on := 0
		for i := range st.Tasks {
			if slices.Contains(p.Hosts, app.Hosts[st.Tasks[i].Host]) {
				on++
			}
		}
		if on < len(st.Tasks)*8/10 {
			t.Errorf("seed %d: %d of %d tasks on the overloaded hosts %v", seed, on, len(st.Tasks), p.Hosts)
		}
	}
}

// TestPlacementTruth checks that tasks on hosts without blocks never run node-local,
// and that hosts with blocks mostly do.
func TestPlacementTruth(t *testing.T) {
	for _, seed := range seeds {
		res, _ := Simulate(mustNamed(t, "placement"), seed, nil)
		p, app, st := problem(t, res, ProblemPlacement)
		var without, local, with int
		for i := range st.Tasks {
			tk := &st.Tasks[i]
			if slices.Contains(p.Hosts, app.Hosts[tk.Host]) {
				without++
				if tk.Locality == model.NodeLocal {
					t.Errorf("seed %d: task %d node-local on %s, which holds no block", seed, tk.Index, app.Hosts[tk.Host])
				}
				continue
			}
			with++
			if tk.Locality == model.NodeLocal {
				local++
			}
		}
		if without == 0 || local < with/2 {
			t.Errorf("seed %d: %d tasks on hosts without blocks, %d of %d node-local elsewhere", seed, without, local, with)
		}
	}
}

// TestHungTaskTruth checks that the hung task's first attempt failed after the timeout.
func TestHungTaskTruth(t *testing.T) {
	res, _ := Simulate(mustNamed(t, "hung-task"), 1, nil)
	p, _, st := problem(t, res, ProblemHungTask)
	found := false
	for i := range st.Tasks {
		tk := &st.Tasks[i]
		if tk.Index == p.Tasks[0] && tk.Attempt == 0 {
			found = true
			if tk.Status != model.TaskFailed || tk.Duration() < 120_000 {
				t.Errorf("hung attempt: %v after %d ms", tk.Status, tk.Duration())
			}
		}
	}
	if !found {
		t.Error("hung attempt not in the stage")
	}
}

// TestHangLosesExecutor checks that a Spark executor on a hung node is lost
// and its attempts fail with ExecutorLostFailure.
func TestHangLosesExecutor(t *testing.T) {
	res, _ := Simulate(mustNamed(t, "hang"), 1, nil)
	host := res.Truth.Faults[0].Host
	lost := 0
	for _, app := range res.Apps {
		for _, st := range app.Stages {
			for i := range st.Tasks {
				tk := &st.Tasks[i]
				if tk.Status == model.TaskFailed && app.Hosts[tk.Host] != host {
					t.Errorf("%s: attempt failed on %s, not the hung host", app.ID, app.Hosts[tk.Host])
				}
				if tk.Status == model.TaskFailed && app.Engine == model.Spark {
					if r := app.Reasons[tk.Reason]; r.Kind != "ExecutorLostFailure" {
						t.Errorf("reason %+v", r)
					}
					lost++
				}
			}
		}
	}
	if lost == 0 {
		t.Error("no Spark attempt was lost on the hung node")
	}
}

// TestStragglerTruth checks that injected stragglers run far longer than
// their stage's median with most of the extra time in GC, and that the
// noise stragglers truth lists exist.
func TestStragglerTruth(t *testing.T) {
	for _, seed := range seeds {
		res, _ := Simulate(mustNamed(t, "straggler"), seed, nil)
		for _, p := range res.Truth.Problems {
			if p.Kind != ProblemStraggler {
				continue // imbalance from KMeans's cache (TestCacheImbalanceTruth)
			}
			var app *model.App
			for _, a := range res.Apps {
				if a.ID == p.App {
					app = a
				}
			}
			st := app.Stages[0]
			var d []float64
			for i := range st.Tasks {
				d = append(d, float64(st.Tasks[i].Duration()))
			}
			slices.Sort(d)
			med := d[len(d)/2]
			var m model.TaskMetrics
			for i := range st.Tasks {
				tk := &st.Tasks[i]
				if !slices.Contains(p.Tasks, tk.Index) || tk.Attempt != 0 {
					continue
				}
				st.TaskMetrics(i, &m)
				if float64(tk.Duration()) < 1.5*med || float64(m[model.JVMGCTime]) < 0.2*float64(tk.Duration()) {
					t.Errorf("seed %d %s: straggler %d took %d ms (median %.0f), GC %d ms", seed, app.Name, tk.Index, tk.Duration(), med, m[model.JVMGCTime])
				}
			}
		}
		res, _ = Simulate(mustNamed(t, "clean"), seed, nil)
		n := 0
		for i, a := range res.Truth.Apps {
			app := res.Apps[i]
			for _, s := range a.Stragglers {
				n++
				found := false
				for _, st := range app.Stages {
					for k := range st.Tasks {
						tk := &st.Tasks[k]
						found = found || st.ID == s.Stage && tk.Index == s.Task && tk.Attempt == s.Attempt
					}
				}
				if !found || s.Factor < 2 || s.Cause != "noise" {
					t.Errorf("seed %d: straggler %+v of %s not in the log", seed, s, a.ID)
				}
			}
		}
		if n == 0 {
			t.Errorf("seed %d: no noise straggler in clean", seed)
		}
	}
}

// TestSchedulingGapTruth checks that the slow scheduler leaves slots idle
// while tasks wait: launches at most one a second, and a longer stage.
func TestSchedulingGapTruth(t *testing.T) {
	res, _ := Simulate(mustNamed(t, "scheduling-gap"), 1, nil)
	clean, _ := Simulate(mustNamed(t, "clean"), 1, nil)
	p, app, st := problem(t, res, ProblemSchedGap)
	var launches []int64
	for i := range st.Tasks {
		launches = append(launches, st.Tasks[i].Launch)
	}
	slices.Sort(launches)
	for i := 1; i < len(launches); i++ {
		if launches[i]-launches[i-1] < 1000 {
			t.Fatalf("launches %d ms apart", launches[i]-launches[i-1])
		}
	}
	var cst *model.Stage
	for i, a := range clean.Apps {
		if a.Name == app.Name {
			cst = clean.Apps[i].Stages[0]
		}
	}
	if d, c := p.EndMs-p.StartMs, cst.Completed-cst.Submitted; 2*d < 3*c {
		t.Errorf("stage with a slow scheduler took %d ms, %d ms clean", d, c)
	}
}

// TestDynamicAllocation checks that dynamic allocation adds executors while
// tasks wait and removes idle ones.
func TestDynamicAllocation(t *testing.T) {
	res, _ := Simulate(mustNamed(t, "dynamic"), 1, nil)
	grew, removed := false, false
	for i, app := range res.Apps {
		if app.Engine != model.Spark {
			continue
		}
		if res.Truth.Apps[i].Executors > mustNamed(t, "dynamic").Apps[i].Executors/2 {
			grew = true
		}
		for _, x := range app.Executors {
			removed = removed || x.Removed > 0 && x.RemoveReason == "Executor killed by driver."
		}
	}
	if !grew || !removed {
		t.Errorf("executors grew %v, idle ones removed %v", grew, removed)
	}
}

// TestCacheImbalanceTruth checks the imbalance truth derives from cached
// partitions: on clean runs, every stage reading KMeans's cache is labelled
// exactly when, counting from the log where the caching stage's tasks
// succeeded (there their partitions are cached) and the executors' cores,
// some host's partitions per slot deviate from the hosts' mean by more than
// BC; the labelled hosts are the overloaded ones, else the underloaded.
func TestCacheImbalanceTruth(t *testing.T) {
	labelled := 0
	for seed := uint64(1); seed <= 10; seed++ {
		res, err := Simulate(mustNamed(t, "clean"), seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		labels := map[string][]string{}
		for _, p := range res.Truth.Problems {
			if p.Cause == CauseCache {
				if p.Kind != ProblemImbalance || len(p.Hosts) == 0 {
					t.Fatalf("seed %d: %+v", seed, p)
				}
				labels[fmt.Sprint(p.App, "/", p.Stage)] = p.Hosts
			}
		}
		for _, app := range res.Apps {
			if app.Name != "KMeans" {
				for k := range labels {
					if strings.HasPrefix(k, app.ID+"/") {
						t.Fatalf("seed %d: label %s outside KMeans", seed, k)
					}
				}
				continue
			}
			slots := map[string]int{}
			for _, x := range app.Executors {
				if x.Removed == 0 && x.Cores > 0 {
					slots[x.Host] += int(x.Cores)
				}
			}
			cached := map[string]int{}
			for _, tk := range app.Stages[0].Tasks {
				if tk.Status == model.TaskSuccess {
					cached[app.Host(tk.Host)]++
				}
			}
			var mean float64
			for h, s := range slots {
				mean += float64(cached[h]) / float64(s) / float64(len(slots))
			}
			var over, under []string
			for h, s := range slots {
				dev := (float64(cached[h])/float64(s) - mean) / mean
				if dev > imbalanceBC {
					over = append(over, h)
				} else if dev < -imbalanceBC {
					under = append(under, h)
				}
			}
			if len(over) == 0 {
				over = under
			}
			slices.Sort(over)
			for _, st := range app.Stages[1:] {
				if st.Name != app.Stages[1].Name {
					continue // the iterations' reduce stages read shuffles
				}
				got := labels[fmt.Sprint(app.ID, "/", st.ID)]
				if !slices.Equal(got, over) {
					t.Errorf("seed %d stage %d: truth %v, from the log %v (cached %v, slots %v)", seed, st.ID, got, over, cached, slots)
				}
				if len(got) > 0 {
					labelled++
				}
			}
		}
	}
	if labelled == 0 {
		t.Error("no cached stage labelled in 10 clean runs")
	}
}
