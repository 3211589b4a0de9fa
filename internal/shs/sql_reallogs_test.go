package shs

import (
	"fmt"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestSQLRealLogs serves /sql and /sql/{id} for every application of the
// real logs (read as serve reads a folder) and checks each execution is
// listed once, in id order, answered alone the same, and marshals; and,
// as SqlResourceWithActualMetricsSuite asserts of its query, that a
// completed execution whose jobs all succeeded lists its jobs as
// successful, none running or failed, and has nodes, most of them (but
// WholeStageCodegen, Project and SerializeFromObject) with metrics. The
// History Server conformance folder (shs-expectations, which has no /sql
// case) is served the same way: its two applications with SQL executions.
func TestSQLRealLogs(t *testing.T) {
	apps, execs, completed, nodes, withMetrics := serveSQL(t, sharedtest.Dir(t, "logs"))
	t.Logf("%d applications, %d executions served; %d completed with succeeded jobs: %d of their %d nodes have metrics",
		apps, execs, completed, withMetrics, nodes)
	// Logs of one application id in several files count once in the index.
	if apps < 45 || execs < 230 || withMetrics*10 < nodes*8 {
		t.Errorf("want 45 applications, 230 executions and 80%% of nodes with metrics")
	}
	apps, execs, _, _, _ = serveSQL(t, filepath.Join(sharedtest.Dir(t, "shs-expectations"), "spark-events"))
	t.Logf("shs-expectations: %d applications, %d executions served", apps, execs)
	if apps != 2 || execs != 3 {
		t.Errorf("shs-expectations: %d applications and %d executions served, want 2 and 3", apps, execs)
	}
}

// serveSQL serves /sql and /sql/{id} for every application under dir and
// counts what it served.
func serveSQL(t *testing.T, dir string) (apps, execs, completed, nodes, withMetrics int) {
	t.Helper()
	ix := NewIndex(loadDir(t, dir))
	ix.Now = func() time.Time { return time.UnixMilli(1_800_000_000_000) } // running executions' durations
	excluded := map[string]bool{"WholeStageCodegen": true, "Project": true, "SerializeFromObject": true}
	for _, e := range ix.apps {
		for _, a := range e.attempts {
			if len(a.SQL) == 0 {
				continue
			}
			apps++
			base := "applications/" + a.ID
			if a.AttemptID != "" {
				base += "/" + a.AttemptID
			}
			list := sqlList(t, ix, base+"/sql", url.Values{"length": {"1000000"}})
			if len(list) != len(a.SQL) {
				t.Errorf("%s: %d executions listed, %d read", base, len(list), len(a.SQL))
			}
			for i, d := range list {
				if i > 0 && list[i-1].ID >= d.ID {
					t.Errorf("%s: not in id order at %d", base, d.ID)
				}
				if one := sqlOne(t, ix, fmt.Sprintf("%s/sql/%d", base, d.ID), nil); !cmp.Equal(one, d) {
					t.Errorf("%s/sql/%d differs from its list entry", base, d.ID)
				}
				execs++
				if d.Status != "COMPLETED" || len(d.SuccessJobIDs) == 0 || len(d.FailedJobIDs) > 0 || len(d.RunningJobIDs) > 0 {
					continue
				}
				completed++
				if len(d.Nodes) == 0 {
					t.Errorf("%s/sql/%d: completed with jobs but no nodes", base, d.ID)
				}
				for _, n := range d.Nodes {
					if excluded[n.NodeName] || len(n.NodeName) > 17 && n.NodeName[:17] == "WholeStageCodegen" {
						continue
					}
					nodes++
					if len(n.Metrics) > 0 {
						withMetrics++
					}
				}
			}
		}
	}
	return apps, execs, completed, nodes, withMetrics
}

// TestSQLNodesAsAPI: the typed plan nodes the web UI draws are what /sql
// lists, node for node and metric for metric, for every execution of the
// real logs.
func TestSQLNodesAsAPI(t *testing.T) {
	ix := NewIndex(loadDir(t, sharedtest.Dir(t, "logs")))
	n := 0
	for _, e := range ix.apps {
		for _, a := range e.attempts {
			for _, x := range a.SQL {
				base := "applications/" + a.ID
				if a.AttemptID != "" {
					base += "/" + a.AttemptID
				}
				api := sqlOne(t, ix, fmt.Sprintf("%s/sql/%d", base, x.ID), nil)
				got := SQLNodes(x)
				if len(got) != len(api.Nodes) {
					t.Fatalf("%s/sql/%d: %d typed nodes, the API lists %d", base, x.ID, len(got), len(api.Nodes))
				}
				for i, an := range api.Nodes {
					g := got[i]
					var cg int64
					if an.WholeStageCodegenID != nil {
						cg = *an.WholeStageCodegenID
					}
					ms := make([]PlanMetric, len(g.Metrics))
					for j, m := range g.Metrics {
						ms[j] = PlanMetric{m.Key, m.Value}
					}
					if g.ID != an.NodeID || g.Name != an.NodeName || g.CodegenID != cg || !cmp.Equal(ms, an.Metrics, cmpopts.EquateEmpty()) {
						t.Fatalf("%s/sql/%d node %d: typed %+v, API %+v", base, x.ID, i, g, an)
					}
					n++
				}
			}
		}
	}
	if n < 1000 {
		t.Errorf("only %d nodes compared", n)
	}
	t.Logf("%d plan nodes: typed = API", n)
}
