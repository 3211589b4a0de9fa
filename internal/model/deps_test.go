package model_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyDirection enforces DESIGN.md's layering: model imports
// nothing of the project, decoders and stats do not import analyses or
// presentation, and nothing imports cli.
func TestDependencyDirection(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, "github.com/clusterlens/clusterlens/...").Output()
	if err != nil {
		t.Skip("go list unavailable:", err)
	}
	const mod = "github.com/clusterlens/clusterlens/"
	presentation := []string{"internal/cli", "internal/report", "internal/web", "internal/shs", "internal/summary", "internal/load"}
	banned := map[string][]string{ // package -> project packages it must not depend on
		"internal/model":     {"*"},
		"internal/jsonscan":  {"*"},
		"internal/lines":     {"*"},
		"internal/codec":     append([]string{"internal/model", "internal/eventlog", "internal/mapreduce"}, presentation...),
		"internal/eventlog":  presentation,
		"internal/mapreduce": presentation,
		"internal/stats":     append([]string{"internal/eventlog", "internal/mapreduce"}, presentation...),
		"internal/shs":       {"internal/cli", "internal/report", "internal/load"},
		"internal/summary":   {"internal/cli", "internal/report", "internal/load"},
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		for _, dep := range fields[1:] {
			d, ours := strings.CutPrefix(dep, mod)
			if !ours {
				continue
			}
			if d == "internal/cli" && pkg != "cmd/clusterlens" {
				t.Errorf("%s imports internal/cli", pkg)
			}
			for _, b := range banned[pkg] {
				if b == "*" || d == b {
					t.Errorf("%s depends on %s", pkg, d)
				}
			}
		}
	}
}
