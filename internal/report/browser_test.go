package report

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

func chromium(t *testing.T) string { return sharedtest.Chromium(t) }

func runChromium(t *testing.T, bin string, args ...string) []byte {
	return sharedtest.RunChromium(t, bin, args...)
}

var bodyTag = regexp.MustCompile(`<body[^>]*data-selfcheck="done"[^>]*>`)

func bodyAttr(tag, name string) string {
	m := regexp.MustCompile(`\b` + name + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	r := strings.NewReplacer("&quot;", `"`, "&amp;", "&", "&lt;", "<", "&gt;", ">", "&#39;", "'")
	return r.Replace(m[1])
}

// checkInBrowser opens a report headless and asserts the page's self-check:
// at least minCharts charts, each canvas painted, no JavaScript error, and
// unless lazyOK no chart left to draw on scrolling. It keeps a screenshot in
// dir (and returns its path).
func checkInBrowser(t *testing.T, bin, page, dir, name string, minCharts int, lazyOK bool) string {
	t.Helper()
	dom := runChromium(t, bin, "--dump-dom", "file://"+page)
	tag := bodyTag.Find(dom)
	if tag == nil {
		t.Fatalf("%s: the page's self-check did not run (script error before it?)", name)
	}
	charts, _ := strconv.Atoi(bodyAttr(string(tag), "data-charts"))
	ok, _ := strconv.Atoi(bodyAttr(string(tag), "data-charts-ok"))
	var jsErrors []string
	if err := json.Unmarshal([]byte(bodyAttr(string(tag), "data-js-errors")), &jsErrors); err != nil {
		t.Errorf("%s: JavaScript errors not readable: %v", name, err)
	}
	if len(jsErrors) > 0 {
		t.Errorf("%s: JavaScript errors: %q", name, jsErrors)
	}
	// Beyond paint (issue 23): every category label whole, every time axis
	// ticking at a round duration.
	var unreadable []string
	if err := json.Unmarshal([]byte(bodyAttr(string(tag), "data-unreadable")), &unreadable); err != nil {
		t.Errorf("%s: the readability check did not run: %v", name, err)
	}
	if len(unreadable) > 0 {
		t.Errorf("%s: charts not readable: %q", name, unreadable)
	}
	if lazy := bodyAttr(string(tag), "data-charts-lazy"); lazy != "0" && !lazyOK {
		t.Errorf("%s: %s charts left to draw on scrolling", name, lazy)
	}
	if charts < minCharts || ok != charts {
		t.Errorf("%s: %d of %d charts painted (want at least %d); empty: %q", name, ok, charts, minCharts, bodyAttr(string(tag), "data-charts-empty"))
	}
	shot := filepath.Join(dir, name+".png")
	runChromium(t, bin, "--window-size=1400,7000", "--screenshot="+shot, "file://"+page)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("%s: no screenshot: %v", name, err)
	}
	defer f.Close()
	cfg, err := png.DecodeConfig(f)
	if err != nil || cfg.Width < 1000 {
		t.Errorf("%s: screenshot %v, %dx%d", name, err, cfg.Width, cfg.Height)
	}
	return shot
}

// screenshotDir is the test's temp dir, or under CI a folder that outlives
// the test ($CLUSTERLENS_ARTIFACTS, else clusterlens-report-screenshots in
// the system's temp dir), printed in the log.
func screenshotDir(t *testing.T) string {
	if os.Getenv("CI") != "true" {
		return t.TempDir()
	}
	dir := os.Getenv("CLUSTERLENS_ARTIFACTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "clusterlens-report-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func writePage(t *testing.T, as []*analysis.Analysis, dir, name string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteHTML(&buf, as, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name+".html")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestHTMLInBrowser renders reports in headless Chromium: a real multi-host
// Spark log (a timeline too large to draw exactly, so binned), the
// simulator's imbalance scenario (two Spark applications drawn exactly and
// two MapReduce jobs without a what-if, in one page), the demo scenario
// with its node metrics under the timelines, and every shared log in one
// page.
func TestHTMLInBrowser(t *testing.T) {
	bin := chromium(t)
	logs := sharedtest.Dir(t, "logs")
	shots := screenshotDir(t)
	pages := t.TempDir()

	real := filepath.Join(logs, "spark-rapids-2021/tools/src/test/resources/spark-events-profiling/task_job_failure_eventlog_compressed.zstd")
	res, err := decodelogs.Paths([]string{real}, decodelogs.Options{})
	if err != nil || len(res.Apps) != 1 {
		t.Fatalf("load %s: %v (%d applications)", real, err, len(res.Apps))
	}
	realAs := analyzeApps(res.Apps)
	if realAs[0].Reconstruction() == nil {
		t.Fatal("real log: no reconstruction")
	}
	// overview (2), timeline, stages, nodes by cause, nodes over time, what-if
	shot := checkInBrowser(t, bin, writePage(t, realAs, pages, "real-spark"), shots, "real-spark", 7, false)
	t.Logf("screenshot of the real log's report: %s", shot)

	simAs := simAnalyses(t, "imbalance", 3)
	spark := 0
	for _, a := range simAs {
		if a.WhatIf != nil {
			spark++
		}
	}
	// six charts per application, plus the what-if for Spark
	shot = checkInBrowser(t, bin, writePage(t, simAs, pages, "simulated"), shots, "simulated", 6*len(simAs)+spark, false)
	t.Logf("screenshot of the simulated applications' report: %s", shot)

	// With node metrics: three node timelines under each task timeline,
	// the stage × node CPU matrix and the stage profiles, five charts more
	// per application.
	metricAs, _ := simMetricAnalyses(t, "demo", 1)
	spark = 0
	for _, a := range metricAs {
		if a.WhatIf != nil {
			spark++
		}
	}
	shot = checkInBrowser(t, bin, writePage(t, metricAs, pages, "simulated-metrics"), shots, "simulated-metrics", 11*len(metricAs)+spark, false)
	t.Logf("screenshot of the simulated applications' report with node metrics: %s", shot)

	// With the node diagnosis: the stage × node matrix marks the abnormal
	// nodes, and an application with an indicted node gets the alarm
	// history chart (one more chart), which must be painted.
	nodeAs, _ := simNodeAnalyses(t, "demo", 1)
	indicted := 0
	for _, a := range nodeAs {
		if p := a.Nodes.Peers; p != nil && len(p.Culprits)+len(p.Innocent) > 0 {
			indicted++
		}
	}
	if indicted == 0 {
		t.Fatal("demo: no indicted node to draw")
	}
	page := writePage(t, nodeAs, pages, "simulated-nodes")
	shot = checkInBrowser(t, bin, page, shots, "simulated-nodes", 11*len(nodeAs)+spark+indicted, false)
	tag := bodyTag.Find(runChromium(t, bin, "--dump-dom", "file://"+page))
	ids, empty := " "+bodyAttr(string(tag), "data-chart-ids")+" ", " "+bodyAttr(string(tag), "data-charts-empty")+" "
	if !strings.Contains(ids, " a0-alarms ") || strings.Contains(empty, " a0-alarms ") {
		t.Errorf("the alarm history chart a0-alarms is not drawn (charts %q, empty %q)", ids, empty)
	}
	t.Logf("screenshot of the report with the node diagnosis: %s", shot)

	// Every shared log in one page: every application's sections build
	// without a script error; the first charts are drawn, the rest wait
	// for scrolling.
	all, err := decodelogs.Paths([]string{logs}, decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	shot = checkInBrowser(t, bin, writePage(t, analyzeApps(all.Apps), pages, "all-logs"), shots, "all-logs", 60, true)
	t.Logf("screenshot of every shared log's report: %s", shot)
}
