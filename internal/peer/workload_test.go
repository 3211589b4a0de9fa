package peer

import (
	"math"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// handApp is one application with attempts on two hosts: h1 runs two
// overlapping attempts in [0, 10 s), h2 one attempt in [5 s, 10 s) that failed.
func handApp() *model.App {
	st := &model.Stage{}
	st.Tasks = []model.Task{
		{Launch: 0, Finish: 10_000, Host: 1, Status: model.TaskSuccess},
		{Launch: 2_000, Finish: 6_000, Host: 1, Status: model.TaskSuccess},
		{Launch: 5_000, Finish: 10_000, Host: 2, Status: model.TaskFailed},
	}
	return &model.App{Hosts: []string{"", "h1", "h2"}, Stages: []*model.Stage{st}, End: 10_000}
}

func TestWorkloadLoadAndGroups(t *testing.T) {
	w := NewWorkload([]*model.App{handApp()})
	for _, c := range []struct {
		host     string
		from, to int64
		load     float64
		failed   int
		group    int
	}{
		{"h1", 0, 10_000, 1.4, 0, 2},      // (10 + 4) s of attempts over 10 s
		{"h1", 6_000, 10_000, 1, 0, 2},    // only the long attempt
		{"h2", 0, 5_000, 0, 0, 0},         // idle
		{"h2", 0, 6_000, 1.0 / 6, 1, Any}, // the attempt that will fail is running
		{"h2", 0, 20_000, 0.25, 1, Any},
		{"h3", 0, 10_000, 0, 0, 0}, // never seen
	} {
		if got := w.Load(c.host, c.from, c.to); math.Abs(got-c.load) > 1e-9 {
			t.Errorf("Load(%s, %d, %d) = %g, want %g", c.host, c.from, c.to, got, c.load)
		}
		if got := w.Failed(c.host, c.from, c.to); got != c.failed {
			t.Errorf("Failed(%s, %d, %d) = %d, want %d", c.host, c.from, c.to, got, c.failed)
		}
		if got := w.Group(c.host, c.from, c.to); got != c.group {
			t.Errorf("Group(%s, %d, %d) = %d, want %d", c.host, c.from, c.to, got, c.group)
		}
	}
	if !w.Has("h1") || w.Has("h3") {
		t.Errorf("Has(h1) = %v, Has(h3) = %v, want true, false", w.Has("h1"), w.Has("h3"))
	}
	// Stage median of (10, 4, 5) s is 5 s: h1's attempts ran 2x and 0.8x.
	if sd, n := w.Slowdown("h1", 0, 10_000); n != 2 || math.Abs(sd-1.4) > 1e-6 {
		t.Errorf("Slowdown(h1) = %g over %d, want 1.4 over 2", sd, n)
	}
}

// TestWorkloadModel: with a model expecting h1 to take twice the typical
// node's time, its durations halve before the stage median: (5, 2, 5) s,
// median 5 s, so h1's attempts ran 1x and 0.4x its own expectation.
func TestWorkloadModel(t *testing.T) {
	expect := func(*model.App) func(model.StageKey, string) (float64, bool) {
		return func(_ model.StageKey, h string) (float64, bool) { return 2, h == "h1" }
	}
	w := NewWorkloadModel([]*model.App{handApp()}, expect)
	if sd, n := w.Slowdown("h1", 0, 10_000); n != 2 || math.Abs(sd-0.7) > 1e-6 || !w.Modelled() {
		t.Errorf("Slowdown(h1) = %g over %d (modelled %v), want 0.7 over 2, modelled", sd, n, w.Modelled())
	}
	v := Attribute([]NodeStatus{{Host: "h1", FirstIndicted: 5_000, Evidence: []MetricEvidence{{Metric: "cpu_user_pct", Z: 2}}}}, w, DefaultParams())
	if len(v) != 1 || !v[0].AgainstModel || !strings.Contains(v[0].SlowdownText(), "own model") {
		t.Errorf("verdicts %+v: want one against its model", v)
	}
}

func TestResourceOf(t *testing.T) {
	ev := func(kv ...any) []MetricEvidence {
		var out []MetricEvidence
		for i := 0; i < len(kv); i += 2 {
			out = append(out, MetricEvidence{Metric: kv[i].(string), Z: kv[i+1].(float64)})
		}
		return out
	}
	for _, c := range []struct {
		ev   []MetricEvidence
		want string
	}{
		{ev("cpu_user_pct", 3.0, "load1", 2.0, "cpu_iowait_pct", 0.5), "cpu"},
		{ev("cpu_user_pct", 0.2, "disk_write_bytes_per_s", 2.5, "cpu_iowait_pct", 1.8), "disk"},
		{ev("cpu_user_pct", -0.8, "procs_runnable", -0.5, "load1", 2.0), "hang"},
		{ev("cpu_user_pct", -0.9, "procs_runnable", -0.6, "procs_total", -1.2), "hang"},
		// The hang of evaluation seed 11 at 10 nodes (its one-minute load 0.87 above its peers', page faults up).
		{ev("cpu_user_pct", -1.01, "procs_runnable", -1.05, "load1", 0.87, "context_switches_per_s", 0.70, "page_faults_per_s", 1.12), "hang"},
		{ev("cpu_user_pct", -0.6, "procs_runnable", -0.6, "load1", 0.5, "cpu_iowait_pct", 2.0, "disk_write_bytes_per_s", 2.5), "disk"},
		{ev("cpu_user_pct", 0.4, "cpu_system_pct", 3.0, "net_rx_bytes_per_s", 1.0), "network"},
		{ev("cpu_user_pct", 0.4, "net_tx_bytes_per_s", -2.0), "network"},
	} {
		if got := resourceOf(c.ev); got != c.want {
			t.Errorf("%v: %s, want %s", c.ev, got, c.want)
		}
	}
}

func TestVictims(t *testing.T) {
	const w = 60_000
	v := []Verdict{
		{Host: "a", Role: "culprit", Resource: "cpu", FirstIndicted: 100_000, Alarms: 12},
		{Host: "b", Role: "culprit", Resource: "network", FirstIndicted: 130_000, Alarms: 9},
		{Host: "c", Role: "culprit", Resource: "disk", FirstIndicted: 200_000, Alarms: 20},
		{Host: "d", Role: "culprit", Resource: "cpu", FirstIndicted: 900_000, Alarms: 3}, // its own episode
	}
	victims(v, 3*w)
	want := map[string]string{"a": "victim b", "b": "culprit ", "c": "victim b", "d": "culprit "}
	for _, x := range v {
		if got := x.Role + " " + x.VictimOf; got != want[x.Host] {
			t.Errorf("%s: %q, want %q", x.Host, got, want[x.Host])
		}
	}
}
