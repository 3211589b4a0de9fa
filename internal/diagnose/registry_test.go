package diagnose

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// TestRegistry checks the built-in detectors: unique names in order, a
// citation each, typed defaults, and wrong parameter types refused.
func TestRegistry(t *testing.T) {
	var names []string
	for _, d := range Detectors() {
		names = append(names, d.Name())
		if d.Title() == "" || !contains(d.Source(), ".scala") && !contains(d.Source(), ".java") && !contains(d.Source(), "§") {
			t.Errorf("%s: title %q, source %q", d.Name(), d.Title(), d.Source())
		}
		if k := reflect.TypeOf(d.DefaultParams()).Kind(); k != reflect.Struct {
			t.Errorf("%s: params are a %v, want a struct", d.Name(), k)
		}
		if _, err := d.Detect(NewInput(newApp(1, 1, 1).app), struct{}{}); err == nil {
			t.Errorf("%s: accepted params of the wrong type", d.Name())
		}
		p := d.DefaultParams()
		if _, err := d.Detect(NewInput(newApp(1, 1, 1).app), p); err != nil {
			t.Errorf("%s: refused its defaults: %v", d.Name(), err)
		}
	}
	want := []string{"critical-stage-tail", "data-skew", "driver-bound", "executor-churn", "idle-session", "low-parallelism", "scheduling-gap", "shuffle-gap",
		"spill", "sql-adaptive", "sql-broadcast-too-large", "sql-cartesian", "sql-full-scan", "sql-idle-cores", "sql-should-broadcast", "sql-skewed-join", "sql-small-files",
		"straggler-nodes", "straggler-tasks",
		"too-few-executors", "too-few-partitions", "too-many-executors", "uneven-placement", "workload-imbalance"}
	want = withDrElephant(want)
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("detectors (-want +got):\n%s", diff)
	}
	if err := Register(Func[struct{}]{ID: "driver-bound"}); err == nil {
		t.Error("duplicate registration accepted")
	}
	if err := Validate(Options{Only: []string{"no-such"}}); err == nil {
		t.Error("unknown detector accepted")
	}
	if err := Validate(Options{Params: map[string]any{"driver-bound": LowParallelismParams{}}}); err == nil {
		t.Error("wrong params type accepted")
	}
	p := DefaultDriverBoundParams
	if err := Validate(Options{Params: map[string]any{"driver-bound": &p}}); err != nil {
		t.Errorf("pointer params refused: %v", err)
	}
}

// TestRunOrderAndJSON: a run with several findings is ordered by impact
// (the driver's 540 s, then the stage's 54 s saved split over the idle
// slots, then the slots' core time alone), filters by severity and
// options, and round-trips through JSON.
func TestRunOrderAndJSON(t *testing.T) {
	b := newApp(600, 10, 4).job(0, nil, 100, 40, repeat(4, 60)...)
	all := Run(b.app, Options{})
	var ids []string
	for _, f := range all {
		ids = append(ids, f.ID)
	}
	want := []string{"driver-bound", "low-parallelism", "too-many-executors"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Fatalf("finding ids (-want +got):\n%s", diff)
	}
	again := Run(b.app, Options{})
	if diff := cmp.Diff(all, again); diff != "" {
		t.Errorf("second run differs:\n%s", diff)
	}
	if got := Run(b.app, Options{Skip: []string{"driver-bound"}, MinSeverity: Moderate}); len(got) == 0 || got[0].ID == "driver-bound" {
		t.Errorf("skip/min severity: %+v", got)
	}
	for _, f := range Run(b.app, Options{MinSeverity: Critical}) {
		if f.Severity != Critical {
			t.Errorf("MinSeverity kept %v", f.Severity)
		}
	}
	raw, err := json.Marshal(all)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(string(raw), `"severity":"critical"`) || !contains(string(raw), `"kind":"application"`) {
		t.Errorf("json: %s", raw)
	}
	var back []Finding
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all, back); diff != "" {
		t.Errorf("json round trip (-want +got):\n%s", diff)
	}
}
