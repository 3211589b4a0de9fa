package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sim"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// demoLog simulates the demo scenario and returns its Spark log's path with
// the simulator's ground truth for that application.
func demoLog(t *testing.T) (string, sim.AppTruth) {
	t.Helper()
	dir := t.TempDir()
	sc, err := sim.Named("demo")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(sc, 7, dir, encoders())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range res.Truth.Apps {
		if a.Engine == "spark" {
			return filepath.Join(dir, "spark", a.ID), a
		}
	}
	t.Fatal("demo scenario has no Spark application")
	return "", sim.AppTruth{}
}

func TestSummaryJSON(t *testing.T) {
	path, truth := demoLog(t)
	code, out, errs := run(t, "summary", "--format", "json", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Applications []struct {
			Application struct{ ID string }
			Totals      struct{ Jobs, Stages, Tasks, FailedTasks, Hosts int }
			Stages      []struct {
				TaskDurationQuantilesMs []float64
				MaxToMedian             float64
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	a := doc.Applications[0]
	if a.Application.ID != truth.ID || a.Totals.Jobs != truth.Jobs || a.Totals.Stages != truth.Stages ||
		a.Totals.Tasks != truth.Attempts || a.Totals.FailedTasks != truth.Failed || a.Totals.Hosts != truth.Hosts {
		t.Fatalf("summary %+v, truth %+v", a, truth)
	}
	// the demo scenario skews one stage: its max task is far above its median
	worst := 0.0
	for _, st := range a.Stages {
		worst = max(worst, st.MaxToMedian)
	}
	if worst < 5 {
		t.Errorf("largest max/median = %.1f, want >= 5 in the skewed demo", worst)
	}
}

func TestSummaryText(t *testing.T) {
	path, truth := demoLog(t)
	code, out, _ := run(t, "summary", path)
	if code != ExitOK || !strings.Contains(out, truth.ID) || !strings.Contains(out, "Stages (task durations") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
}

func TestExitCodesAndErrors(t *testing.T) {
	dir := t.TempDir()
	notLog := filepath.Join(dir, "notes.txt")
	os.WriteFile(notLog, []byte("hello\n"), 0o644)
	code, _, errs := run(t, "summary", notLog)
	if code != ExitError || !strings.Contains(errs, "notes.txt") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("not a log: exit %d, stderr %q", code, errs)
	}
	if code, _, _ := run(t, "summary", filepath.Join(dir, "missing")); code != ExitError {
		t.Errorf("missing path: exit %d", code)
	}
	if code, _, _ := run(t, "summary", "--format", "xml", notLog); code != ExitUsage {
		t.Errorf("bad format: exit %d", code)
	}
	if code, _, _ := run(t, "summary"); code != ExitUsage {
		t.Errorf("no args: exit %d", code)
	}
	if code, _, _ := run(t, "nosuchcommand"); code != ExitUsage {
		t.Errorf("unknown command: exit %d", code)
	}
}

func TestDemo(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, "demo", "--dir", dir)
	if code != ExitOK || !strings.Contains(out, "Where the slot time went") || !strings.Contains(out, "Findings") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
	if st, err := os.Stat(filepath.Join(dir, "report.html")); err != nil || st.Size() < 100<<10 {
		t.Fatalf("demo report: %v", err)
	}
	if strings.Contains(errs, "skipped") { // the metrics and truth it wrote are not logs
		t.Fatalf("demo notes files it wrote itself:\n%s", errs)
	}
}
