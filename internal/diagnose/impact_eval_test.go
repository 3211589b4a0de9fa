package diagnose

import (
	"fmt"
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/perfmodel"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// TestImpactEvaluation measures the severities against the simulator's
// ground truth, on the reported seeds (evalFirstSeed: 1-20; the limits and
// the straggler cap were set on seeds 100-119):
//
//   - injected problems at the severity their impact gives: for each
//     injected GC straggler set (scenario straggler) and skewed stage
//     (scenarios skew, sql-skew) the run is replayed without the problem as
//     the simulator made it (each injected straggler's time divided by its
//     GC stretch from truth.json; each skewed task's by its data over the
//     stage's median data), that impact graded by DefaultImpactLimits, and
//     compared with the severity of the finding a user reads for that
//     stage (the root it is folded under, if it is);
//   - clean runs (scenarios clean and sql-clean): the share with no finding
//     of moderate or worse, and the share with none the truth does not
//     back (every moderate or worse finding there is straggler-tasks or
//     straggler-nodes on stragglers truth.json lists: the simulator's
//     calibrated heavy tail, 3-12x on 6% of Spark attempts, its added time
//     that of a 700 ms attempt on longer ones).
//
// It fails when an injected problem goes unfound, when fewer than 90% are
// graded within one grade of their impact's, or when more than 5% of the
// clean runs have a moderate or worse finding at all, or one the truth
// does not back.
func TestImpactEvaluation(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 100 clusters")
	}
	first, reported := evalFirstSeed(t)
	type tally struct{ n, found, exact, withinOne int }
	sev := map[string]*tally{}
	var clean, cleanNone, cleanBacked int
	for seed := first; seed < first+evalSeeds; seed++ {
		for _, sc := range []string{"straggler", "skew", "sql-skew"} {
			res := simulate(t, sc, seed)
			for _, p := range res.Truth.Problems {
				if p.Cause != "" || p.Kind != sim.ProblemStraggler && p.Kind != sim.ProblemSkew {
					continue
				}
				app := appByID(res, p.App)
				want, ok := trueSeverity(t, res, app, p)
				if !ok {
					continue
				}
				tl := sev[sc]
				if tl == nil {
					tl = &tally{}
					sev[sc] = tl
				}
				tl.n++
				got, found := stageSeverity(app, p.Stage)
				if !found {
					t.Logf("%s seed %d: %s stage %d not found (impact's grade %s)", sc, seed, p.App, p.Stage, want)
					continue
				}
				tl.found++
				if got == want {
					tl.exact++
				}
				if absDiff(int(got), int(want)) <= 1 {
					tl.withinOne++
				}
			}
		}
		for _, sc := range []string{"clean", "sql-clean"} {
			res := simulate(t, sc, seed)
			clean++
			none, backed := true, true
			truth := stragglerTruth(res)
			nodes, _ := nodeTruth(res)
			for _, app := range res.Apps {
				for _, f := range Run(app, Options{MinSeverity: Moderate}) {
					none = false
					if !truthBacks(app, f, truth, nodes) {
						backed = false
						t.Logf("%s seed %d %s: %s %s not backed by the truth: %s", sc, seed, app.Name, f.Severity, f.ID, f.Summary)
					}
				}
			}
			if none {
				cleanNone++
			}
			if backed {
				cleanBacked++
			}
		}
	}
	var rows string
	total, found, within := 0, 0, 0
	for _, sc := range []string{"straggler", "skew", "sql-skew"} {
		tl := sev[sc]
		if tl == nil {
			continue
		}
		rows += fmt.Sprintf("\n| %s | %d | %d | %d | %d |", sc, tl.n, tl.found, tl.exact, tl.withinOne)
		total, found, within = total+tl.n, found+tl.found, within+tl.withinOne
	}
	t.Logf("seeds %d-%d\n| scenario | injected problems | found | at their impact's severity | within one grade |\n|---|---|---|---|---|%s\nclean runs: %d; with no finding of moderate or worse %d (%.2f); with none the truth does not back %d (%.2f)",
		first, first+evalSeeds-1, rows, clean, cleanNone, float64(cleanNone)/float64(clean), cleanBacked, float64(cleanBacked)/float64(clean))
	if !reported {
		return
	}
	if found < total || float64(within) < 0.9*float64(total) {
		t.Errorf("injected problems: %d, found %d, within one grade of their impact's %d", total, found, within)
	}
	if float64(cleanNone) < 0.95*float64(clean) {
		t.Errorf("%d of %d clean runs have a moderate or worse finding: want at most 5%%", clean-cleanNone, clean)
	}
	if float64(cleanBacked) < 0.95*float64(clean) {
		t.Errorf("%d of %d clean runs have a moderate or worse finding the truth does not back: want at most 5%%", clean-cleanBacked, clean)
	}
}

func absDiff(a, b int) int {
	if a > b {
		return a - b
	}
	return b - a
}

// trueSeverity grades the impact of an injected problem as the simulator
// made it: the replay without the injected GC stretch (stragglers) or with
// each skewed task's data brought to the stage's median (skew).
func trueSeverity(t *testing.T, res *sim.Result, app *model.App, p sim.ProblemTruth) (Severity, bool) {
	t.Helper()
	w, err := perfmodel.FromApp(app)
	if err != nil {
		return None, false
	}
	si := slices.IndexFunc(w.Stages, func(s perfmodel.Stage) bool { return s.ID == p.Stage })
	if si < 0 {
		return None, false
	}
	// The factor each attempt of the stage would have been faster by.
	factor := map[int64]float64{}
	ids := attemptIDs(app, p.Stage)
	switch p.Kind {
	case sim.ProblemStraggler:
		for _, a := range res.Truth.Apps {
			if a.ID != app.ID {
				continue
			}
			for _, s := range a.SlowAttempts {
				if s.Stage == p.Stage && s.GC > 1 {
					factor[ids[[2]int32{s.Task, s.Attempt}]] = s.GC
				}
			}
		}
	case sim.ProblemSkew:
		for ai, st := range app.Stages {
			if st.ID != p.Stage {
				continue
			}
			recs := stageRecords(app, ai)
			med := medianOf(recs, func(r *taskRec) float64 { return float64(r.bytes) })
			for _, r := range recs {
				if med > 0 && float64(r.bytes) > 1.5*med {
					factor[r.id] = float64(r.bytes) / med
				}
			}
		}
	}
	if len(factor) == 0 {
		return None, false
	}
	s := &w.Stages[si]
	saving, err := perfmodel.NewPlan(w).Without(perfmodel.Edit{Duration: func(stage, k int, d int64) int64 {
		if stage != si || k >= len(s.TaskIDs) || factor[s.TaskIDs[k]] <= 1 {
			return d
		}
		return int64(float64(d) / factor[s.TaskIDs[k]])
	}})
	if err != nil {
		t.Fatal(err)
	}
	in := NewInput(app)
	im := in.newImpact(saving.WallMs, saving.CoreMs, MethodReplay, "truth")
	return max(Low, DefaultImpactLimits.Grade(*im)), true
}

// attemptIDs maps (task index, attempt) of a stage's attempts to task ids.
func attemptIDs(app *model.App, stage int32) map[[2]int32]int64 {
	out := map[[2]int32]int64{}
	for _, st := range app.Stages {
		if st.ID == stage {
			for i := range st.Tasks {
				out[[2]int32{st.Tasks[i].Index, st.Tasks[i].Attempt}] = st.Tasks[i].ID
			}
		}
	}
	return out
}

// stageSeverity is the severity a user reads for a stage's problem: the
// finding about the stage, or the root it is folded under.
func stageSeverity(app *model.App, stage int32) (Severity, bool) {
	in := NewInput(app)
	key := fmt.Sprint(stage)
	best, found := None, false
	for _, f := range Run(app, Options{}) {
		hit := stageKey(in, &f) == key
		for _, s := range f.Symptoms {
			hit = hit || stageKey(in, &s) == key
		}
		if hit && (f.ID == "straggler-tasks" || f.ID == "data-skew" || f.ID == "critical-stage-tail" || f.ID == "sql-skewed-join" || f.ID == "too-few-partitions") {
			best, found = max(best, f.Severity), true
		}
	}
	return best, found
}

// truthBacks reports whether the truth backs a finding on a clean run: a
// straggler-tasks finding some of whose tasks truth.json lists as
// stragglers, a straggler-nodes finding on a node it lists.
func truthBacks(app *model.App, f Finding, stragglers, nodes map[item]bool) bool {
	switch f.ID {
	case "critical-stage-tail":
		// The stage's tail is its stragglers': backed when truth lists one.
		for k := range stragglers {
			if k.app == app.ID && len(f.Scope.IDs) > 0 && fmt.Sprint(k.stage) == f.Scope.IDs[0] {
				return true
			}
		}
	case "straggler-tasks":
		stage, _ := evidenceOf(&f, "stage")
		for _, st := range app.Stages {
			if st.ID != int32(stage) {
				continue
			}
			for i := range st.Tasks {
				t := &st.Tasks[i]
				if slices.Contains(f.Scope.IDs, fmt.Sprint(t.ID)) && stragglers[item{app.ID, st.ID, fmt.Sprint(t.Index, "/", t.Attempt)}] {
					return true
				}
			}
		}
	case "straggler-nodes":
		return len(f.Scope.IDs) > 0 && nodes[item{app: app.ID, what: f.Scope.IDs[0]}]
	}
	return false
}
