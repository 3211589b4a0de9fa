package diagnose

import (
	"fmt"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// evalSeeds are the simulator seeds the evaluation runs per scenario.
const evalSeeds = 20

// item is one predicted or true element: an application's stage and a
// task index or a host.
type item struct {
	app   string
	stage int32
	what  string
}

// score counts true positives, false positives and false negatives.
type score struct{ tp, fp, fn, cleanFindings int }

func (s score) precision() float64 {
	if s.tp+s.fp == 0 {
		return 1
	}
	return float64(s.tp) / float64(s.tp+s.fp)
}

func (s score) recall() float64 {
	if s.tp+s.fn == 0 {
		return 1
	}
	return float64(s.tp) / float64(s.tp+s.fn)
}

// add compares predicted with truth.
func (s *score) add(pred, truth map[item]bool) {
	for p := range pred {
		if truth[p] {
			s.tp++
		} else {
			s.fp++
		}
	}
	for t := range truth {
		if !pred[t] {
			s.fn++
		}
	}
}

// simStage is the simulator's stage number of a model stage: the Spark
// stage id, or 0 for a MapReduce map stage and 1 for its reduce stage.
func simStage(st *model.Stage) int32 {
	switch st.Kind {
	case model.StageMap:
		return 0
	case model.StageReduce:
		return 1
	}
	return st.ID
}

// stageOf finds the stage a finding's "stage" evidence names.
func stageOf(app *model.App, f Finding) (*model.Stage, bool) {
	for _, e := range f.Evidence {
		if e.Name == "stage" {
			for _, st := range app.Stages {
				if float64(st.ID) == e.Value {
					return st, true
				}
			}
		}
	}
	return nil, false
}

// predicted turns one detector's findings on a simulation into items:
// skewed task indexes (data-skew's task findings) or flagged hosts of a
// stage (workload-imbalance's and uneven-placement's stage findings).
func predicted(t *testing.T, res *sim.Result, id string) (map[item]bool, int) {
	t.Helper()
	out := map[item]bool{}
	n := 0
	opts := Options{Only: []string{id}, Params: map[string]any{"data-skew": DataSkewParams{Threshold: 1.5, Ratio: DefaultDataSkewParams.Ratio,
		MinTasks: DefaultDataSkewParams.MinTasks, MinBytes: DefaultDataSkewParams.MinBytes, MinTasksPerNode: DefaultDataSkewParams.MinTasksPerNode}}}
	for _, app := range res.Apps {
		index := map[string]item{}
		for _, st := range app.Stages {
			for _, tk := range st.Tasks {
				index[fmt.Sprint(tk.ID)] = item{app.ID, simStage(st), fmt.Sprint(tk.Index)}
			}
		}
		for _, f := range Run(app, opts) {
			st, ok := stageOf(app, f)
			if !ok || id == "data-skew" && f.Scope.Kind != ScopeTask {
				continue // job-level imbalance, per-node data skew
			}
			n++
			for _, sid := range f.Scope.IDs {
				switch f.Scope.Kind {
				case ScopeTask:
					if it, ok := index[sid]; ok {
						out[it] = true
					}
				case ScopeNode:
					out[item{app.ID, simStage(st), sid}] = true
				}
			}
		}
	}
	return out, n
}

// truthItems lists the injected problems of kind as items. Placement
// hosts count only where they ran the stage's tasks: a node without
// executors leaves no trace in the logs.
func truthItems(res *sim.Result, kind string) map[item]bool {
	out := map[item]bool{}
	for _, p := range res.Truth.Problems {
		if p.Kind != kind {
			continue
		}
		ran := map[string]bool{}
		for _, app := range res.Apps {
			if app.ID != p.App {
				continue
			}
			for _, st := range app.Stages {
				if simStage(st) == p.Stage {
					for _, tk := range st.Tasks {
						ran[app.Host(tk.Host)] = true
					}
				}
			}
		}
		for _, ti := range p.Tasks {
			out[item{p.App, p.Stage, fmt.Sprint(ti)}] = true
		}
		for _, h := range p.Hosts {
			if kind != sim.ProblemPlacement || ran[h] {
				out[item{p.App, p.Stage, h}] = true
			}
		}
	}
	return out
}

// TestHybridEvaluation measures precision and recall of the HybridTune
// detectors against the simulator's ground truth: data-skew's skewed task
// indexes on the "skew" scenario, workload-imbalance's overloaded hosts on
// "imbalance", uneven-placement's hosts without the data on "placement",
// each over evalSeeds seeds, with every finding on the same number of
// "clean" runs counted as a false positive. Job-level imbalance findings
// repeat their stages' and are left out. The floors are the measured
// values rounded down (docs/FINDINGS.md has the table), so a regression
// fails.
func TestHybridEvaluation(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 80 clusters")
	}
	cases := []struct {
		id, scenario, kind string
		minP, minR         float64
	}{
		{"data-skew", "skew", sim.ProblemSkew, 0.9, 0.9},
		// The false positives are mostly real: KMeans's iterations read
		// cached partitions PROCESS_LOCAL, so a node that cached few of
		// them in the first stage is underloaded in every iteration; the
		// simulator does not label that imbalance.
		{"workload-imbalance", "imbalance", sim.ProblemImbalance, 0.55, 0.9},
		{"uneven-placement", "placement", sim.ProblemPlacement, 0.9, 0.85},
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-20s %-10s %5s %5s %5s %9s %6s %14s\n", "detector", "scenario", "tp", "fp", "fn", "precision", "recall", "clean findings")
	for _, c := range cases {
		var s score
		for seed := uint64(1); seed <= evalSeeds; seed++ {
			for _, name := range []string{c.scenario, "clean"} {
				sc, err := sim.Named(name)
				if err != nil {
					t.Fatal(err)
				}
				res, err := sim.Simulate(sc, seed, nil)
				if err != nil {
					t.Fatalf("simulate %s seed %d: %v", name, seed, err)
				}
				pred, n := predicted(t, res, c.id)
				s.add(pred, truthItems(res, c.kind))
				if name == "clean" {
					s.cleanFindings += n
				}
			}
		}
		fmt.Fprintf(&table, "%-20s %-10s %5d %5d %5d %9.3f %6.3f %14d\n", c.id, c.scenario, s.tp, s.fp, s.fn, s.precision(), s.recall(), s.cleanFindings)
		if s.precision() < c.minP || s.recall() < c.minR {
			t.Errorf("%s on %s: precision %.3f (want >= %.2f), recall %.3f (want >= %.2f)", c.id, c.scenario, s.precision(), c.minP, s.recall(), c.minR)
		}
	}
	t.Logf("%d seeds per scenario\n%s", evalSeeds, table.String())
}
