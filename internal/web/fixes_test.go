package web

import (
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/live"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/report"
)

// TestLiveNodesHeading: the live nodes heading says what its numbers are
// (it read "5236 samples taken in").
func TestLiveNodesHeading(t *testing.T) {
	const since = 1_780_000_000_000
	var w htmlw.Writer
	writeLiveNodesPart(&w, &liveNodesData{View: &live.NodesView{Samples: 5236, Since: since,
		Nodes: []live.Node{{Host: "a"}, {Host: "b"}}}})
	want := "2 nodes, their newest samples; 5,236 samples read since " + report.Time(since)
	if got := w.String(); !strings.Contains(got, want) || strings.Contains(got, "taken in") {
		t.Errorf("heading %q, want %q", got[strings.Index(got, "<h2>Every node"):], want)
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 2367: "2,367", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestCompareShowsImprovements: a stage that got faster shows its change
// with a minus sign; it showed "-" (issue 23), so improvements never showed.
func TestCompareShowsImprovements(t *testing.T) {
	d := &compareData{AppA: &model.App{ID: "a"}, AppB: &model.App{ID: "b"}, StagesAll: 2, Stages: []stageDiff{
		{A: history.Stage{ID: 1, Name: "faster", DurationMs: 4000}, B: history.Stage{ID: 1, Name: "faster", DurationMs: 2500}, DeltaMs: -1500},
		{A: history.Stage{ID: 2, Name: "slower", DurationMs: 100}, B: history.Stage{ID: 2, Name: "slower", DurationMs: 440}, DeltaMs: 340},
	}}
	var w htmlw.Writer
	writeCompare(&w, d)
	for _, want := range []string{`<td class="num">-1.5s</td>`, `<td class="num">&#43;340ms</td>`} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("compare page lacks %s", want)
		}
	}
}

// TestFindingLinks: each finding links to the pages it is about: a
// stage's page (its attempt too), a query's plan at its operator, a job,
// a node, a task's stage, the executors for an executor finding.
func TestFindingLinks(t *testing.T) {
	app := &model.App{ID: "app-1", Stages: []*model.Stage{{ID: 4, Attempt: 1, Tasks: []model.Task{{ID: 77}}}}}
	fs := []finding.Finding{
		{ID: "skew", Scope: finding.Scope{Kind: finding.ScopeStage, IDs: []string{"3", "4.1"}}},
		{ID: "sql-skewed-join", Scope: finding.Scope{Kind: finding.ScopeQuery, IDs: []string{"2/7"}}},
		{ID: "job-runtime", Scope: finding.Scope{Kind: finding.ScopeJob, IDs: []string{"5"}}},
		{ID: "straggler-nodes", Scope: finding.Scope{Kind: finding.ScopeNode, IDs: []string{"h1"}}},
		{ID: "stragglers", Scope: finding.Scope{Kind: finding.ScopeTask, IDs: []string{"77", "999"}}},
		{ID: "executor-gc", Scope: finding.Scope{Kind: finding.ScopeApplication, IDs: []string{"app-1"}}},
	}
	want := [][][2]string{
		{{"stage 3", "/app/app-1/stage/3/0"}, {"stage 4.1", "/app/app-1/stage/4/1"}},
		{{"query 2 operator 7", "/app/app-1/sql/2#node-7"}},
		{{"job 5", "/app/app-1/jobs#job-5"}},
		{{"h1", "/node/h1"}},
		{{"task 77", "/app/app-1/stage/4/1"}},
		{{"executors", "/app/app-1/executors"}},
	}
	for i, lf := range linkFindings(app, fs) {
		if !slices.Equal(lf.Links, want[i]) {
			t.Errorf("%s: links %v, want %v", lf.ID, lf.Links, want[i])
		}
	}
}
