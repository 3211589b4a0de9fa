package report

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestHTMLDataEveryRealLog builds the page data for every application in
// the shared logs and checks that every list the page's script walks is a
// list, never null, whatever the log lacked (tasks, executors, stages).
func TestHTMLDataEveryRealLog(t *testing.T) {
	res, err := decodelogs.Paths([]string{sharedtest.Dir(t, "logs")}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Apps) < 100 {
		t.Fatalf("only %d applications in the shared logs", len(res.Apps))
	}
	for _, app := range res.Apps {
		a := analysis.Build(app, analysis.Options{Reconstruction: true})
		h := buildHTMLApp(a, MaxTimelineBars)
		if h.Findings == nil || h.Notes == nil {
			t.Errorf("%s: findings or notes null", app.Source)
		}
		if T := h.Timeline; T != nil {
			if T.Activities == nil || T.Colors == nil || T.Rows == nil || T.Alloc == nil || T.Gaps == nil ||
				(T.Mode == "exact" && T.Bars == nil) || (T.Mode == "binned" && T.Cells == nil) || len(T.Colors) != len(T.Activities) {
				t.Errorf("%s: timeline has a null list: %+v", app.Source, T)
			}
		}
		if N := h.NodeTime; N != nil && (N.Hosts == nil || N.Busy == nil) {
			t.Errorf("%s: node heat map has a null list", app.Source)
		}
		if d := h.Dataflow; d != nil {
			if d.Stages == nil || d.Nodes == nil || len(d.Causes) != len(causeColors) {
				t.Errorf("%s: breakdown has a null list", app.Source)
			}
		}
	}
}

// TestQueriesTableLeavesCommands: a real TPC-DS run (q86 on 7 hosts) ran
// 24 CreateViewCommands beside its one query; they filled its SQL table
// (issue 23). The tables list the query and count the commands.
func TestQueriesTableLeavesCommands(t *testing.T) {
	log := filepath.Join(sharedtest.Dir(t, "logs"), "spark-rapids-2021/tools/src/test/resources/spark-events-qualification/nds_q86_test.zstd")
	res, err := decodelogs.Paths([]string{log}, decodelogs.Options{})
	if err != nil || len(res.Apps) != 1 {
		t.Fatalf("%v, %d applications", err, len(res.Apps))
	}
	a := analysis.Build(res.Apps[0], analysis.Options{})
	tb := BuildTables(a)
	if len(a.Queries) != 25 || tb.QueriesAll != 1 || len(tb.Queries) != 1 || !slices.Equal(tb.Commands, [][2]string{{"CreateViewCommand", "24"}}) {
		t.Errorf("%d executions: table lists %d of %d, commands %v; want 1 of 1 and CreateViewCommand ×24", len(a.Queries), len(tb.Queries), tb.QueriesAll, tb.Commands)
	}
}
