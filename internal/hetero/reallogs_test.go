package hetero

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// realRuns reads the logs at paths under shared/data's sub folder and
// condenses them as the index does (oldest first).
func realRuns(t *testing.T, sub string, paths ...string) []*history.Run {
	t.Helper()
	root := sharedtest.Dir(t, sub)
	var full []string
	for _, p := range paths {
		full = append(full, filepath.Join(root, p))
	}
	res, err := decodelogs.Paths(full, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	decodelogs.ByStart(res.Apps)
	var out []*history.Run
	for _, a := range res.Apps {
		out = append(out, history.FromApp(a, a.Source, false, nil))
	}
	return out
}

// speedOf returns the learned factor of host on resource.
func speedOf(t *testing.T, m *Joint, host, resource string) Factor {
	t.Helper()
	for _, s := range m.Speeds() {
		if s.Host == host {
			for _, f := range s.Factors {
				if f.Resource == resource {
					return f.Factor
				}
			}
		}
	}
	t.Fatalf("no %s factor for %s", resource, host)
	return Factor{}
}

// TestRealLogsClasses checks the node models on the real multi-host logs
// of shared/data against what their logs say of the hosts (docs/NODES.md
// has the hand check):
//
//   - Databricks, 8 r5.8xlarge workers (one run, 194 stages): one class,
//     named by the type, every factor within 10% of the median node.
//   - YARN, 6 hosts each with 4 executors of 16 cores (one run): one
//     class, every factor within 10%.
//   - YARN, 6 hosts with one or two 4-core executors each, alike
//     (tasks_executors_fail): hostname-02's tasks ran 1.5x the others' —
//     the model's CPU factor for it agrees within 10% with the ratio of
//     its mean task time to the other hosts' median, computed from the
//     runs' per-host moments alone — and it is a class of its own: the
//     logs name no instance type that would say whether it is other
//     hardware.
//   - Rumen trace of a 12-minute GridMix run (46 jobs on 7 trackers, one
//     rack, one container size): one class (before MapReduce reduces,
//     setups and cleanups were left out, their durations made 6); the 10
//     newest jobs judged against the 36 oldest: no tracker degraded.
func TestRealLogsClasses(t *testing.T) {
	within := func(f Factor, tol float64) bool { return f.Value >= 1-tol && f.Value <= 1+tol }
	for _, c := range []struct {
		name, sub, path, typ string
	}{
		{"databricks", "platform-logs", "spark-log-parser/tests/logs/databricks-rollover.zip", "r5.8xlarge"},
		{"yarn 6x4x16", "logs", "spark-rapids-2021/tools/src/test/resources/spark-events-profiling/task_job_failure_eventlog_compressed.zstd", ""},
	} {
		runs := realRuns(t, c.sub, c.path)
		m, err := Fit(runs, DefaultParams)
		if err != nil {
			t.Fatal(err)
		}
		cs := m.Classes()
		if len(cs) != 1 || !strings.HasSuffix(cs[0].Name, c.typ) {
			t.Errorf("%s: classes %+v, want one%s", c.name, cs, map[bool]string{true: " named " + c.typ}[c.typ != ""])
		}
		for _, s := range m.Speeds() {
			for _, f := range s.Factors {
				if f.Resource == ResourceCPU && !within(f.Factor, 0.1) {
					t.Errorf("%s: %s %s factor %.2f, want within 10%% of the median node", c.name, s.Host, f.Resource, f.Factor.Value)
				}
			}
		}
	}

	runs := realRuns(t, "logs", "rapids-tools/core/src/test/resources/spark-events-profiling/tasks_executors_fail_compressed_eventlog.zstd")
	m, err := Fit(runs, DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	mean := map[string][2]float64{}
	for _, h := range runs[0].Hosts {
		v := mean[h.Host]
		mean[h.Host] = [2]float64{v[0] + h.SumMs, v[1] + float64(h.Tasks)}
	}
	var others []float64
	for h, v := range mean {
		if h != "hostname-02.domain.com" {
			others = append(others, v[0]/v[1])
		}
	}
	ratio := mean["hostname-02.domain.com"][0] / mean["hostname-02.domain.com"][1] / stats.Quantiles(others, []float64{0.5})[0]
	got := speedOf(t, m, "hostname-02.domain.com", ResourceCPU)
	if r := got.Value / ratio; r < 0.9 || r > 1.1 || ratio < 1.3 {
		t.Errorf("hostname-02: CPU factor %.2f, mean task time %.2fx the other hosts': want both about 1.5 and within 10%%", got.Value, ratio)
	}
	if cs := m.Classes(); len(cs) != 2 || len(cs[1].Nodes) != 1 || cs[1].Nodes[0] != "hostname-02.domain.com" {
		t.Errorf("tasks_executors_fail: classes %+v, want hostname-02 alone beside the others", cs)
	}

	gm := realRuns(t, "logs", "hadoop-mapreduce-0.21/src/contrib/gridmix/src/test/system/resources/trace_12m.json.gz")
	if len(gm) != 46 {
		t.Fatalf("GridMix trace: %d jobs, want 46", len(gm))
	}
	m, err = Fit(gm[:36], DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	if cs := m.Classes(); len(cs) != 1 || len(cs[0].Nodes) != 7 {
		t.Errorf("GridMix trace: classes %+v, want its 7 trackers in one", cs)
	}
	for _, v := range m.Judge(gm[36:]) {
		if v.Culprit() {
			t.Errorf("GridMix trace: %s judged %s: %s", v.Host, v.Status, v.Why)
		}
	}
}
