package web

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	why "github.com/clusterlens/clusterlens/internal/explain"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/report"
	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/summary"
)

// keepAnalyses is how many applications' analyses the UI keeps.
const keepAnalyses = 8

// analyzed is one application's analysis with what its page shows,
// computed once: the report's data, its tables and the throughput bins.
type analyzed struct {
	a       *analysis.Analysis
	report  []byte
	tables  *report.Tables
	minutes []summary.Minute
	bin     int64 // the minutes' width, ms
	links   []linkedFinding
	err     error
}

// throughputBin is the width of the throughput bins: a minute, or for an
// application shorter than 20 minutes 10 s, or under 200 s a second, so
// that a short run still has bins to compare.
func throughputBin(wallMs int64) int64 {
	switch {
	case wallMs >= 20*60_000:
		return 60_000
	case wallMs >= 200_000:
		return 10_000
	}
	return 1000
}

// analysisCache keeps the latest analyses, by the application read (a
// log read again is a new *model.App, analyzed again). Requests for an
// application being analyzed wait for that analysis.
type analysisCache struct {
	max   int
	mu    sync.Mutex
	keys  []*model.App // least recently used first
	byApp map[*model.App]*analysisEntry
}

type analysisEntry struct {
	done chan struct{}
	v    *analyzed
}

func newAnalysisCache(n int) *analysisCache {
	return &analysisCache{max: n, byApp: map[*model.App]*analysisEntry{}}
}

// errAnalyzing says an analysis is still being built after the wait.
var errAnalyzing = errors.New("still being analyzed")

// get returns app's analysis, building it with build on first use (in the
// background: the analysis of a million tasks takes seconds). It waits at
// most wait for it (0: until ctx ends), then returns errAnalyzing.
func (c *analysisCache) get(ctx context.Context, app *model.App, wait time.Duration, build func() *analyzed) (*analyzed, error) {
	c.mu.Lock()
	e := c.byApp[app]
	if e == nil {
		e = &analysisEntry{done: make(chan struct{})}
		c.byApp[app] = e
		c.keys = append(c.keys, app)
		if len(c.keys) > c.max {
			delete(c.byApp, c.keys[0])
			c.keys = c.keys[1:]
		}
		go func() {
			e.v = build()
			close(e.done)
		}()
	} else {
		for i, k := range c.keys {
			if k == app {
				c.keys = append(append(c.keys[:i:i], c.keys[i+1:]...), app)
				break
			}
		}
	}
	c.mu.Unlock()
	var timeout <-chan time.Time
	if wait > 0 {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case <-e.done:
		return e.v, nil
	case <-timeout:
		return nil, errAnalyzing
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// analysisWait is how long an application page waits for its analysis
// before it answers that the analysis is under way (and reloads itself).
const analysisWait = 500 * time.Millisecond

// index returns the source's index with application id read in full
// (reading its logs first when they are pending), as the API does.
func (u *UI) index(ctx context.Context, id string) (*shs.Index, error) {
	ix := u.o.Apps.Index()
	if ix == nil {
		if id == "" {
			return shs.NewIndex(nil), nil // listing: none yet
		}
		return nil, fmtErr(errNotFound, "application %s: the logs are still being listed", id)
	}
	if id != "" && (ix.Pending(id) || ix.Unread() > 0 && !ix.Has(id)) {
		return u.o.Apps.Read(ctx, id)
	}
	return ix, nil
}

// attempt finds an application attempt by id and attempt id ("" for the
// newest attempt).
func (u *UI) attempt(ctx context.Context, id, attempt string) (*model.App, error) {
	ix, err := u.index(ctx, id)
	if err != nil {
		return nil, err
	}
	for _, a := range ix.Attempts(id) {
		if attempt == "" || a.AttemptID == attempt {
			if ix.Pending(id) {
				return nil, fmtErr(errNotFound, "application %s: its log is not read yet", id)
			}
			return a, nil
		}
	}
	if attempt != "" {
		return nil, fmtErr(errNotFound, "application %s has no attempt %q", id, attempt)
	}
	return nil, fmtErr(errNotFound, "no application %s in the logs", id)
}

// analyze builds an application's analysis with the UI's options, node
// metrics from the sample store over its run when there is one.
func (u *UI) analyze(app *model.App) *analyzed {
	in := driver.Analyses{Options: u.o.Analysis}
	if u.o.Metrics != nil {
		in.Metrics, in.Shared, in.Skew = u.o.Metrics, true, correlate.DefaultSkewMs*time.Millisecond
		in.Nodes = &driver.NodeInputs{Profile: u.o.Peer, ProfileName: "serve --peer-profile"}
	}
	as, err := driver.Analyze(context.Background(), []*model.App{app}, in)
	if err != nil {
		return &analyzed{err: err}
	}
	a := as[0]
	out := &analyzed{a: a, tables: report.BuildTables(a), bin: throughputBin(app.End - app.Start), links: linkFindings(app, a.Findings)}
	out.minutes = summary.Minutes(app, out.bin)
	out.report, out.err = report.PageData([]*analysis.Analysis{a}, report.MaxTimelineBars)
	return out
}

// appData is the application page's data.
type appData struct {
	s        *sparkApp
	Findings []linkedFinding
	App      *model.App
	Attempts []*model.App
	Tables   *report.Tables
	Minutes  []summary.Minute
	Bin      string // the bins' width in words
	// MinutesShown are the bins the table lists when JavaScript is off.
	MinutesShown []summary.Minute
	CompareURL   string
	// Explained is the run against its recurring job's usual runs (with a
	// run history holding it); NotExplained says why there is none.
	Explained    *why.Explanation
	NotExplained string
}

// maxMinuteRows is how many bins the script-less throughput table lists.
const maxMinuteRows = 240

// appPage shows everything the offline report shows of one application,
// drawn by the report's own script, with the same as tables without
// JavaScript, and the task throughput and duration quantiles per minute.
func (u *UI) appPage(r *http.Request) (*page, error) {
	id := r.PathValue("id")
	app, err := u.attempt(r.Context(), id, r.URL.Query().Get("attempt"))
	if err != nil {
		return nil, err
	}
	an, err := u.analyses.get(r.Context(), app, analysisWait, func() *analyzed { return u.analyze(app) })
	if errors.Is(err, errAnalyzing) {
		return analyzingPage(app), nil
	}
	if err != nil {
		return nil, err
	}
	if an.err != nil {
		return nil, an.err
	}
	ix, err := u.index(r.Context(), "")
	if err != nil {
		return nil, err
	}
	base := "applications/" + id
	if app.AttemptID != "" {
		base += "/" + app.AttemptID
	}
	d := &appData{s: &sparkApp{ix: ix, app: app, base: base}, Findings: an.links, App: app, Attempts: ix.Attempts(id),
		Tables: an.tables, Minutes: an.minutes, Bin: binName(an.bin), CompareURL: "/compare?a=" + id}
	d.MinutesShown = an.minutes[:min(len(an.minutes), maxMinuteRows)]
	d.Explained, d.NotExplained = u.explanation(r.Context(), app)
	return &page{Title: cmp.Or(app.Name, app.ID), View: "app", Content: func(w *htmlw.Writer) { writeApp(w, d) }, Report: an.report,
		Sub:    fmt.Sprintf("%s · %s tasks", app.ID, strconv.Itoa(an.a.Summary.Totals.Tasks)),
		Charts: minuteCharts(an.minutes, an.bin)}, nil
}

// minuteCharts are the task throughput and the duration quantiles per
// bin of binMs.
func minuteCharts(ms []summary.Minute, binMs int64) []chart {
	if len(ms) == 0 {
		return nil
	}
	per := binName(binMs)
	xmin, xmax := float64(ms[0].Start-binMs/2), float64(ms[len(ms)-1].Start+binMs+binMs/2)
	thr := chart{ID: "app-throughput", Title: "Task attempts ended per " + per, Kind: "bar", XTime: true, YUnit: "count", Height: 240, Stack: true, XMin: xmin, XMax: xmax}
	ok, failed := series{Name: "succeeded", Color: "#16a34a"}, series{Name: "failed or killed", Color: "#b91c1c"}
	q := chart{ID: "app-durations", Title: "Duration of the task attempts ended per " + per, Kind: "line", XTime: true, YUnit: "ms", Height: 260, XMin: xmin, XMax: xmax}
	p50, p90, p99, mx := series{Name: "median"}, series{Name: "90th percentile"}, series{Name: "99th percentile"}, series{Name: "max", Dashed: true}
	for _, m := range ms {
		x := float64(m.Start)
		ok.Data = append(ok.Data, [2]float64{x, float64(m.Finished - m.Failed)})
		if m.Failed > 0 {
			failed.Data = append(failed.Data, [2]float64{x, float64(m.Failed)})
		}
		if m.Finished > 0 {
			p50.Data = append(p50.Data, [2]float64{x, float64(m.P50)})
			p90.Data = append(p90.Data, [2]float64{x, float64(m.P90)})
			p99.Data = append(p99.Data, [2]float64{x, float64(m.P99)})
			mx.Data = append(mx.Data, [2]float64{x, float64(m.Max)})
		}
	}
	thr.Series = []series{ok}
	if len(failed.Data) > 0 {
		thr.Series = append(thr.Series, failed)
	}
	q.Series = []series{p50, p90, p99, mx}
	return []chart{thr, q}
}

// appsData is the applications page's data.
type appsData struct {
	Rows         []*model.App
	Matched, All int
	Name, User   string
	Unread       int
	Prev, Next   string
	Page, Pages  int
}

// appsPage lists the applications read from the logs (no run history
// needed), newest first, filtered by name and user.
func (u *UI) appsPage(r *http.Request) (*page, error) {
	ix, err := u.index(r.Context(), "")
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	d := &appsData{Name: q.Get("name"), User: q.Get("user"), Unread: ix.Unread(), Page: 1}
	if v := q.Get("page"); v != "" {
		if d.Page, err = strconv.Atoi(v); err != nil || d.Page < 1 {
			return nil, fmtErr(errBadRequest, "page %q: want a whole number from 1", v)
		}
	}
	apps := ix.Apps()
	d.All = len(apps)
	name := strings.ToLower(d.Name)
	var rows []*model.App
	for _, a := range apps {
		if (name == "" || strings.Contains(strings.ToLower(a.Name), name) || strings.Contains(a.ID, d.Name)) && (d.User == "" || a.User == d.User) {
			rows = append(rows, a)
		}
	}
	const per = 100
	d.Matched = len(rows)
	d.Pages = max(1, (len(rows)+per-1)/per)
	d.Page = min(d.Page, d.Pages)
	d.Rows = rows[(d.Page-1)*per : min(d.Page*per, len(rows))]
	link := func(p int) string {
		var b bytes.Buffer
		fmt.Fprintf(&b, "/apps?page=%d", p)
		if d.Name != "" {
			b.WriteString("&name=" + url.QueryEscape(d.Name))
		}
		if d.User != "" {
			b.WriteString("&user=" + url.QueryEscape(d.User))
		}
		return b.String()
	}
	if d.Page > 1 {
		d.Prev = link(d.Page - 1)
	}
	if d.Page < d.Pages {
		d.Next = link(d.Page + 1)
	}
	return &page{Title: "Applications", View: "apps", Content: func(w *htmlw.Writer) { writeApps(w, d) },
		Sub: fmt.Sprintf("%d Spark applications read from the logs", d.All)}, nil
}

// analyzingPage says that the application is being analyzed; it reloads
// itself every two seconds until the analysis is there.
func analyzingPage(app *model.App) *page {
	title := cmp.Or(app.Name, app.ID)
	p := messagePage(title, fmt.Sprintf("Analyzing %s: %d task attempts on %d executors. This page reloads when the analysis is done.",
		app.ID, app.NumTasks(), len(app.Executors)))
	p.Refresh = 2
	return p
}
