package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/query"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// TestCompareCommand compares an application of the sql-clean scenario
// with the same application where one query was planned without
// broadcasting (sql-should-broadcast, same seed; on seed 2 the clean run
// broadcasts that join): that query's plan changed and every other query
// kept its operators.
func TestCompareCommand(t *testing.T) {
	paths := map[string]string{}
	var problemQuery int64 = -1
	for _, sc := range []string{"sql-clean", "sql-should-broadcast"} {
		dir := t.TempDir()
		if code, _, errs := run(t, "simulate", "--scenario", sc, "--seed", "2", "--out", dir); code != ExitOK {
			t.Fatalf("simulate %s: exit %d: %s", sc, code, errs)
		}
		var truth sim.Truth
		b, err := os.ReadFile(filepath.Join(dir, sim.TruthFile))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &truth); err != nil {
			t.Fatal(err)
		}
		paths[sc] = filepath.Join(dir, truth.Apps[0].Path)
		for _, p := range truth.Problems {
			if p.App == truth.Apps[0].ID && p.Query != nil {
				problemQuery = *p.Query
			}
		}
		paths[sc+"/dir"] = dir
	}
	if problemQuery < 0 {
		t.Fatal("no sql-should-broadcast problem in the first application")
	}
	code, out, errs := run(t, "compare", "--format", "json", paths["sql-clean"], paths["sql-should-broadcast"])
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Queries []query.Diff `json:"queries"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Queries) < 2 {
		t.Fatalf("%d queries compared", len(doc.Queries))
	}
	for _, d := range doc.Queries {
		if d.A.Query != d.B.Query {
			t.Errorf("query %d paired with %d", d.A.Query, d.B.Query)
		}
		if changed := !d.SamePlan; changed != (d.A.Query == problemQuery) {
			t.Errorf("query %d: plan changed %v (%v), the problem is in query %d", d.A.Query, changed, d.PlanChanges, problemQuery)
		}
	}

	code, out, errs = run(t, "compare", "--query", itoa64(problemQuery), paths["sql-clean"], paths["sql-should-broadcast"])
	if code != ExitOK || !strings.Contains(out, "plan changed:") || !strings.Contains(out, "SortMergeJoin 0→1") {
		t.Errorf("exit %d: %s\n%s", code, errs, out)
	}
	if code, _, _ := run(t, "compare", "--query", "99999", paths["sql-clean"], paths["sql-should-broadcast"]); code != ExitUsage {
		t.Errorf("an unknown query exits %d", code)
	}
	if code, _, errs := run(t, "compare", paths["sql-clean/dir"], paths["sql-should-broadcast"]); code != ExitUsage || !strings.Contains(errs, "applications") {
		t.Errorf("a folder of several applications exits %d: %s", code, errs)
	}
}

func itoa64(n int64) string { b, _ := json.Marshal(n); return string(b) }
