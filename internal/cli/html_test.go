package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAnalyzeHTML(t *testing.T) {
	path, truth := demoLog(t)
	out := filepath.Join(t.TempDir(), "report.html")
	code, stdout, errs := run(t, "analyze", "--html", out, path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(stdout, "Where the slot time went") || !strings.Contains(errs, out) {
		t.Errorf("text report or the HTML path missing; stderr %q", errs)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{"<!DOCTYPE html>", truth.ID, `"timeline":{"mode":"exact"`, `"whatIf":`, "echarts"} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if len(b) > 3<<20 {
		t.Errorf("report is %d bytes", len(b))
	}
	// A folder that does not exist is an error, not a panic or a stray file.
	if code, _, _ := run(t, "analyze", "--html", filepath.Join(t.TempDir(), "no", "such", "r.html"), path); code == ExitOK {
		t.Error("writing into a missing folder succeeded")
	}
}

func TestWriteHTMLReportReplaces(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.html")
	if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeHTMLReport(out, nil); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if !strings.HasPrefix(string(b), "<!DOCTYPE html>") {
		t.Errorf("report not replaced: %.20q", b)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".clusterlens-report-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
