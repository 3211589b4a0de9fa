package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	why "github.com/clusterlens/clusterlens/internal/explain"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// TestExplainCommand simulates 20 days of a recurring job and a 21st with a
// hung task, indexes their logs and explains: the last run is slower than
// usual, mostly for its failed attempts, in JSON and in text; analyze with
// the run history gives it the slower-than-usual finding; an early run has
// too little history; a run the history lacks and bad flags are errors.
func TestExplainCommand(t *testing.T) {
	logs := t.TempDir()
	var ids []string
	for day := range 21 {
		cause := ""
		if day == 20 {
			cause = "failures"
		}
		sc, _, _ := sim.RegressionRun("terasort", day, cause, 3)
		res, err := sim.Run(sc, uint64(3000+day), filepath.Join(logs, fmt.Sprint(day)), encoders())
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Truth.Apps[0].ID)
	}
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "h.db")
	if code, _, stderr := run(t, "index", "--store", dsn, logs); code != 0 {
		t.Fatalf("index: exit %d: %s", code, stderr)
	}
	code, out, stderr := run(t, "explain", "--store", dsn, ids[20], "--format", "json")
	if code != 0 {
		t.Fatalf("explain: exit %d: %s", code, stderr)
	}
	var e why.Explanation
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		t.Fatal(err)
	}
	if e.Verdict != why.Slower || len(e.Causes) == 0 || e.Causes[0].Kind != why.KindFailures || len(e.Usual.Runs) != 20 || e.Causes[0].Items[0].Stage < 0 {
		t.Fatalf("explanation %s over %d usual runs: %s", e.Verdict, len(e.Usual.Runs), e.Summary)
	}
	code, text, _ := run(t, "explain", "--store", dsn, "spark/"+ids[20]+"/")
	if code != 0 || !strings.Contains(text, "failures") || !strings.Contains(text, "unexplained") || !strings.Contains(text, "slower by") {
		t.Errorf("text: exit %d:\n%s", code, text)
	}
	code, out, _ = run(t, "analyze", "--history", dsn, "--format", "json", filepath.Join(logs, "20", "spark"))
	var doc struct {
		Applications []struct{ Findings []finding.Finding }
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 0 || err != nil || len(doc.Applications) != 1 {
		t.Fatalf("analyze --history: exit %d, %v", code, err)
	}
	found := false
	for _, f := range doc.Applications[0].Findings {
		found = found || f.ID == why.FindingID && strings.Contains(f.Summary, "failed")
	}
	if !found {
		t.Errorf("analyze --history: no slower-than-usual finding among %d", len(doc.Applications[0].Findings))
	}
	if code, out, _ := run(t, "explain", "--store", dsn, ids[3]); code != 0 || !strings.Contains(out, "too little history: 3 comparable earlier runs, 5 needed") {
		t.Errorf("an early run: exit %d: %s", code, out)
	}
	if code, _, stderr := run(t, "explain", "--store", dsn, "application_0_0000"); code != ExitError || !strings.Contains(stderr, "not in the run history") {
		t.Errorf("an unknown run: exit %d: %s", code, stderr)
	}
	if code, _, _ := run(t, "explain", "--store", dsn, "--usual", "1", ids[20]); code != ExitUsage {
		t.Errorf("--usual 1: exit %d, want %d", code, ExitUsage)
	}
	if code, _, _ := run(t, "explain", "--store", dsn); code != ExitUsage {
		t.Errorf("no run: exit %d, want %d", code, ExitUsage)
	}
}
