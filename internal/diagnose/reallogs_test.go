package diagnose

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestRunRealLogs runs every detector on every real log (Spark and
// MapReduce): nothing may fail or panic, every finding must be complete
// (id, title, severity above none, scope with ids, graded evidence, source),
// and the Sparklens test log, whose driver worked alone 15522 of 15975 ms,
// must be driver-bound (critical) once the one-minute gate is lowered.
func TestRunRealLogs(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	res, err := decodelogs.Paths([]string{root}, decodelogs.Options{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	counts := map[string]int{}
	for _, app := range res.Apps {
		fs := Run(app, Options{})
		name, _ := filepath.Rel(root, app.Source)
		for _, f := range fs {
			counts[f.ID]++
			graded := false
			for _, e := range f.Evidence {
				graded = graded || len(e.Limits) == 4
			}
			if f.ID == "" || f.Title == "" || f.Severity == None || f.Scope.Kind == "" || len(f.Scope.IDs) == 0 || !graded || f.Source == "" || f.Summary == "" {
				t.Errorf("%s: incomplete finding %+v", name, f)
			}
			fmt.Fprintf(&report, "%-50s %-20s %-9s %s %v\n", short(name), f.ID, f.Severity, f.Scope.Kind, f.Scope.IDs)
		}
	}
	t.Logf("%d applications, findings by detector %v\n%s", len(res.Apps), counts, report.String())

	path := filepath.Join(root, "sparklens/src/test/event-history-test-files/local-1532512550423")
	one, err := decodelogs.Paths([]string{path}, decodelogs.Options{Workers: 1})
	if err != nil || len(one.Apps) != 1 {
		t.Fatalf("load %s: %v", path, err)
	}
	// It is a spark-shell session: its driver-only time lies between
	// commands, a person thinking, so even with the gate lowered it is not
	// driver-bound; in local mode its idle threads cost nothing either.
	p := DefaultDriverBoundParams
	p.MinDriverMs = 0
	app := one.Apps[0]
	opts := Options{Only: []string{"driver-bound", "idle-session"}, Params: map[string]any{"driver-bound": p, "idle-session": p}}
	if fs := Run(app, opts); len(fs) != 0 {
		t.Errorf("sparklens shell session: %+v", fs)
	}
	// Run as a batch application, the same gaps are the driver's: 15522 of
	// 15975 ms (the rule's grade critical; 15.5 s is a low impact).
	batch := *app
	batch.Name = "batch"
	batch.Env.Spark = slices.DeleteFunc(slices.Clone(app.Env.Spark), func(kv [2]string) bool { return kv[0] == "spark.repl.class.uri" })
	fs := Run(&batch, opts)
	if len(fs) != 1 || fs[0].ID != "driver-bound" || fs[0].RuleSeverity != Critical || fs[0].Severity != Low || !near(fs[0].Evidence[0].Value, 15522.0/15975) {
		t.Errorf("sparklens log as a batch application: %+v", fs)
	}
	// A shell a platform's job started (a Databricks job cluster's
	// application is a "Databricks Shell" too) is no person's session: the
	// same gaps are the driver's.
	job := *app
	job.Platform.Cluster.Job = "job 313 run 18"
	fs = Run(&job, opts)
	if len(fs) != 1 || fs[0].ID != "driver-bound" || !near(fs[0].Evidence[0].Value, 15522.0/15975) {
		t.Errorf("sparklens log started by a platform's job: %+v", fs)
	}
}

func short(s string) string {
	if len(s) <= 50 {
		return s
	}
	return "…" + s[len(s)-49:]
}
