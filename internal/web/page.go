package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/clusterlens/clusterlens/internal/assets"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/report"
)

// page is what a view renders: its template and data, the charts the
// script draws, and, on an application page, the report's data for the
// report's own script.
type page struct {
	Title string
	// Sub is the header's explanation.
	Sub      string
	Template string
	Data     any
	Charts   []chart
	// Report is the offline report's JSON (report.PageData) when the page
	// embeds the report's sections; Tables is the same as tables, shown
	// without JavaScript.
	Report []byte
	Tables []*report.Tables
	// Live, for a live view, is the URL of its server-sent events stream
	// (the body's data-live attribute); empty for a static page.
	Live string
	// Refresh, when positive, reloads the page after so many seconds.
	Refresh int
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

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// templates are the pages' templates, each parsed with the layout, when
// first used: a command that serves no page does not parse them (they
// took 3 ms of every process's start).
var templates = sync.OnceValue(func() map[string]*template.Template {
	funcs := template.FuncMap{
		"ms":    report.Millis,
		"bytes": report.Bytes,
		"time":  report.Time,
		"pct":   func(f float64) string { return strconv.FormatFloat(100*f, 'f', 0, 64) + "%" },
		"signed": func(f float64) string {
			return fmt.Sprintf("%+.0f%%", 100*f)
		},
		"num":   func(f float64) string { return strconv.FormatFloat(f, 'g', 4, 64) },
		"nav":   func() [][2]string { return navigation },
		"msf":   func(f float64) string { return report.Millis(int64(math.Round(f))) },
		"inc":   func(i int) int { return i + 1 },
		"dur":   func(a *model.App) int64 { return a.End - a.Start },
		"sub":   func(a, b int64) int64 { return a - b },
		"int64": func(f float64) int64 { return int64(f) },
		// tables renders an analysis's tables (report.WriteTables): HTML
		// escaped by that template.
		"tables": func(t *report.Tables) (template.HTML, error) {
			var b bytes.Buffer
			err := report.WriteTables(&b, t)
			return template.HTML(b.String()), err
		},
		"changed": func(c float64) bool { return math.Abs(c) >= 0.1 },
		"change": func(c float64) string {
			if math.IsNaN(c) {
				return "-"
			}
			return fmt.Sprintf("%+.0f%%", 100*c)
		},
		"measure": func(kind string, v int64) string {
			switch kind {
			case "ms":
				return report.Millis(v)
			case "bytes":
				return report.Bytes(v)
			}
			return strconv.FormatInt(v, 10)
		},
	}
	layout := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html"))
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		out[name] = template.Must(template.Must(layout.Clone()).ParseFS(templateFS, n))
	}
	return out
})

// layoutData is what the layout template sees.
type layoutData struct {
	*page
	ChartsJSON template.JS
	ReportJSON template.JS
	Static     func(string) string
}

// render writes a page with its status.
func render(w http.ResponseWriter, status int, p *page) error {
	t := templates()[p.Template]
	if t == nil {
		return fmt.Errorf("no template %q", p.Template)
	}
	d := layoutData{page: p, Static: staticURL}
	if len(p.Charts) > 0 {
		// encoding/json escapes <, > and &: the blob cannot close its
		// script element.
		b, err := json.Marshal(p.Charts)
		if err != nil {
			return fmt.Errorf("encode charts: %w", err)
		}
		d.ChartsJSON = template.JS(b)
	}
	if p.Report != nil {
		d.ReportJSON = template.JS(p.Report)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout.html", d); err != nil {
		return fmt.Errorf("render %s: %w", p.Template, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
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
