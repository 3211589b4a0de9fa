package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/assets"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// simAnalyses analyzes every application of a named simulator scenario,
// keeping the reconstructions as the HTML report needs.
func simAnalyses(t testing.TB, scenario string, seed uint64) []*analysis.Analysis {
	t.Helper()
	sc, err := sim.Named(scenario)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	return analyzeApps(res.Apps)
}

func analyzeApps(apps []*model.App) []*analysis.Analysis {
	var as []*analysis.Analysis
	for _, app := range apps {
		as = append(as, analysis.Build(app, analysis.Options{Reconstruction: true}))
	}
	return as
}

var dataBlob = regexp.MustCompile(`(?s)<script type="application/json" id="clusterlens-data">(.*?)</script>`)

// pageData writes the page and returns it with its decoded JSON blob.
func pageData(t *testing.T, as []*analysis.Analysis, opts HTMLOptions) (string, *htmlPage) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, as, opts); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	m := dataBlob.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no data blob in the page")
	}
	var p htmlPage
	if err := json.Unmarshal([]byte(m[1]), &p); err != nil {
		t.Fatalf("data blob: %v", err)
	}
	return page, &p
}

func TestWriteHTMLSelfContained(t *testing.T) {
	as := simAnalyses(t, "imbalance", 3)
	page, p := pageData(t, as, HTMLOptions{})
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.HasSuffix(page, "</html>\n") {
		t.Error("page is not one HTML document")
	}
	for _, bad := range []string{"<script src", "<link", "@import", "src=\"http", "url(http"} {
		if strings.Contains(page, bad) {
			t.Errorf("page loads something from outside: %q", bad)
		}
	}
	if !strings.Contains(page, `version="`+assets.EChartsVersion+`"`) || !strings.Contains(page, "Apache Software Foundation") {
		t.Error("ECharts is not inlined with its license header")
	}
	if len(p.Applications) != len(as) || len(p.Causes) != len(p.CauseColors) {
		t.Fatalf("%d applications for %d analyses, %d causes, %d colours", len(p.Applications), len(as), len(p.Causes), len(p.CauseColors))
	}
	engines := map[string]int{}
	for i, h := range p.Applications {
		a := as[i]
		engines[h.Identity.Engine]++
		if h.Identity.ID != a.Summary.App.ID || len(h.Findings) != len(a.Findings) {
			t.Errorf("app %d: id %q, %d findings, want %q, %d", i, h.Identity.ID, len(h.Findings), a.Summary.App.ID, len(a.Findings))
		}
		if h.Timeline == nil || len(h.Timeline.Rows) == 0 || h.NodeTime == nil || h.Dataflow == nil {
			t.Errorf("app %s: timeline, node heat map or breakdown missing", h.Identity.ID)
			continue
		}
		if (h.WhatIf != nil) != (a.WhatIf != nil) {
			t.Errorf("app %s: what-if %v, analysis has %v", h.Identity.ID, h.WhatIf != nil, a.WhatIf != nil)
		}
		var sum int64
		for _, c := range h.Dataflow.Causes {
			sum += c
		}
		if sum != h.Dataflow.TotalMs {
			t.Errorf("app %s: causes add up to %d, total %d", h.Identity.ID, sum, h.Dataflow.TotalMs)
		}
	}
	if engines["spark"] == 0 || engines["mapreduce"] == 0 {
		t.Errorf("scenario should give both engines: %v", engines)
	}
}

// TestWriteHTMLEscapes: names from logs cannot close the data script or
// inject markup into the title.
func TestWriteHTMLEscapes(t *testing.T) {
	as := simAnalyses(t, "demo", 1)[:1]
	as[0].Summary.App.Name = `</script><script>alert(1)</script><b>`
	page, p := pageData(t, as, HTMLOptions{})
	if strings.Contains(page, "<script>alert(1)") || !strings.Contains(page, "<title>clusterlens report: &lt;/script&gt;") {
		t.Error("application name injected markup")
	}
	if p.Applications[0].Identity.Name != as[0].Summary.App.Name {
		t.Errorf("name %q did not round-trip", p.Applications[0].Identity.Name)
	}
}

func TestWriteHTMLWithoutReconstruction(t *testing.T) {
	sc, err := sim.Named("demo")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := analysis.Build(res.Apps[0], analysis.Options{})
	_, p := pageData(t, []*analysis.Analysis{a}, HTMLOptions{})
	h := p.Applications[0]
	if h.Timeline != nil || h.Dataflow == nil || !strings.Contains(strings.Join(h.Notes, ";"), "timeline") {
		t.Errorf("without the reconstruction: timeline %v, notes %q", h.Timeline != nil, h.Notes)
	}
	// No application at all is a valid, empty report.
	if _, p := pageData(t, nil, HTMLOptions{}); len(p.Applications) != 0 {
		t.Error("empty report has applications")
	}
}

// TestHTMLWithoutJavaScript: parsed as a browser without JavaScript parses
// it, the report reads as its noscript tables: every application's title,
// its findings and its longest stage, and nothing of what the script would
// draw.
func TestHTMLWithoutJavaScript(t *testing.T) {
	as := simAnalyses(t, "imbalance", 3)
	page, _ := pageData(t, as, HTMLOptions{})
	text, err := sharedtest.TextWithoutScripts(page)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, a := range as {
		tb := BuildTables(a)
		want := []string{tb.Title, "Findings (" + strconv.Itoa(len(tb.Findings)) + ")"}
		for _, f := range tb.Findings {
			want = append(want, f.Summary)
		}
		if len(tb.Stages) == 0 {
			t.Errorf("%s: no stage rows", a.Summary.App.ID)
		} else {
			want = append(want, strings.Join(tb.Stages[0][:3], " "))
		}
		for _, w := range want {
			if !strings.Contains(text, strings.Join(strings.Fields(w), " ")) {
				t.Errorf("%s: %q not in the script-less page", a.Summary.App.ID, w)
			}
			checked++
		}
	}
	if checked < 10 {
		t.Errorf("only %d strings checked", checked)
	}
}
