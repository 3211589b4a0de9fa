package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/history"
	historysqlite "github.com/clusterlens/clusterlens/internal/history/sqlite"
	"github.com/clusterlens/clusterlens/internal/indexer"
	"github.com/clusterlens/clusterlens/internal/live"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/sim"
	"github.com/clusterlens/clusterlens/internal/source"
)

// The screenshots of docs/ui: every page at a real multi-host application
// (a TPC-DS query on 7 hosts, with the run history of every shared log) and
// at a simulated fleet of 2,400 nodes. Each page is checked as it is shot
// (its charts painted, stacked bars on their bases, axes over their data,
// labels whole, no script error), then compressed with pngquant and kept
// under 500 KB.
//
//	CLUSTERLENS_SCREENSHOTS=docs/ui go test ./internal/web -run TestScreenshots -timeout 30m

// shot is one page to shoot.
type shot struct {
	name, path string
	height     int
	// live pages are shot once their stream's first update is drawn.
	live bool
}

// TestScreenshots writes the screenshots of docs/ui.
func TestScreenshots(t *testing.T) {
	dir := os.Getenv("CLUSTERLENS_SCREENSHOTS")
	if dir == "" {
		t.Skip("set CLUSTERLENS_SCREENSHOTS=DIR (docs/ui) to write the screenshots of every page")
	}
	bin := sharedtest.Chromium(t)
	quant := sharedtest.Tool(t, "pngquant", "pngquant")
	t.Run("real", func(t *testing.T) {
		srv, pages := realPages(t)
		shoot(t, bin, quant, srv, filepath.Join(dir, "real"), pages)
	})
	t.Run("nodes-2400", func(t *testing.T) {
		srv, pages := bigPages(t)
		shoot(t, bin, quant, srv, filepath.Join(dir, "nodes-2400"), pages)
	})
}

// shoot opens each page in Chromium, checks it, and writes its screenshot.
func shoot(t *testing.T, bin, quant string, srv *httptest.Server, dir string, pages []shot) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		t.Run(p.name, func(t *testing.T) {
			// Fetched first: an application page answers at once that it
			// is being analyzed, then the page.
			for start := time.Now(); ; time.Sleep(200 * time.Millisecond) {
				res, err := srv.Client().Get(srv.URL + p.path)
				if err != nil {
					t.Fatal(err)
				}
				var b bytes.Buffer
				b.ReadFrom(res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					t.Fatalf("%s: status %d: %.300s", p.path, res.StatusCode, b.String())
				}
				if !p.live && !strings.Contains(b.String(), "This page reloads when the analysis is done") || p.live {
					break
				}
				if time.Since(start) > 5*time.Minute {
					t.Fatalf("%s: still analyzing", p.path)
				}
			}
			br := sharedtest.OpenBrowser(t, bin, srv.URL+p.path, fmt.Sprintf("1280,%d", p.height))
			br.WaitFor(t, "document.body && document.body.dataset.webSelfcheck === 'done'", 2*time.Minute)
			if p.live {
				br.WaitFor(t, "(window.__clLive || []).length > 0", time.Minute)
			}
			if p.name == "app" {
				br.WaitFor(t, "document.body.dataset.selfcheck === 'done'", time.Minute)
			}
			var got struct {
				Charts, Ok, Empty, Errors, Geometry, Unreadable string
			}
			br.Eval(t, `(function(){var b=document.body.dataset;return {charts:b.webCharts||"",ok:b.webChartsOk||"",empty:b.webChartsEmpty||"",
				errors:b.webJsErrors||"[]",geometry:b.webGeometry||"[]",unreadable:b.unreadable||"[]"};})()`, &got)
			if got.Charts != got.Ok {
				t.Errorf("%s of %s charts painted (empty: %s)", got.Ok, got.Charts, got.Empty)
			}
			for what, list := range map[string]string{"script errors": got.Errors, "charts drawn wrong": got.Geometry, "charts not readable": got.Unreadable} {
				var l []string
				json.Unmarshal([]byte(list), &l)
				if len(l) > 0 {
					t.Errorf("%s: %q", what, l)
				}
			}
			path := filepath.Join(dir, p.name+".png")
			br.Screenshot(t, path)
			if out, err := exec.Command(quant, "--force", "--skip-if-larger", "--quality=35-60", "--speed", "1", "--output", path, path).CombinedOutput(); err != nil && !strings.Contains(err.Error(), "exit status 98") && !strings.Contains(err.Error(), "exit status 99") {
				t.Errorf("pngquant: %v: %s", err, out)
			}
			st, err := os.Stat(path)
			if err != nil || st.Size() > 500<<10 {
				t.Errorf("%s: %v, %d bytes (want at most 500 KB)", path, err, st.Size())
			}
			t.Logf("%s: %s charts, %d KB", p.path, got.Charts, st.Size()>>10)
		})
	}
}

// followable is a source of applications that can follow their logs (the
// live application page), from the logs found.
type followable struct {
	shs.Source
	logs map[string]*source.Log
}

func (f followable) FollowApp(id string) (*live.App, bool) {
	l, ok := f.logs[id]
	if !ok {
		return nil, false
	}
	return live.FollowApp(l, decodelogs.Options{}), true
}

// realPages serves every shared log, with their run history, and lists
// the pages of a real multi-host application: TPC-DS q86 on 7 hosts.
func realPages(t *testing.T) (*httptest.Server, []shot) {
	root := sharedtest.Dir(t, "logs")
	ctx := context.Background()
	st, err := historysqlite.Open(ctx, filepath.Join(t.TempDir(), "history.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if _, err := indexer.Pass(ctx, st, []string{root}, indexer.Options{}); err != nil {
		t.Fatal(err)
	}
	logs, _, _ := decodelogs.Find([]string{root}, decodelogs.Options{Kinds: []source.Kind{source.SparkEventLog}})
	res := decodelogs.Logs(logs, decodelogs.Options{})
	byID := map[string]*source.Log{}
	for _, l := range logs {
		if apps, err := decodelogs.Log(l, decodelogs.Options{}); err == nil && len(apps) == 1 {
			byID[apps[0].ID] = l
		}
	}
	var spark []*model.App
	for _, a := range res.Apps {
		if a.Engine == model.Spark && a.ID != "" {
			spark = append(spark, a)
		}
	}
	ui, err := New(Options{Apps: followable{shs.Static(shs.NewIndex(spark)), byID}, History: st})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ui)
	t.Cleanup(srv.Close)
	const q86 = "app-20210319163812-1778"
	jobs, err := history.Jobs(ctx, st, history.GroupOptions{})
	if err != nil || len(jobs) == 0 {
		t.Fatalf("recurring jobs: %v", err)
	}
	var job *history.Job
	for _, j := range jobs {
		if j.Engine == "spark" && j.Runs >= 2 && (job == nil || j.Runs > job.Runs) {
			job = j
		}
	}
	briefs, _ := st.Briefs(ctx, history.Filter{})
	var runs []string
	for _, b := range briefs {
		if slices.Contains(job.Variants, b.JobKey) {
			runs = append(runs, b.ID)
		}
	}
	app := "/app/" + q86
	return srv, []shot{
		{name: "fleet", path: "/fleet", height: 1500},
		{name: "job", path: "/job/" + job.ID, height: 1300},
		{name: "apps", path: "/apps", height: 1300},
		{name: "app", path: app, height: 2400},
		{name: "app-jobs", path: app + "/jobs", height: 1300},
		{name: "app-stages", path: app + "/stages", height: 1300},
		{name: "app-stage", path: app + "/stage/33/0", height: 1800},
		{name: "app-executors", path: app + "/executors", height: 1300},
		{name: "app-environment", path: app + "/environment", height: 1300},
		{name: "app-storage", path: app + "/storage", height: 1000},
		{name: "app-sql", path: app + "/sql", height: 1000},
		{name: "app-sql-query", path: app + "/sql/24", height: 1800},
		{name: "compare", path: "/compare?a=" + url.QueryEscape(runs[0]) + "&b=" + url.QueryEscape(runs[len(runs)-1]), height: 1600},
		{name: "nodes", path: "/nodes", height: 1300},
		{name: "node", path: "/node/10.10.10.101", height: 1600},
		{name: "live-app", path: "/live/app/app-20231025121456-0004-eventLog-running", height: 1300, live: true},
	}
}

// bigFleet is the recurring scenario on 2,400 nodes: 85 applications of
// up to 240 executors over an hour, every node used, a sample a minute.
func bigFleet() *sim.Scenario {
	sc, err := sim.Named("recurring")
	if err != nil {
		panic(err)
	}
	sc.Name = "recurring-2400"
	sc.Cluster.Nodes, sc.Cluster.Racks = 2400, 60
	sc.HorizonS = 3600
	sc.Arrivals.PerMinute = 1.5
	sc.Arrivals.Executors = 120
	for i := range sc.Arrivals.Recurring {
		r := &sc.Arrivals.Recurring[i]
		r.Executors *= 40
		r.InputGB *= 20
	}
	sc.Metrics.IntervalS = 60
	return sc
}

// bigPages serves the 2,400-node fleet and lists its pages: those of its
// application with the most executors, and the live pages at its end (the
// application's log half written).
func bigPages(t *testing.T) (*httptest.Server, []shot) {
	f, err := buildFixtureFrom(bigFleet(), t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.srv.Close(); f.hist.Close(); f.samples.Close() })
	var big *model.App
	for _, a := range f.spark {
		if big == nil || len(a.Executors) > len(big.Executors) {
			big = a
		}
	}
	// Its log half written, for the live application page.
	var log bytes.Buffer
	if err := eventlog.Write(&log, big); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	half := log.Bytes()[:bytes.LastIndexByte(log.Bytes()[:log.Len()/2], '\n')+1]
	if err := os.WriteFile(filepath.Join(dir, big.ID+".inprogress"), half, 0o644); err != nil {
		t.Fatal(err)
	}
	logs, _, err := decodelogs.Find([]string{dir}, decodelogs.Options{})
	if err != nil || len(logs) != 1 {
		t.Fatalf("the half log: %v", err)
	}
	f.ui.o.Apps = followable{f.ui.o.Apps, map[string]*source.Log{big.ID: logs[0]}}
	snap, err := f.ui.fleet.get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var job *history.Job
	for _, j := range snap.jobs {
		if j.Engine == "spark" && (job == nil || j.Runs > job.Runs) {
			job = j
		}
	}
	var runs []string
	for _, b := range snap.briefs {
		if slices.Contains(job.Variants, b.JobKey) {
			runs = append(runs, b.ID)
		}
	}
	sqlApp, st := f.sql[0], big.Stages[len(big.Stages)/2]
	host := big.Executors[1].Host
	to := url.QueryEscape(f.nodeTo())
	app := "/app/" + big.ID
	t.Logf("%d nodes; the largest application %s: %d executors, %d tasks", 2400, big.ID, len(big.Executors), big.NumTasks())
	return f.srv, []shot{
		{name: "fleet", path: "/fleet", height: 1500},
		{name: "job", path: "/job/" + job.ID, height: 1300},
		{name: "apps", path: "/apps", height: 1300},
		{name: "app", path: app, height: 2400},
		{name: "app-jobs", path: app + "/jobs", height: 1300},
		{name: "app-stages", path: app + "/stages", height: 1300},
		{name: "app-stage", path: fmt.Sprintf("%s/stage/%d/%d", app, st.ID, st.Attempt), height: 1800},
		{name: "app-executors", path: app + "/executors", height: 1300},
		{name: "app-environment", path: app + "/environment", height: 1000},
		{name: "app-storage", path: app + "/storage", height: 1000},
		{name: "app-sql", path: "/app/" + sqlApp.ID + "/sql", height: 1000},
		{name: "app-sql-query", path: fmt.Sprintf("/app/%s/sql/%d", sqlApp.ID, sqlApp.SQL[len(sqlApp.SQL)-1].ID), height: 1800},
		{name: "compare", path: "/compare?a=" + runs[len(runs)-1] + "&b=" + runs[0], height: 1600},
		{name: "nodes", path: "/nodes?to=" + to, height: 1500},
		{name: "node", path: "/node/" + host + "?to=" + to, height: 2000},
		{name: "live", path: "/live", height: 1500, live: true},
		{name: "live-app", path: "/live/app/" + big.ID, height: 1300, live: true},
	}
}
