package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/nodediag"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// simDir simulates a named scenario into a folder and returns it with
// the ground truth.
func simDir(t *testing.T, name string, seed uint64) (string, *sim.Result) {
	t.Helper()
	sc, err := sim.Named(name)
	if err != nil {
		t.Fatal(err)
	}
	sc.Metrics.EveryNth = 1
	dir := t.TempDir()
	res, err := sim.Run(sc, seed, dir, encoders())
	if err != nil {
		t.Fatal(err)
	}
	return dir, res
}

// TestAnalyzeNodeDiagnosis runs analyze --metrics on a CPU-hog run with a
// profile trained by "peer train" on a clean run of other seeds: the JSON
// names the faulty node culprit with resource cpu (the simulator's
// truth), says which profile was used, and lists no other culprit; the
// text shows the section. --node-diagnosis=false leaves it out, and a
// profile without --metrics or a bad profile are errors.
func TestAnalyzeNodeDiagnosis(t *testing.T) {
	clean, _ := simDir(t, "clean", 9001)
	prof := filepath.Join(t.TempDir(), "profile.json")
	if code, _, errs := run(t, "peer", "train", "--out", prof, clean); code != ExitOK {
		t.Fatalf("peer train: exit %d: %s", code, errs)
	}
	dir, res := simDir(t, "cpu-hog", 3)
	bad := res.Truth.Faults[0].Host
	code, out, errs := run(t, "analyze", "--format", "json", "--metrics", dir, "--peer-profile", prof, dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Applications []struct {
			Nodes *struct {
				Peers *struct {
					Profile  string `json:"profile"`
					Culprits []struct {
						Host     string `json:"host"`
						Resource string `json:"resource"`
					} `json:"culprits"`
				} `json:"peers"`
			} `json:"nodes"`
			Findings []struct {
				ID    string `json:"id"`
				Scope struct {
					IDs []string `json:"ids"`
				} `json:"scope"`
				Recommendation string `json:"recommendation"`
			} `json:"findings"`
		} `json:"applications"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range doc.Applications {
		if a.Nodes == nil || a.Nodes.Peers == nil || a.Nodes.Peers.Profile != prof {
			t.Fatalf("nodes part %+v: want the peer comparison with profile %s", a.Nodes, prof)
		}
		for _, c := range a.Nodes.Peers.Culprits {
			if c.Host != bad || c.Resource != "cpu" {
				t.Errorf("culprit %s (%s), want only %s (cpu)", c.Host, c.Resource, bad)
			}
			found = true
		}
		for _, f := range a.Findings {
			if f.ID == nodediag.IDCulprit && (f.Scope.IDs[0] != bad || !strings.Contains(f.Recommendation, bad)) {
				t.Errorf("culprit finding %+v", f)
			}
		}
	}
	if !found {
		t.Errorf("no application names %s culprit", bad)
	}
	code, out, _ = run(t, "analyze", "--metrics", dir, dir)
	if code != ExitOK || !strings.Contains(out, "Node diagnosis") || !strings.Contains(out, "profile self-trained") {
		t.Errorf("text: exit %d, no node diagnosis section", code)
	}
	if code, out, _ = run(t, "analyze", "--metrics", dir, "--node-diagnosis=false", dir); code != ExitOK || strings.Contains(out, "Node diagnosis") {
		t.Errorf("--node-diagnosis=false: exit %d, section present %v", code, strings.Contains(out, "Node diagnosis"))
	}
	// The parameter flags reach the methods: an indictment threshold no
	// count reaches leaves no culprit, a similarity threshold of 0 no
	// abnormal node; an out-of-range one is a usage error.
	code, out, _ = run(t, "analyze", "--format", "json", "--metrics", dir, "--peer-indict", "1000", "--abnormal-threshold", "0", dir)
	if code != ExitOK || strings.Contains(out, `"id": "`+nodediag.IDCulprit+`"`) || strings.Contains(out, `"id": "`+nodediag.IDAbnormal+`"`) ||
		!strings.Contains(out, `"indictThreshold": 1000`) {
		t.Errorf("--peer-indict 1000 --abnormal-threshold 0: exit %d, culprit or abnormal findings left, or threshold not in the output", code)
	}
	if code, _, errs := run(t, "analyze", "--metrics", dir, "--peer-threshold", "2", dir); code != ExitUsage || !strings.Contains(errs, "distThreshold") {
		t.Errorf("--peer-threshold 2: exit %d, %q", code, errs)
	}
	if code, _, _ := run(t, "analyze", "--peer-profile", prof, dir); code != ExitUsage {
		t.Errorf("--peer-profile without --metrics: exit %d", code)
	}
	junk := filepath.Join(t.TempDir(), "junk.json")
	if err := os.WriteFile(junk, []byte(`{"kind": "something else"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(t, "analyze", "--metrics", dir, "--peer-profile", junk, dir); code == ExitOK || !strings.Contains(errs, "junk.json") {
		t.Errorf("bad profile: exit %d, %q", code, errs)
	}
}
