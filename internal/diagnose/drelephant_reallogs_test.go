package diagnose

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestDrElephantRealLogs runs every Dr. Elephant heuristic on every real
// log in the shared data: none may fail, each finding must be complete,
// carry finite, JSON-encodable evidence with at least one number graded
// against four limits, and scope MapReduce findings to stage 0 or 1. It
// logs the findings per heuristic and application kind.
func TestDrElephantRealLogs(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	res, err := decodelogs.Paths([]string{root}, decodelogs.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]map[string]int{}
	var report strings.Builder
	apps := map[string]int{}
	for _, app := range res.Apps {
		apps[app.Engine.String()]++
		in := NewInput(app)
		name, _ := filepath.Rel(root, app.Source)
		for _, id := range drElephantDetectors {
			d, ok := Lookup(id)
			if !ok {
				t.Fatalf("%s not registered", id)
			}
			fs, err := d.Detect(in, nil)
			if err != nil {
				t.Errorf("%s on %s: %v", id, name, err)
			}
			for _, f := range fs {
				checkDrFinding(t, name, f)
				if counts[id] == nil {
					counts[id] = map[string]int{}
				}
				counts[id][f.Severity.String()]++
				fmt.Fprintf(&report, "%-50s %-31s %-8s %v\n", short(name), id, f.Severity, f.Scope.IDs)
			}
		}
	}
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var summary strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&summary, "\n%-31s %v", id, counts[id])
	}
	t.Logf("%d applications %v; findings by heuristic and severity:%s\n%s", len(res.Apps), apps, summary.String(), report.String())
}

// checkDrFinding checks one finding's shape.
func checkDrFinding(t *testing.T, name string, f Finding) {
	t.Helper()
	graded := false
	for _, e := range f.Evidence {
		graded = graded || len(e.Limits) == 4
		if math.IsNaN(e.Value) || math.IsInf(e.Value, 0) {
			t.Errorf("%s %s: evidence %s = %v", name, f.ID, e.Name, e.Value)
		}
	}
	if f.ID == "" || f.Title == "" || f.Severity == None || f.Scope.Kind == "" || len(f.Scope.IDs) == 0 || !graded ||
		!strings.HasPrefix(f.Source, drSource) || f.Summary == "" || f.Recommendation == "" {
		t.Errorf("%s: incomplete finding %+v", name, f)
	}
	if f.Scope.Kind == ScopeStage && f.Scope.IDs[0] != "0" && f.Scope.IDs[0] != "1" {
		t.Errorf("%s %s: scope %v", name, f.ID, f.Scope)
	}
	if _, err := json.Marshal(f); err != nil {
		t.Errorf("%s %s: marshal: %v", name, f.ID, err)
	}
}
