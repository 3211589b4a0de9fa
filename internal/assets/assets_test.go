package assets

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestPinned: package.json, the lock file and the embedded file name the
// same ECharts version, so refresh.sh re-vendors what the binary says it
// embeds.
func TestPinned(t *testing.T) {
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	var lock struct {
		Packages map[string]struct {
			Version   string `json:"version"`
			Integrity string `json:"integrity"`
		} `json:"packages"`
	}
	for name, v := range map[string]any{"package.json": &pkg, "package-lock.json": &lock} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if got := pkg.Dependencies["echarts"]; got != EChartsVersion {
		t.Errorf("package.json pins echarts %q, the binary says %s", got, EChartsVersion)
	}
	if e := lock.Packages["node_modules/echarts"]; e.Version != EChartsVersion || e.Integrity == "" {
		t.Errorf("package-lock.json has echarts %q (integrity %q), want %s with its hash", e.Version, e.Integrity, EChartsVersion)
	}
	if !strings.Contains(EChartsJS[:min(len(EChartsJS), 4096)], "Apache Software Foundation") {
		t.Error("echarts.min.js: no Apache license header")
	}
	if !strings.Contains(EChartsJS, `"`+EChartsVersion+`"`) {
		t.Errorf("echarts.min.js does not carry version %s", EChartsVersion)
	}
}
