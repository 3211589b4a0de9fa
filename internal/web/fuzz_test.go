package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// FuzzRequests sends the UI arbitrary paths and queries: no answer is a
// server error, and none panics.
func FuzzRequests(f *testing.F) {
	sc, err := sim.Named("imbalance")
	if err != nil {
		f.Fatal(err)
	}
	res, err := sim.Simulate(sc, 1, nil)
	if err != nil {
		f.Fatal(err)
	}
	var apps []*model.App
	for _, a := range res.Apps {
		if a.Engine == model.Spark {
			apps = append(apps, a)
		}
	}
	ui, err := New(Options{Apps: shs.Static(shs.NewIndex(apps))})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"/apps?page=2&name=x", "/app/" + apps[0].ID + "?attempt=1", "/compare?a=" + apps[0].ID + "&b=" + apps[1].ID,
		"/fleet?sort=duration&order=asc&page=3&per=0", "/nodes?to=2026-01-01T00:00:00Z", "/node/x?to=bad", "/static/web.js", "/job/abcd",
		"/app/..%2F..%2Fetc%2Fpasswd", "/%00", "/compare?a=&b=", "/live", "/live/events", "/live/app/" + apps[0].ID,
		"/live/app/" + apps[0].ID + "/events", "/live/app/..%2Fx/events"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, target string) {
		if !strings.HasPrefix(target, "/") || strings.ContainsAny(target, " \r\n\t#") {
			return
		}
		req, err := http.NewRequest(http.MethodGet, "http://localhost"+target, nil)
		if err != nil {
			return
		}
		rec := httptest.NewRecorder()
		ui.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Errorf("GET %s: status %d: %.300s", target, rec.Code, rec.Body.String())
		}
	})
}

// TestWithoutHistory: without a run history the pages that need one say
// so plainly, the home page sends to the applications, and the
// application pages work from the logs.
func TestWithoutHistory(t *testing.T) {
	sc, err := sim.Named("imbalance")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var spark *model.App
	for _, a := range res.Apps {
		if a.Engine == model.Spark {
			spark = a
		}
	}
	ui, err := New(Options{Apps: shs.Static(shs.NewIndex(res.Apps))})
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string) {
		rec := httptest.NewRecorder()
		ui.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code, rec.Body.String()
	}
	if code, _ := get("/"); code != http.StatusFound {
		t.Errorf("/: %d, want a redirect", code)
	}
	for _, p := range []string{"/fleet", "/job/abcd"} {
		if code, body := get(p); code != http.StatusOK || !strings.Contains(body, "needs the run history: start the server with --store") {
			t.Errorf("%s: %d, no plain word that it needs the history", p, code)
		}
	}
	if code, body := get("/nodes"); code != http.StatusOK || !strings.Contains(body, "need the run history (serve --store)") {
		t.Errorf("/nodes: %d, no plain word that it needs the history", code)
	}
	if code, body := get("/live"); code != http.StatusOK || !strings.Contains(body, "start the server with --metrics") {
		t.Errorf("/live: %d, no plain word that it needs the node sample store", code)
	}
	if code, _ := get("/live/events"); code != http.StatusNotFound {
		t.Errorf("/live/events: %d without a sample store, want 404", code)
	}
	if code, body := get("/apps"); code != http.StatusOK || !strings.Contains(body, spark.ID) {
		t.Errorf("/apps: %d, no %s", code, spark.ID)
	}
	path := "/app/" + spark.ID
	code, body := get(path)
	for i := 0; strings.Contains(body, "reloads when the analysis is done") && i < 600; i++ {
		time.Sleep(50 * time.Millisecond)
		code, body = get(path)
	}
	if code != http.StatusOK || !strings.Contains(body, `id="clusterlens-data"`) {
		t.Errorf("%s: %d, no report data", path, code)
	}
	if code, _ := get("/app/no-such-app"); code != http.StatusNotFound {
		t.Errorf("/app/no-such-app: %d, want 404", code)
	}
}
