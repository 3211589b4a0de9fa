package diagnose

import (
	"encoding/json"
	"math"
	"path/filepath"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// hybridDetectors are the HybridTune, BDTune and HiTune detectors.
var hybridDetectors = []string{"workload-imbalance", "data-skew", "uneven-placement", "straggler-tasks", "straggler-nodes", "scheduling-gap", "shuffle-gap"}

// TestHybridRealLogs runs each HybridTune, BDTune and HiTune detector on
// every real log (Spark and MapReduce) through Detect: no error, and every
// finding complete (id, title, severity, scope with ids, one graded
// evidence, finite numbers, summary, recommendation, source) and valid
// JSON. It logs the findings per detector.
func TestHybridRealLogs(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	res, err := decodelogs.Paths([]string{root}, decodelogs.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	apps := map[string]int{}
	for _, app := range res.Apps {
		in := NewInput(app)
		name, _ := filepath.Rel(root, app.Source)
		for _, id := range hybridDetectors {
			d, ok := Lookup(id)
			if !ok {
				t.Fatalf("detector %s not registered", id)
			}
			fs, err := d.Detect(in, nil)
			if err != nil {
				t.Errorf("%s on %s: %v", id, name, err)
				continue
			}
			if len(fs) > 0 {
				apps[id]++
			}
			for _, f := range fs {
				counts[id]++
				checkComplete(t, name, f)
			}
		}
	}
	if len(res.Apps) == 0 {
		t.Fatal("no applications")
	}
	t.Logf("%d applications; findings by detector %v; applications with findings %v", len(res.Apps), counts, apps)
}

// checkComplete fails on an incomplete finding.
func checkComplete(t *testing.T, name string, f Finding) {
	t.Helper()
	graded := false
	for _, e := range f.Evidence {
		graded = graded || len(e.Limits) == 4
		if math.IsNaN(e.Value) || math.IsInf(e.Value, 0) || e.Name == "" || e.Unit == "" {
			t.Errorf("%s: %s: bad evidence %+v", name, f.ID, e)
		}
	}
	if f.ID == "" || f.Title == "" || f.Severity == None || f.Scope.Kind == "" || len(f.Scope.IDs) == 0 || !graded ||
		f.Source == "" || f.Summary == "" || f.Recommendation == "" {
		t.Errorf("%s: incomplete finding %+v", name, f)
	}
	for _, id := range f.Scope.IDs {
		if id == "" {
			t.Errorf("%s: %s: empty scope id in %+v", name, f.ID, f.Scope)
		}
	}
	if _, err := json.Marshal(f); err != nil {
		t.Errorf("%s: %s: %v", name, f.ID, err)
	}
}
