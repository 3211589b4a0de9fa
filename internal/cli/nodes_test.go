package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/hetero"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// TestNodesCommand simulates the parc scenario, indexes its logs into a
// SQLite run history and judges the runs after the faults began: the two
// hogged nodes are degraded, no other node is, the slowest hardware class
// is slow by design, and every node has a class.
func TestNodesCommand(t *testing.T) {
	dir := t.TempDir()
	sc, err := sim.Named("parc")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(sc, 7, dir, encoders())
	if err != nil {
		t.Fatal(err)
	}
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "h.db")
	if code, _, stderr := run(t, "index", "--store", dsn, dir); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	recent := 0
	for _, a := range res.Truth.Apps {
		if a.StartMs >= res.Truth.StartMs+sim.ParcFaultS*1000 {
			recent++
		}
	}
	code, out, stderr := run(t, "nodes", "--store", dsn, "--recent", itoa(recent), "--format", "json")
	if code != 0 {
		t.Fatalf("nodes: exit %d: %s", code, stderr)
	}
	var a hetero.Assessment
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	faulty := map[string]bool{}
	for _, f := range res.Truth.Faults {
		faulty[f.Host] = true
	}
	for _, v := range a.Verdicts {
		if v.Culprit() != faulty[v.Host] {
			t.Errorf("%s: %s (%s), faulty %v", v.Host, v.Status, v.Why, faulty[v.Host])
		}
		if v.Class == "" {
			t.Errorf("%s has no class", v.Host)
		}
	}
	if len(a.Classes) != 3 || !a.Classes[2].SlowByDesign || a.Classes[0].SlowByDesign {
		t.Errorf("classes %+v: want 3, the slowest slow by design", a.Classes)
	}
	code, text, _ := run(t, "nodes", "--store", dsn, "--recent", itoa(recent))
	if code != 0 || !strings.Contains(text, "degraded") || !strings.Contains(text, "slow-class") {
		t.Errorf("text output (exit %d):\n%s", code, text)
	}
	// One run judged on its own: the newest, against every run before it.
	newest, at := "", int64(0)
	for _, a := range res.Truth.Apps {
		if a.StartMs >= at {
			newest, at = a.ID, a.StartMs
		}
	}
	code, out, stderr = run(t, "nodes", "--store", dsn, "--run", newest, "--format", "json")
	var one hetero.Assessment
	if code != 0 || json.Unmarshal([]byte(out), &one) != nil || one.JudgedRuns != 1 || len(one.Runs) != 1 || one.Runs[0].ID != newest {
		t.Errorf("--run %s: exit %d, %d runs judged: %s", newest, code, one.JudgedRuns, stderr)
	}
	if code, _, stderr := run(t, "nodes", "--store", dsn, "--run", "app-none"); code == 0 || !strings.Contains(stderr, `run "app-none": not in the run history's`) {
		t.Errorf("--run of an unknown run: exit %d, %q", code, stderr)
	}
	// Too little history: a clear message naming what is missing.
	code, _, stderr = run(t, "nodes", "--store", dsn, "--recent", "100000")
	if code == 0 || !strings.Contains(stderr, "none is left to learn from") {
		t.Errorf("--recent beyond the history: exit %d, %q", code, stderr)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestAnalyzeNodeModels indexes the parc scenario's logs and analyzes the
// runs after the faults began with --node-models: straggler-nodes then
// judges each node against its own model (its findings say so), and flags
// fewer nodes of the slowest hardware class than without the models.
func TestAnalyzeNodeModels(t *testing.T) {
	dir := t.TempDir()
	sc, err := sim.Named("parc")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(sc, 7, dir, encoders())
	if err != nil {
		t.Fatal(err)
	}
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "h.db")
	if code, _, stderr := run(t, "index", "--store", dsn, dir); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	var paths []string
	for _, a := range res.Truth.Apps {
		if a.StartMs >= res.Truth.StartMs+sim.ParcFaultS*1000 {
			paths = append(paths, filepath.Join(dir, a.Path))
		}
	}
	slowest := map[string]bool{}
	for _, n := range res.Truth.Nodes {
		slowest[n.Host] = n.Class == sc.Cluster.Classes[len(sc.Cluster.Classes)-1].Name
	}
	faulty := map[string]bool{}
	for _, f := range res.Truth.Faults {
		faulty[f.Host] = true
	}
	// Each run's nodes against their own models: every application has
	// them, and no innocent is degraded in any run.
	innocent, found, judged := 0, 0, 0
	flagged := func(args ...string) (slow, all int, summaries []string) {
		t.Helper()
		code, out, stderr := run(t, append([]string{"analyze", "--format", "json"}, append(args, paths...)...)...)
		if code != 0 {
			t.Fatalf("analyze %v: exit %d: %s", args, code, stderr)
		}
		var got struct {
			Applications []struct {
				NodeVerdicts *hetero.RunVerdicts `json:"nodeVerdicts"`
				Findings     []struct {
					ID      string `json:"id"`
					Summary string `json:"summary"`
					Scope   struct {
						IDs []string `json:"ids"`
					} `json:"scope"`
				} `json:"findings"`
			} `json:"applications"`
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		for _, a := range got.Applications {
			if a.NodeVerdicts != nil {
				judged++
				for _, v := range a.NodeVerdicts.Verdicts {
					switch {
					case v.Culprit() && faulty[v.Host]:
						found++
					case v.Culprit():
						innocent++
					}
				}
			}
			for _, f := range a.Findings {
				if f.ID != "straggler-nodes" {
					continue
				}
				all++
				summaries = append(summaries, f.Summary)
				if slowest[f.Scope.IDs[0]] {
					slow++
				}
			}
		}
		return slow, all, summaries
	}
	slowPlain, _, _ := flagged()
	slowModel, n, summaries := flagged("--node-models", dsn)
	if slowModel >= slowPlain {
		t.Errorf("slowest-class nodes flagged: %d with the models, %d without; want fewer with", slowModel, slowPlain)
	}
	for _, s := range summaries {
		if !strings.Contains(s, "own model") {
			t.Errorf("finding without its model: %s", s)
		}
	}
	t.Logf("straggler-nodes: %d slowest-class findings without the models, %d with (of %d); node verdicts per run: %d hogged nodes degraded, %d innocents", slowPlain, slowModel, n, found, innocent)
	if judged != len(paths) || innocent > 0 {
		t.Errorf("per-run node verdicts in %d of %d applications, %d innocents degraded; want all and none", judged, len(paths), innocent)
	}
	if code, _, stderr := run(t, "analyze", "--node-models", "sqlite:"+filepath.Join(t.TempDir(), "none.db"), paths[0]); code == 0 || !strings.Contains(stderr, "no run history at") {
		t.Errorf("no history: exit %d, %q", code, stderr)
	}
	empty := filepath.Join(t.TempDir(), "empty.db")
	run(t, "index", "--store", empty, t.TempDir()) // creates the store, indexes nothing
	if code, _, stderr := run(t, "analyze", "--node-models", "sqlite:"+empty, paths[0]); code == 0 || !strings.Contains(stderr, "no per-host task durations") {
		t.Errorf("an empty history: exit %d, %q", code, stderr)
	}
}
