package model_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestDependencyDirection enforces the layering of docs/ARCHITECTURE.md:
// model and finding import nothing of the project, the wire format only
// model, decoders and stats do not import analyses or presentation, the
// run history not the detectors, the composition of analyses and the live
// feeds no presentation, the web UI composes nothing itself (it asks
// internal/driver), nothing imports cli, and nothing html/template
// or Prometheus's Go client (each keeps megabytes of unused code alive).
func TestDependencyDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "github.com/clusterlens/clusterlens/...").Output()
	if err != nil {
		t.Skip("go list unavailable:", err)
	}
	const mod = "github.com/clusterlens/clusterlens/"
	presentation := []string{"internal/cli", "internal/report", "internal/web", "internal/shs", "internal/summary", "internal/decodelogs"}
	banned := map[string][]string{ // package -> project packages it must not depend on
		"internal/model":     {"*"},
		"internal/jsonscan":  {"*"},
		"internal/lines":     {"*"},
		"internal/codec":     append([]string{"internal/model", "internal/eventlog", "internal/mapreduce"}, presentation...),
		"internal/eventlog":  presentation,
		"internal/mapreduce": presentation,
		"internal/stats":     append([]string{"internal/eventlog", "internal/mapreduce"}, presentation...),
		"internal/shs":       {"internal/cli", "internal/report", "internal/decodelogs"},
		"internal/summary":   {"internal/cli", "internal/report", "internal/decodelogs"},
		// The run history and the node diagnosis speak the findings
		// vocabulary (internal/finding), not the detectors.
		"internal/history":  {"internal/diagnose", "internal/analysis", "internal/report"},
		"internal/nodediag": {"internal/diagnose"},
		// The composition of analyses renders nothing and serves nothing.
		"internal/analysis": {"internal/report", "internal/web", "internal/server", "internal/decodelogs"},
		// What is still happening is followed, not presented.
		"internal/live":   {"internal/report", "internal/web", "internal/server", "internal/analysis"},
		"internal/report": {"internal/web", "internal/server"},
		// Explaining a run reads the run history; it renders nothing.
		"internal/explain": {"internal/report", "internal/web", "internal/server", "internal/decodelogs", "internal/diagnose"},
		"internal/web":     {"internal/server"},
		// The composition of inputs into analyses presents nothing.
		"internal/driver": {"internal/report", "internal/web", "internal/server", "internal/htmlw"},
	}
	// What a package must not import itself (it may reach them through
	// the packages it imports): the web UI asks the composition layer
	// (internal/driver) for analyses, node assessments, peer diagnoses,
	// predictions and node samples, and presents them; it reads no log,
	// store or model itself.
	direct := map[string][]string{
		"internal/web": {"internal/decodelogs", "internal/eventlog", "internal/mapreduce", "internal/metrics",
			"internal/source", "internal/store", "internal/predict", "internal/hetero", "internal/nodediag"},
	}
	// Leaves that may import only the listed project packages.
	allowed := map[string][]string{
		"internal/finding":  {},
		"internal/assets":   {},
		"internal/htmlw":    {},
		"internal/promtext": {},
		"internal/wire":     {"internal/model"},
		// The agent alone (what runs on every node) carries the agent and
		// nothing of the analyses.
		"cmd/clusterlens-agent": {"internal/agentcmd", "internal/agent", "internal/sampler", "internal/wire", "internal/model"},
		"internal/agentcmd":     {"internal/agent", "internal/sampler", "internal/wire", "internal/model"},
	}
	imports, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "github.com/clusterlens/clusterlens/...").Output()
	if err != nil {
		t.Skip("go list unavailable:", err)
	}
	// Leaves whose modules outside the standard library are listed (a
	// message's byte count is no reason for a dependency).
	modules := map[string][]string{
		"internal/lines": {},
		"internal/codec": {"github.com/klauspost/compress/", "github.com/pierrec/lz4/"},
	}
	for _, line := range strings.Split(strings.TrimSpace(string(imports)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		for _, imp := range fields[1:] {
			if ok, listed := modules[pkg]; listed && strings.Contains(strings.Split(imp, "/")[0], ".") && !strings.HasPrefix(imp, mod) &&
				!slices.ContainsFunc(ok, func(m string) bool { return strings.HasPrefix(imp, m) }) {
				t.Errorf("%s imports %s (it may import only the standard library and %v)", pkg, imp, ok)
			}
			if d, ours := strings.CutPrefix(imp, mod); ours && slices.Contains(direct[pkg], d) {
				t.Errorf("%s imports %s (it asks internal/driver)", pkg, d)
			}
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		for _, dep := range fields[1:] {
			if dep == "html/template" {
				// Executing a template keeps every exported method of the
				// program in the binary (.ci/binsize.sh measures it).
				t.Errorf("%s depends on html/template: write HTML with internal/htmlw", pkg)
			}
			if strings.HasPrefix(dep, "github.com/prometheus/client_golang/") {
				// It links Protocol Buffers: 3.3 MB for /metrics.
				t.Errorf("%s depends on %s: serve metrics with internal/promtext", pkg, dep)
			}
			d, ours := strings.CutPrefix(dep, mod)
			if !ours {
				continue
			}
			if d == "internal/cli" && pkg != "cmd/clusterlens" {
				t.Errorf("%s imports internal/cli", pkg)
			}
			if ok, leaf := allowed[pkg]; leaf && !slices.Contains(ok, d) {
				t.Errorf("%s depends on %s (it may import only %v)", pkg, d, ok)
			}
			for _, b := range banned[pkg] {
				if b == "*" || d == b {
					t.Errorf("%s depends on %s", pkg, d)
				}
			}
		}
	}
}
