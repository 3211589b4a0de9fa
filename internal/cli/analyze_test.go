package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAnalyze(t *testing.T) {
	path, truth := demoLog(t)
	code, out, errs := run(t, "analyze", "--timeline", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{truth.ID, "Where the slot time went", "What if", "Timeline", "Longest stages"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q", want)
		}
	}
	code, out, _ = run(t, "analyze", "--format", "json", path)
	var doc struct {
		Applications []struct {
			WhatIf struct {
				ModelError float64
				Estimates  []struct{ Percent int }
			}
			Dataflow struct{ WallMs int64 }
		}
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &doc) != nil || len(doc.Applications) != 1 {
		t.Fatalf("json: exit %d", code)
	}
	a := doc.Applications[0]
	if len(a.WhatIf.Estimates) < 12 || a.WhatIf.ModelError > 0.05 || a.Dataflow.WallMs <= 0 {
		t.Errorf("analysis %+v", a)
	}
	if code, _, _ := run(t, "analyze", "--min-severity", "loud", path); code != ExitUsage {
		t.Errorf("bad severity: exit %d", code)
	}
}
