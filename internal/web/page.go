package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"

	"github.com/clusterlens/clusterlens/internal/assets"
	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/report"
)

// page is what a view renders: its body's content, the charts the script
// draws, and, on an application page, the report's data for the report's
// own script.
type page struct {
	Title string
	// Sub is the header's explanation.
	Sub string
	// View names the kind of page (the body's data-view attribute).
	View string
	// Content writes the page's content between the header and the
	// footer (the view_*.go files).
	Content func(w *htmlw.Writer)
	Charts  []chart
	// Report is the offline report's JSON (report.PageData) when the page
	// embeds the report's sections.
	Report []byte
	// Live, for a live view, is the URL of its server-sent events stream
	// (the body's data-live attribute); empty for a static page. LivePart
	// writes the part of the content the stream sends again.
	Live     string
	LivePart func(w *htmlw.Writer)
	// Refresh, when positive, reloads the page after so many seconds.
	Refresh int
	// Banner are the log sources that cannot be read, named above the
	// content.
	Banner []SourceProblem
	// Nav is the navigation entry of the view; ServerMs how long the page
	// took to build.
	Nav      string
	ServerMs float64
}

// chart is one chart the page's script (static/web.js) draws: a line,
// bar or scatter chart of series of (x, y) points; x is epoch ms when
// XTime, else an index into XCats, else a number.
type chart struct {
	ID    string   `json:"id"`
	Title string   `json:"title"`
	Kind  string   `json:"kind"`
	XTime bool     `json:"xTime,omitempty"`
	XCats []string `json:"xCats,omitempty"`
	XName string   `json:"xName,omitempty"`
	// XMin and XMax, when XMax > XMin, bound the x axis.
	XMin   float64 `json:"xMin,omitempty"`
	XMax   float64 `json:"xMax,omitempty"`
	YUnit  string  `json:"yUnit"`
	YName  string  `json:"yName,omitempty"`
	Height int     `json:"height"`
	// Stack stacks the bar series.
	Stack  bool     `json:"stack,omitempty"`
	Series []series `json:"series"`
}

// series is one series of a chart.
type series struct {
	Name string `json:"name"`
	// Kind overrides the chart's kind for this series.
	Kind   string       `json:"kind,omitempty"`
	Color  string       `json:"color,omitempty"`
	Dashed bool         `json:"dashed,omitempty"`
	Data   [][2]float64 `json:"data"`
}

// alignStacked gives every series of a stacked chart a point at every x
// any of them has (0 where it had none), in x order: ECharts stacks bars
// by their index in the series, so a series with points only where it is
// not 0 stacked its bars on other x's bases (the fleet's "failed" bars
// floated at wrong heights).
func alignStacked(c *chart) {
	var xs []float64
	seen := map[float64]bool{}
	for _, s := range c.Series {
		for _, p := range s.Data {
			if !seen[p[0]] {
				seen[p[0]] = true
				xs = append(xs, p[0])
			}
		}
	}
	slices.Sort(xs)
	for i := range c.Series {
		s := &c.Series[i]
		at := make(map[float64]float64, len(s.Data))
		for _, p := range s.Data {
			at[p[0]] += p[1]
		}
		data := make([][2]float64, len(xs))
		for k, x := range xs {
			data[k] = [2]float64{x, at[x]}
		}
		s.Data = data
	}
}

//go:embed static
var staticFS embed.FS

// render writes a page with its status: the layout every page shares
// around its content.
func render(w http.ResponseWriter, status int, p *page) error {
	var b htmlw.Writer
	b.Raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n" +
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta name=\"generator\" content=\"clusterlens\">\n")
	if p.Refresh != 0 {
		b.Raw(`<meta http-equiv="refresh" content="`).Int(int64(p.Refresh)).Raw("\">\n")
	}
	b.Raw("\n<title>").Text(p.Title).Raw(" · clusterlens</title>\n" +
		`<script>window.__clErrors=[];addEventListener("error",function(e){window.__clErrors.push(String(e.message||e))});addEventListener("unhandledrejection",function(e){window.__clErrors.push(String(e.reason))});</script>` + "\n")
	if len(p.Report) > 0 {
		b.Raw(`<link rel="stylesheet" href="`).URL(staticURL("report.css")).Raw("\">\n")
	}
	b.Raw(`<link rel="stylesheet" href="`).URL(staticURL("web.css")).Raw("\">\n</head>\n")
	b.Raw(`<body data-view="`).Text(p.View).Raw(`"`)
	if p.Live != "" {
		b.Raw(` data-live="`).Text(p.Live).Raw(`"`)
	}
	b.Raw(">\n<header class=\"top\"><a class=\"brand\" href=\"/\">clusterlens</a>\n<nav class=\"views\">")
	for _, n := range navigation {
		b.Raw(`<a href="`).URL(n[1]).Raw(`"`)
		if n[0] == p.Nav {
			b.Raw(` class="here"`)
		}
		b.Raw(">").Text(n[0]).Raw("</a>")
	}
	b.Raw(`<a href="/api/v1/applications">API</a></nav>` + "\n").Raw(`<span class="sub">`).Text(p.Sub).Raw("</span></header>\n<div class=\"web\">\n")
	for _, sp := range p.Banner {
		b.Raw(`<div class="banner" role="alert"><b>A log source cannot be read:</b> `).Text(sp.Source).Raw(" (since ").Text(sp.Since.UTC().Format("2006-01-02 15:04:05Z")).
			Raw("): ").Text(sp.Err).Raw(". The pages show what was read from it before.</div>\n")
	}
	if p.Content != nil {
		p.Content(&b)
	}
	b.Raw("\n</div>\n<footer class=\"web\"><div>clusterlens · page built in ").Text(strconv.FormatFloat(p.ServerMs, 'f', 1, 64)).
		Raw(" ms on the server · times are UTC · charts by Apache ECharts (Apache License 2.0), embedded</div></footer>\n")
	if len(p.Charts) > 0 || len(p.Report) > 0 || p.Live != "" {
		b.Raw(`<script src="`).URL(staticURL("echarts.min.js")).Raw("\"></script>\n")
	}
	for i := range p.Charts {
		if p.Charts[i].Stack {
			alignStacked(&p.Charts[i])
		}
	}
	if len(p.Charts) > 0 {
		// encoding/json escapes <, > and &: the blob cannot close its
		// script element.
		js, err := json.Marshal(p.Charts)
		if err != nil {
			return fmt.Errorf("encode charts: %w", err)
		}
		b.Raw(`<script type="application/json" id="cl-charts">`).Raw(string(js)).Raw("</script>\n")
	}
	if len(p.Report) > 0 {
		// The report's JSON (report.PageData) is encoding/json's too.
		b.Raw(`<script type="application/json" id="clusterlens-data">`).Raw(string(p.Report)).Raw("</script>\n")
		b.Raw(`<script src="`).URL(staticURL("report.js")).Raw("\"></script>\n")
	}
	b.Raw(`<script src="`).URL(staticURL("web.js")).Raw("\"></script>\n</body>\n</html>\n")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, err := w.Write(b.Bytes())
	return err
}

// statics are the files under /static/: the UI's script and stylesheet,
// the report's, and Apache ECharts (internal/assets), each with a content
// hash for its URL, hashed when first used.
var statics = sync.OnceValue(func() map[string]staticFile {
	m := map[string]staticFile{
		"echarts.min.js": {body: []byte(assets.EChartsJS), ctype: "text/javascript; charset=utf-8"},
		"report.js":      {body: []byte(report.Script()), ctype: "text/javascript; charset=utf-8"},
		"report.css":     {body: []byte(report.Stylesheet()), ctype: "text/css; charset=utf-8"},
	}
	for name, ctype := range map[string]string{"web.js": "text/javascript; charset=utf-8", "web.css": "text/css; charset=utf-8"} {
		b, err := staticFS.ReadFile("static/" + name)
		if err != nil {
			panic(err)
		}
		m[name] = staticFile{body: b, ctype: ctype}
	}
	for name, f := range m {
		sum := sha256.Sum256(f.body)
		f.hash = hex.EncodeToString(sum[:8])
		m[name] = f
	}
	return m
})

type staticFile struct {
	body  []byte
	ctype string
	hash  string
}

// staticURL is a static file's URL, versioned by its content.
func staticURL(name string) string {
	return "/static/" + name + "?v=" + statics()[name].hash
}

// serveStatic serves the embedded files by name only: no path reaches
// the file system.
func serveStatic(w http.ResponseWriter, r *http.Request) {
	f, ok := statics()[r.PathValue("name")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", f.ctype)
	w.Header().Set("ETag", `"`+f.hash+`"`)
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	if r.Header.Get("If-None-Match") == `"`+f.hash+`"` {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Write(f.body)
}
