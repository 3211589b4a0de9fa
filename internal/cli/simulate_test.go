package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sim"
)

func TestSimulateCommand(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, "simulate", "--scenario", "skew", "--seed", "4", "--out", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, `scenario "skew", seed 4`) || !strings.Contains(out, "problem skew") {
		t.Errorf("output:\n%s", out)
	}
	var truth sim.Truth
	b, err := os.ReadFile(filepath.Join(dir, sim.TruthFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &truth); err != nil {
		t.Fatal(err)
	}
	for _, a := range truth.Apps {
		if _, err := os.Stat(filepath.Join(dir, a.Path)); err != nil || a.Path == "" {
			t.Errorf("%s: log %q: %v", a.ID, a.Path, err)
		}
	}
	// The written folder summarizes with every application.
	code, out, errs = run(t, "summary", "--format", "json", dir)
	if code != ExitOK {
		t.Fatalf("summary exit %d: %s", code, errs)
	}
	var doc struct {
		Applications []struct {
			Totals struct {
				Tasks int `json:"tasks"`
			} `json:"totals"`
		} `json:"applications"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Applications) != len(truth.Apps) {
		t.Errorf("summary has %d applications, truth %d", len(doc.Applications), len(truth.Apps))
	}
	tasks, want := 0, 0
	for i := range doc.Applications {
		tasks += doc.Applications[i].Totals.Tasks
		want += truth.Apps[i].Attempts
	}
	if tasks != want {
		t.Errorf("summary counts %d attempts, truth %d", tasks, want)
	}
}

func TestSimulateScenarioFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.json")
	os.WriteFile(path, []byte(`{"name":"tiny","cluster":{"nodes":3},"apps":[{"engine":"mapreduce","class":"wordcount","inputGB":0.5}],"metrics":{"off":true}}`), 0o644)
	code, out, errs := run(t, "simulate", "--scenario", path, "--out", filepath.Join(dir, "out"))
	if code != ExitOK || !strings.Contains(out, `scenario "tiny"`) {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", sim.MetricsFile)); err == nil {
		t.Error("metrics written although off")
	}
}

func TestSimulateErrors(t *testing.T) {
	if code, _, _ := run(t, "simulate", "--scenario", "nope", "--out", t.TempDir()); code != ExitUsage {
		t.Errorf("unknown scenario: exit %d", code)
	}
	if code, _, _ := run(t, "simulate", "--scenario", "clean"); code != ExitUsage {
		t.Errorf("no --out: exit %d", code)
	}
}

func TestDemoScenario(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, "demo", "--dir", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"fault   cpu-hog", "fault   disk-hog", "problem skew", "clusterlens-demo-wordcount", "clusterlens-demo-terasort", "0 bad", dir} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
