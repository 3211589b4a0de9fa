package web

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestPagesInBrowser opens every page in headless Chromium from the
// fixture's loopback server: the page's script draws every chart it
// describes (each canvas painted, each tooltip formatted), the
// application page's report script draws its charts too, and no script
// logs an error (docs/ui's screenshots are TestScreenshots').
func TestPagesInBrowser(t *testing.T) {
	bin := sharedtest.Chromium(t)
	f := getFixture(t)
	for _, p := range f.pages(t) {
		t.Run(p.name, func(t *testing.T) {
			f.ready(t, p.path) // the analysis done before the browser opens it
			dom := sharedtest.RunChromium(t, bin, "--dump-dom", f.srv.URL+p.path)
			if sharedtest.BodyAttr(dom, "data-web-selfcheck") != "done" {
				t.Fatalf("the page's self-check did not run (a script error before it?)")
			}
			charts, _ := strconv.Atoi(sharedtest.BodyAttr(dom, "data-web-charts"))
			ok, _ := strconv.Atoi(sharedtest.BodyAttr(dom, "data-web-charts-ok"))
			if charts != p.charts || ok != charts {
				t.Errorf("%d of %d charts painted, want %d (ids %q, empty %q)", ok, charts, p.charts,
					sharedtest.BodyAttr(dom, "data-web-chart-ids"), sharedtest.BodyAttr(dom, "data-web-charts-empty"))
			}
			var errs []string
			if err := json.Unmarshal([]byte(sharedtest.BodyAttr(dom, "data-web-js-errors")), &errs); err != nil {
				t.Errorf("script errors not readable: %v", err)
			}
			if len(errs) > 0 {
				t.Errorf("script errors: %q", errs)
			}
			// Beyond paint: stacked bars on their bases, axes over their
			// data (issue 23's floating bars and 1970 time axis).
			var geo []string
			if err := json.Unmarshal([]byte(sharedtest.BodyAttr(dom, "data-web-geometry")), &geo); err != nil {
				t.Errorf("geometry check not readable: %v", err)
			}
			if len(geo) > 0 {
				t.Errorf("charts drawn wrong: %q", geo)
			}
			if p.report > 0 {
				if sharedtest.BodyAttr(dom, "data-selfcheck") != "done" {
					t.Fatal("the report's self-check did not run")
				}
				rc, _ := strconv.Atoi(sharedtest.BodyAttr(dom, "data-charts"))
				rok, _ := strconv.Atoi(sharedtest.BodyAttr(dom, "data-charts-ok"))
				if rc < p.report || rok != rc {
					t.Errorf("report: %d of %d charts painted, want at least %d (empty %q)", rok, rc, p.report, sharedtest.BodyAttr(dom, "data-charts-empty"))
				}
			}
			if strings.Contains(string(dom), "This page reloads") {
				t.Error("the page was still analyzing")
			}
		})
	}
}

// TestChartGeometryInBrowser: the browser checks of what a chart shows
// catch what issue 23 found, and the fixes pass them. A stacked bar chart
// whose series have points at different times (the fleet's runs by status:
// "failed" only where some failed) stacks bars on other bins' bases in
// ECharts; alignStacked gives every series every time. A time axis over a
// run at epoch 0 runs from 1970; fleetCharts leaves such runs off.
func TestChartGeometryInBrowser(t *testing.T) {
	bin := sharedtest.Chromium(t)
	const t0, bin10 = 1_780_000_000_000, 600_000
	ragged := chart{ID: "c", Title: "runs by status", Kind: "bar", XTime: true, YUnit: "count", Height: 240, Stack: true, Series: []series{
		{Name: "succeeded", Data: [][2]float64{{t0, 3}, {t0 + bin10, 5}, {t0 + 2*bin10, 2}}},
		{Name: "failed", Data: [][2]float64{{t0 + bin10, 2}}},
		{Name: "incomplete", Data: [][2]float64{{t0 + 2*bin10, 1}}},
	}}
	aligned := ragged
	aligned.Series = slices.Clone(ragged.Series)
	alignStacked(&aligned)
	runs := []*history.Brief{{Start: t0, Status: history.StatusSucceeded}, {Start: t0 + bin10, Status: history.StatusFailed}, {Start: 0, Status: history.StatusSucceeded, DurationMs: 5}}
	epoch := chart{ID: "c", Title: "runs", Kind: "bar", XTime: true, YUnit: "count", Height: 240,
		Series: []series{{Name: "succeeded", Data: [][2]float64{{0, 1}, {t0, 1}, {t0 + bin10, 1}}}}}
	fleet := fleetCharts(runs)[0]
	fleet.ID = "c"
	alignStacked(&fleet) // as render does
	mux := http.NewServeMux()
	mux.HandleFunc("GET /static/{name}", serveStatic)
	for name, c := range map[string]chart{"ragged": ragged, "aligned": aligned, "epoch": epoch, "fleet": fleet} {
		js, err := json.Marshal([]chart{c})
		if err != nil {
			t.Fatal(err)
		}
		page := `<!DOCTYPE html><html><body><div data-chart="c"></div><script type="application/json" id="cl-charts">` + string(js) +
			`</script><script src="` + staticURL("echarts.min.js") + `"></script><script src="` + staticURL("web.js") + `"></script></body></html>`
		mux.HandleFunc("GET /"+name, func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(page)) })
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()
	geometry := func(name string) []string {
		dom := sharedtest.RunChromium(t, bin, "--dump-dom", srv.URL+"/"+name)
		var geo []string
		if err := json.Unmarshal([]byte(sharedtest.BodyAttr(dom, "data-web-geometry")), &geo); err != nil {
			t.Fatalf("%s: geometry check not readable: %v", name, err)
		}
		return geo
	}
	if geo := geometry("ragged"); !strings.Contains(strings.Join(geo, "\n"), "failed bar") {
		t.Errorf("ragged stacked series: the check saw no floating bar: %q", geo)
	}
	if geo := geometry("aligned"); len(geo) > 0 {
		t.Errorf("aligned stacked series: %q", geo)
	}
	if geo := geometry("epoch"); !strings.Contains(strings.Join(geo, "\n"), "time axis from 1970") {
		t.Errorf("a run at epoch 0: the check saw no axis from 1970: %q", geo)
	}
	if geo := geometry("fleet"); len(geo) > 0 {
		t.Errorf("the fleet's chart of runs with one at epoch 0: %q", geo)
	}
}
