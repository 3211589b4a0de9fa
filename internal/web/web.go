// Package web is clusterlens's web UI, served by `clusterlens serve` beside
// the History Server API: the fleet of runs from the run history, each
// application (everything `analyze --html` shows, plus task throughput and
// duration quantiles per minute), two runs compared, and the nodes. Pages
// are rendered on the server (the view_*.go files), so their tables read
// without JavaScript; charts are drawn in the browser by the embedded
// Apache ECharts from a few hundred aggregated numbers per chart, never
// from every task. It is read-only: it answers GET and HEAD, and no
// request names a file (applications are found by id through the server's
// source of logs). docs/UI.md describes the pages.
package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/live"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/shs"
)

// Options configure the UI.
type Options struct {
	// Apps is where the applications come from: the logs the server reads
	// (required).
	Apps shs.Source
	// History is the run history; without it the fleet, job and node
	// history pages say that they need one (serve --store).
	History history.Store
	// Metrics is the node sample store (driver.StoreMetrics); with it the
	// application pages join node metrics with the tasks, the node pages
	// chart them and the live nodes page follows it.
	Metrics *driver.Metrics
	// Peer is a trained Ganesha profile; with Metrics it diagnoses the
	// nodes on the node pages (peer-diagnosis state and indictments).
	Peer *peer.Profile
	// Analysis tunes the analyses of the application pages (Reconstruction
	// is always on: the page draws the timeline).
	Analysis analysis.Options
	// Log receives what went wrong while answering.
	Log *slog.Logger
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Sources, when set, says which of the server's log sources cannot be
	// read now: every page names them in a banner (their logs read before
	// are still shown).
	Sources func() []SourceProblem
}

// SourceProblem is a log source that cannot be read: which, why, since when.
type SourceProblem struct {
	Source, Err string
	Since       time.Time
}

// UI is the web UI's handler.
type UI struct {
	o        Options
	mux      *http.ServeMux
	analyses *analysisCache
	fleet    *fleetCache
	nodes    *nodeCache
	// live is the node feed of the live nodes page (nil without Metrics).
	live *liveNodes
	// followed are the applications the live pages follow, by id.
	followMu sync.Mutex
	followed map[string]*followedApp
	// stop ends the live streams (StopStreams).
	stop     chan struct{}
	stopOnce sync.Once
}

// New returns the UI over o's sources.
func New(o Options) (*UI, error) {
	if o.Apps == nil {
		return nil, errors.New("web ui: no source of applications")
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Analysis.Reconstruction = true
	u := &UI{o: o, mux: http.NewServeMux(), analyses: newAnalysisCache(keepAnalyses), stop: make(chan struct{}), followed: map[string]*followedApp{}}
	if o.History != nil {
		u.fleet = newFleetCache(o.History, fleetTTL, o.Log)
		// List the history now, so that the first fleet page need not.
		go u.fleet.get(context.Background())
	}
	u.nodes = &nodeCache{}
	if o.Metrics != nil && o.Metrics.Store() != nil {
		feed, err := live.NewNodes(live.NodesOptions{Store: o.Metrics.Store(), Peer: o.Peer, Now: o.Now})
		if err != nil {
			return nil, fmt.Errorf("web ui: %w", err)
		}
		u.live = newLiveNodes(feed)
	}
	u.mux.HandleFunc("GET /live/events", u.liveNodesEvents)
	u.mux.HandleFunc("GET /live/app/{id}/events", u.liveAppEvents)
	u.mux.HandleFunc("GET /{$}", u.home)
	u.mux.HandleFunc("GET /static/{name}", serveStatic)
	for _, v := range u.views() {
		u.mux.Handle("GET "+v.pattern, u.page(v))
	}
	return u, nil
}

// ServeHTTP answers GET and HEAD; any other method is refused (405) by
// the mux's method patterns.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	// The pages load their scripts and styles from this server only.
	w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'")
	u.mux.ServeHTTP(w, r)
}

// home sends to the fleet with a run history, else to the applications
// read from the logs.
func (u *UI) home(w http.ResponseWriter, r *http.Request) {
	to := "/apps"
	if u.o.History != nil {
		to = "/fleet"
	}
	http.Redirect(w, r, to, http.StatusFound)
}

// view is one kind of page: where it is served, what it is called in the
// navigation, and how it is built. A live view (docs/UI.md) adds its
// stream beside it and names it in the page's Live field.
type view struct {
	pattern string
	nav     string
	build   func(r *http.Request) (*page, error)
}

func (u *UI) views() []view {
	return []view{
		{"/fleet", "Fleet", u.fleetPage},
		{"/job/{ref}", "", u.jobPage},
		{"/apps", "Applications", u.appsPage},
		{"/app/{id}", "", u.appPage},
		{"/app/{id}/jobs", "", u.jobsPage},
		{"/app/{id}/stages", "", u.stagesPage},
		{"/app/{id}/stage/{stage}/{attempt}", "", u.stagePage},
		{"/app/{id}/executors", "", u.executorsPage},
		{"/app/{id}/environment", "", u.environmentPage},
		{"/app/{id}/storage", "", u.storagePage},
		{"/app/{id}/sql", "", u.sqlListPage},
		{"/app/{id}/sql/{exec}", "", u.sqlPage},
		{"/compare", "Compare", u.comparePage},
		{"/nodes", "Nodes", u.nodesPage},
		{"/node/{host}", "", u.nodePage},
		{"/live", "Live", u.liveNodesPage},
		{"/live/app/{id}", "Live", u.liveAppPage},
	}
}

// navigation is the header's links, in order.
var navigation = [][2]string{{"Fleet", "/fleet"}, {"Applications", "/apps"}, {"Compare", "/compare"}, {"Nodes", "/nodes"}, {"Live", "/live"}}

// errNotFound marks a page about something that does not exist (404).
var errNotFound = errors.New("not found")

// errBadRequest marks a request the page cannot answer as asked (400).
var errBadRequest = errors.New("bad request")

// page builds a view's page and writes it; a failure is written as a page
// too, with its status.
func (u *UI) page(v view) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		p, err := v.build(r)
		status := http.StatusOK
		if err != nil {
			status = http.StatusInternalServerError
			switch {
			case errors.Is(err, errNotFound), errors.Is(err, history.ErrNotFound):
				status = http.StatusNotFound
			case errors.Is(err, errBadRequest):
				status = http.StatusBadRequest
			case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
				status = http.StatusServiceUnavailable
			default:
				u.o.Log.Warn("web page", "path", r.URL.Path, "err", err)
			}
			p = messagePage(http.StatusText(status), err.Error())
		}
		p.Nav = v.nav
		if u.o.Sources != nil {
			p.Banner = u.o.Sources()
		}
		p.ServerMs = float64(time.Since(start).Microseconds()) / 1000
		if err := render(w, status, p); err != nil {
			u.o.Log.Warn("web render", "path", r.URL.Path, "err", err)
		}
	})
}

// needsHistory is the page of a view that needs the run history when the
// server has none.
func needsHistory(title string) *page {
	return messagePage(title, "This page needs the run history: start the server with --store (sqlite:PATH or clickhouse+http://HOST:8123/DB). "+
		"The applications read from the logs are under Applications.")
}

// fmtErr wraps err with the kind of failure (errNotFound, errBadRequest)
// the page reports.
func fmtErr(kind error, format string, args ...any) error {
	return fmt.Errorf("%w: %s", kind, fmt.Sprintf(format, args...))
}
