package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/nodediag"
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
	for _, f := range truth.Faults {
		if want := "injected " + f.Kind + " on " + f.Host + " (truth.json): named by culprit-node [severe]"; !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, lastLines(out, 8))
		}
	}
}

// TestPrintAgainstTruth: each fault's node with the detectors that name it,
// highest severity first and each once; a fault no finding names said so;
// a culprit where nothing was injected named as such.
func TestPrintAgainstTruth(t *testing.T) {
	node := func(id string, sev finding.Severity, hosts ...string) finding.Finding {
		return finding.Finding{ID: id, Severity: sev, Scope: finding.Scope{Kind: finding.ScopeNode, IDs: hosts}}
	}
	as := []*analysis.Analysis{
		{Findings: []finding.Finding{
			node("straggler-nodes", finding.Low, "a"),
			node("abnormal-node", finding.Moderate, "a"),
			node(nodediag.IDCulprit, finding.Severe, "c"),
			{ID: "data-skew", Severity: finding.Critical, Scope: finding.Scope{Kind: finding.ScopeTask, IDs: []string{"b"}}},
		}},
		{Findings: []finding.Finding{node("straggler-nodes", finding.Severe, "a")}},
	}
	tr := &sim.Truth{Faults: []sim.FaultTruth{{Kind: "cpu-hog", Host: "a"}, {Kind: "disk-hog", Host: "b"}}}
	var b strings.Builder
	printAgainstTruth(&b, as, tr)
	want := `clusterlens demo: injected cpu-hog on a (truth.json): named by straggler-nodes [severe], abnormal-node [moderate]
clusterlens demo: injected disk-hog on b (truth.json): no finding names the node
clusterlens demo: c named culprit, where nothing was injected
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}
