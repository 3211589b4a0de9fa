package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sim"
)

// TestDemoCulprits runs the demo and checks its culprit lines against the
// ground truth the simulator wrote (truth.json: a CPU hog and a disk hog):
// each faulty node named culprit with its resource, no other node named,
// and the report written where the output says.
func TestDemoCulprits(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := run(t, "demo", "--dir", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "truth.json"))
	if err != nil {
		t.Fatal(err)
	}
	var truth sim.Truth
	if err := json.Unmarshal(b, &truth); err != nil {
		t.Fatal(err)
	}
	title := map[string]string{"cpu": "CPU contention", "disk": "disk contention"}
	want := map[string]string{}
	for _, f := range truth.Faults {
		want[f.Host] = title[f.Resource]
	}
	if len(want) != 2 {
		t.Fatalf("demo truth: faults %+v, want a CPU hog and a disk hog", truth.Faults)
	}
	line := regexp.MustCompile(`clusterlens demo: \[\w+\] Culprit node: ([^\[]+) \[([^\]]+)\]`)
	found := map[string]bool{}
	for _, m := range line.FindAllStringSubmatch(out, -1) {
		res, host := strings.TrimSpace(m[1]), m[2]
		if want[host] == "" {
			t.Errorf("demo names innocent node %s culprit (%s)", host, res)
			continue
		}
		if res != want[host] {
			t.Errorf("demo: culprit %s with %q, want %q", host, res, want[host])
		}
		found[host] = true
	}
	for h := range want {
		if !found[h] {
			t.Errorf("demo did not name %s culprit:\n%s", h, lastLines(out, 12))
		}
	}
	if !strings.Contains(out, "Node diagnosis") || !strings.Contains(out, "profile self-trained") {
		t.Error("demo output lacks the node diagnosis section")
	}
	report := filepath.Join(dir, "report.html")
	if !strings.Contains(out, "open the report: "+report) {
		t.Errorf("demo output lacks the report's path")
	}
	if html, err := os.ReadFile(report); err != nil || !strings.Contains(string(html), `"culprits"`) {
		t.Errorf("report %s: %v, or no culprits in its data", report, err)
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}
