package web

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestPagesInBrowser opens every page in headless Chromium from the
// fixture's loopback server: the page's script draws every chart it
// describes (each canvas painted, each tooltip formatted), the
// application page's report script draws its charts too, and no script
// logs an error. With CLUSTERLENS_SCREENSHOTS=DIR it writes each page's
// screenshot there (docs/ui/*.png are made so).
func TestPagesInBrowser(t *testing.T) {
	bin := sharedtest.Chromium(t)
	f := getFixture(t)
	shots := os.Getenv("CLUSTERLENS_SCREENSHOTS")
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
			if shots != "" {
				shot := filepath.Join(shots, p.name+".png")
				height := "1500"
				if p.name == "app" || p.name == "node" {
					height = "2400"
				}
				sharedtest.RunChromium(t, bin, "--window-size=1280,"+height, "--screenshot="+shot, f.srv.URL+p.path)
				if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
					t.Errorf("no screenshot %s: %v", shot, err)
				}
			}
			if strings.Contains(string(dom), "This page reloads") {
				t.Error("the page was still analyzing")
			}
		})
	}
}
