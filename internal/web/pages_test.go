package web

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// pageCase is one page of the fixture and what it must show.
type pageCase struct {
	name, path string
	// charts is how many charts web.js must draw; report, on an
	// application page, how many the report's script must at least draw.
	charts, report int
	// text must be in the page as a browser without JavaScript shows it.
	text []string
}

// pages are the fixture's pages: one of each view.
func (f *fixture) pages(t testing.TB) []pageCase {
	t.Helper()
	snap, err := f.ui.fleet.get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The recurring Spark job with the most runs, its two latest runs
	// compared.
	var job *history.Job
	for _, j := range snap.jobs {
		if j.Engine == model.Spark.String() && j.Runs >= 6 {
			job = j
			break
		}
	}
	if job == nil {
		t.Fatal("no recurring Spark job with 6 runs")
	}
	var runs []string
	for _, b := range snap.briefs {
		if b.JobKey == job.ID || slices.Contains(job.Variants, b.JobKey) {
			runs = append(runs, b.ID)
		}
	}
	app := runs[0]
	host := f.spark[0].Executors[1].Host
	// An application with SQL executions (a query that ran jobs, its plan
	// drawn) for the SQL tabs.
	var sqlApp *model.App
	var sqlExec int64
	for _, a := range f.sql {
		for _, x := range a.SQL {
			if len(x.Jobs) > 0 && x.Plan != nil && len(x.Plan.Nodes) > 3 && sqlApp == nil {
				sqlApp, sqlExec = a, x.ID
			}
		}
	}
	if sqlApp == nil {
		t.Fatal("no simulated application with a SQL query")
	}
	st := f.spark[0].Stages[0]
	to := url.QueryEscape(f.nodeTo())
	return []pageCase{
		{"fleet", "/fleet", 2, 0, []string{"Fleet", snap.briefs[0].ID, "Recurring jobs"}},
		{"job", "/job/" + job.ID, 1, 0, []string{job.Name, "Predicted next run", runs[1]}},
		{"apps", "/apps", 0, 0, []string{"Applications", f.spark[len(f.spark)-1].ID}},
		{"app", "/app/" + app, 2, 6, []string{"Task throughput and durations per", "Findings (", "Longest stages"}},
		{"compare", "/compare?a=" + runs[1] + "&b=" + app, 2, 0, []string{"Stages matched by signature", "Sizes and totals", "wall clock"}},
		{"nodes", "/nodes?to=" + to, 1, 0, []string{"Every node", host, "Peer diagnosis (Ganesha)"}},
		{"node", "/node/" + host + "?to=" + to, 5, 0, []string{host, "Across runs", "Peer diagnosis"}},
		{"app-jobs", "/app/" + sqlApp.ID + "/jobs", 1, 0, []string{"Completed jobs", "stages: succeeded/total"}},
		{"app-stages", "/app/" + sqlApp.ID + "/stages", 1, 0, []string{"Completed stages", "shuffle read"}},
		{"app-stage", fmt.Sprintf("/app/%s/stage/%d/%d", f.spark[0].ID, st.ID, st.Attempt), 1, 0,
			[]string{"Summary metrics for", "25th percentile", "Aggregated metrics by executor", "Tasks ("}},
		{"app-executors", "/app/" + sqlApp.ID + "/executors", 1, 0, []string{"Active (", "task time (GC time)"}},
		{"app-environment", "/app/" + sqlApp.ID + "/environment", 0, 0, []string{"Runtime information", "Spark properties", "spark.app.id"}},
		{"app-storage", "/app/" + sqlApp.ID + "/storage", 0, 0, []string{"spark.eventLog.logBlockUpdates.enabled", "Storage memory of each executor"}},
		{"app-sql", "/app/" + sqlApp.ID + "/sql", 1, 0, []string{"Queries ("}},
		{"app-sql-query", fmt.Sprintf("/app/%s/sql/%d", sqlApp.ID, sqlExec), 0, 0, []string{"Plan", "Operators (", "number of output rows"}},
	}
}

// ready fetches a page until its analysis is done (an application page
// answers "Analyzing" at first).
func (f *fixture) ready(t testing.TB, path string) string {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		code, body := f.get(t, path)
		if code != 200 {
			t.Fatalf("%s: status %d: %.400s", path, code, body)
		}
		if !strings.Contains(body, "This page reloads when the analysis is done") {
			return body
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still analyzing after a minute", path)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestPagesWithoutJavaScript: every page answers 200 and reads as a browser
// without JavaScript shows it (an HTML5 parser with scripting off): its
// tables carry what it is about.
func TestPagesWithoutJavaScript(t *testing.T) {
	f := getFixture(t)
	for _, p := range f.pages(t) {
		body := f.ready(t, p.path)
		text, err := sharedtest.TextWithoutScripts(body)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range p.text {
			if !strings.Contains(text, want) {
				t.Errorf("%s (%s): %q not in the script-less page", p.name, p.path, want)
			}
		}
		for _, bad := range []string{"<script src=\"http", "<link rel=\"stylesheet\" href=\"http", "cdn"} {
			if strings.Contains(body, bad) {
				t.Errorf("%s: the page loads something from elsewhere: %q", p.name, bad)
			}
		}
	}
}
