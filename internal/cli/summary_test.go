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

func demoLog(t *testing.T) (string, sim.DemoApp) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "app-demo")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := sim.WriteDemoSparkLog(f, 7)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	return path, truth
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
			Totals      struct{ Tasks, FailedTasks, Hosts int }
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
	if a.Application.ID != truth.ID || a.Totals.Tasks != truth.Tasks || a.Totals.FailedTasks != truth.Failed || a.Totals.Hosts != 4 {
		t.Fatalf("summary %+v, truth %+v", a, truth)
	}
	// the skewed stage's max task is ~20x its median
	if r := a.Stages[truth.SkewedStage].MaxToMedian; r < 10 {
		t.Errorf("skewed stage max/median = %.1f, want >= 10", r)
	}
}

func TestSummaryText(t *testing.T) {
	path, truth := demoLog(t)
	code, out, _ := run(t, "summary", path)
	if code != ExitOK || !strings.Contains(out, truth.ID) || !strings.Contains(out, "Connection reset by peer") {
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
	code, out, errs := run(t, "demo", "--dir", t.TempDir())
	if code != ExitOK || !strings.Contains(out, "clusterlens-demo") {
		t.Fatalf("exit %d: %s %s", code, out, errs)
	}
}
