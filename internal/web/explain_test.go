package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/history"
	historysqlite "github.com/clusterlens/clusterlens/internal/history/sqlite"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// TestExplanationPages: over 20 usual days of a recurring job and a 21st
// with a hung task, the application page of the last run says it was
// slower than usual for its failed attempts, with the causes' table; a
// usual run's page says it was within its usual time; the job's page
// marks the last run slower and explains it; without a run history the
// application page has no such section.
func TestExplanationPages(t *testing.T) {
	ctx := context.Background()
	hs, err := historysqlite.Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	var apps []*model.App
	var entries []history.Entry
	for day := range 21 {
		cause := ""
		if day == 20 {
			cause = "failures"
		}
		sc, _, _ := sim.RegressionRun("terasort", day, cause, 3)
		res, err := sim.Simulate(sc, uint64(3000+day), nil)
		if err != nil {
			t.Fatal(err)
		}
		a := res.Apps[0]
		apps = append(apps, a)
		entries = append(entries, history.Entry{State: history.LogState{Path: "/logs/" + a.ID, Size: 1, ModTime: a.End},
			Runs: []*history.Run{history.FromApp(a, "/logs/"+a.ID, false, nil)}})
	}
	if err := hs.Put(ctx, entries...); err != nil {
		t.Fatal(err)
	}
	ui, err := New(Options{Apps: shs.Static(shs.NewIndex(apps)), History: hs})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ui)
	defer srv.Close()
	get := func(path string) string {
		t.Helper()
		for range 50 { // an application page may answer "analyzing" first
			res, err := http.Get(srv.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			buf := make([]byte, 1<<16)
			for {
				n, err := res.Body.Read(buf)
				b.Write(buf[:n])
				if err != nil {
					break
				}
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("%s: %d: %s", path, res.StatusCode, b.String())
			}
			if !strings.Contains(b.String(), "Analyzing") {
				return b.String()
			}
		}
		t.Fatalf("%s: still analyzing", path)
		return ""
	}
	last := get("/app/" + apps[20].ID)
	for _, want := range []string{"Against its usual runs", `class="explain verdict slower"`, "its usual", "<td>failures</td>", "unexplained", "Compared with 20 earlier runs"} {
		if !strings.Contains(last, want) {
			t.Errorf("the slower run's page lacks %q", want)
		}
	}
	if usual := get("/app/" + apps[15].ID); !strings.Contains(usual, "within its usual") {
		t.Error("a usual run's page does not say it was within its usual time")
	}
	job := get("/job/" + entries[20].Runs[0].JobKey)
	for _, want := range []string{"Slower than usual (the latest", apps[20].ID, "against usual", `class="num verdict slower"`} {
		if !strings.Contains(job, want) {
			t.Errorf("the job's page lacks %q", want)
		}
	}
	plain, err := New(Options{Apps: shs.Static(shs.NewIndex(apps))})
	if err != nil {
		t.Fatal(err)
	}
	srv2 := httptest.NewServer(plain)
	defer srv2.Close()
	srv = srv2
	if p := get("/app/" + apps[20].ID); strings.Contains(p, "Against its usual runs") {
		t.Error("without a run history the page explains")
	}
}
