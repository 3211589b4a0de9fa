package web

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/live"
	"github.com/clusterlens/clusterlens/internal/summary"
)

// The live views (docs/UI.md): a running application followed as its log
// grows (/live/app/{id}) and the nodes as the collector stores their
// samples, with online peer diagnosis (/live). Each page is rendered
// whole on the server, then its stream (server-sent events, at most one
// event per liveEvery) sends the live part again as HTML rendered by the
// same code, with its charts; the script swaps it in. When the source
// ends (the application ended, its log is gone) the stream sends an
// "end" event and closes, and the page keeps the last data and says so;
// its browser comes back every liveEndedEvery (the event's retry) naming
// what it has (the event's id): nothing is sent until the log changed,
// and a log replaced by a new run is live on the page again. No
// goroutine waits for an ended page between its visits.

// liveEvery is the shortest time between two events of one stream, and
// how often a stream looks for news.
const liveEvery = time.Second

// liveEndedEvery is how often a page whose source ended asks again.
const liveEndedEvery = 3 * time.Second

// AppFollower is implemented by a source of applications that can follow
// the log an application is read from as it grows, for its live page
// (live.FollowApp). The log must be one found under the served paths.
type AppFollower interface {
	FollowApp(appID string) (*live.App, bool)
}

// liveUpdate is one event of a live stream.
type liveUpdate struct {
	// HTML is the live part of the page (its LivePart).
	HTML   string  `json:"html"`
	Charts []chart `json:"charts"`
	// Newest is the newest data's time (Unix ms); Ended says the source
	// ended and why.
	Newest int64  `json:"newestMs"`
	Ended  string `json:"ended,omitempty"`
}

// liveSource is what a live stream follows: the feed shared by every
// viewer, how to build the page's data and charts from what it read (and
// the newest data's time), once the source ended, why (else ""), and a
// source that ends names what it read (its token, the end event's id).
type liveSource struct {
	feed  *sharedFeed
	page  func() (*page, int64)
	ended func() string
	token func() string
}

// sharedFeed is a live feed shared by every viewer of one view: polled at
// most once per liveEvery whoever asks, each poll with news counted.
type sharedFeed struct {
	poll func(ctx context.Context) (bool, error)

	mu  sync.Mutex
	at  time.Time
	ver int64
	// asked is when a viewer last asked (Unix ns; the followers idle
	// longest go first), read without waiting for a poll under way.
	asked atomic.Int64
}

// get polls the feed unless it was polled less than liveEvery ago, and
// returns its version (it grows with news).
func (f *sharedFeed) get(ctx context.Context) (int64, error) {
	f.asked.Store(time.Now().UnixNano())
	f.mu.Lock()
	defer f.mu.Unlock()
	if time.Since(f.at) < liveEvery-liveEvery/10 {
		return f.ver, nil
	}
	f.at = time.Now()
	news, err := f.poll(ctx)
	if news {
		f.ver++
	}
	return f.ver, err
}

// stream serves src as server-sent events: an "update" event at once and
// whenever there was news, no two within liveEvery; an "end" event when
// the source ended, then the stream closes. The end event asks the client
// to come back after liveEndedEvery with its id (Last-Event-ID): while
// the source is still ended as that id names, the stream closes at once
// and sends nothing. It ends when the client goes or StopStreams is
// called.
func (u *UI) stream(w http.ResponseWriter, r *http.Request, src liveSource) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	retry := fmt.Sprintf("retry: %d\n", liveEndedEvery.Milliseconds())
	send := func(event string, ended string) error {
		head := ""
		if ended != "" && src.token != nil {
			// The token is read before the page: at worst it names an
			// older state than the page shows, which is sent again.
			head = retry + "id: " + src.token() + "\n"
		}
		p, newest := src.page()
		data, err := liveEvent(p, newest, ended)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(w, "%sevent: %s\ndata: %s\n\n", head, event, data); err != nil {
			return err
		}
		return rc.Flush()
	}
	var sent, polled time.Time
	ver, err := src.feed.get(r.Context())
	if err != nil {
		u.o.Log.Warn("live poll", "path", r.URL.Path, "err", err)
	}
	if last := r.Header.Get("Last-Event-ID"); last != "" && src.token != nil && src.ended() != "" && src.token() == last {
		// The client has this end: it comes back later.
		fmt.Fprint(w, retry+"\n")
		rc.Flush()
		return
	}
	news := true // the first event is the current state
	for {
		if why := src.ended(); why != "" {
			if err := send("end", why); err != nil {
				u.o.Log.Debug("live stream", "path", r.URL.Path, "err", err)
			}
			return
		}
		if news {
			if err := send("update", ""); err != nil {
				u.o.Log.Debug("live stream", "path", r.URL.Path, "err", err)
				return
			}
			sent = time.Now() // written: the next event is a second after it
		}
		// The next look: liveEvery after the last event and the last look.
		wait := time.Until(sent.Add(liveEvery))
		if polled.Add(liveEvery).After(sent.Add(liveEvery)) {
			wait = time.Until(polled.Add(liveEvery))
		}
		select {
		case <-r.Context().Done():
			return
		case <-u.stop:
			return
		case <-time.After(wait):
		}
		polled = time.Now()
		now, err := src.feed.get(r.Context())
		if err != nil {
			u.o.Log.Warn("live poll", "path", r.URL.Path, "err", err)
		}
		news, ver = now != ver, now
	}
}

// liveEvent is the data of an event of page p: its live part rendered,
// its charts, the newest data's time and why it ended ("": it did not).
func liveEvent(p *page, newest int64, ended string) ([]byte, error) {
	var b htmlw.Writer
	p.LivePart(&b)
	// The event is read by JSON.parse, never put in a page's HTML: its
	// markup needs no \u003c escapes (a third of the size).
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(liveUpdate{HTML: b.String(), Charts: p.Charts, Newest: newest, Ended: ended}); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n")), nil
}

// StopStreams ends the live streams, now and from now on: a server
// shutting down calls it (http.Server.RegisterOnShutdown), as it does not
// wait for streams that never end by themselves.
func (u *UI) StopStreams() { u.stopOnce.Do(func() { close(u.stop) }) }

// liveNodes is the UI's one node feed, shared by every live nodes page.
type liveNodes struct {
	feed *live.Nodes
	sharedFeed
}

func newLiveNodes(feed *live.Nodes) *liveNodes {
	return &liveNodes{feed: feed, sharedFeed: sharedFeed{poll: feed.Poll}}
}

// liveNodesData is the live nodes page's data.
type liveNodesData struct {
	View *live.NodesView
	// Running are the applications of the logs still running.
	Running []runningApp
}

type runningApp struct{ ID, Name, User string }

// liveNodesPage shows every node's newest samples and peer-diagnosis
// state, the indictments as they happen, and the running applications.
func (u *UI) liveNodesPage(r *http.Request) (*page, error) {
	if u.live == nil {
		return messagePage("Live", "The live nodes need the node sample store: start the server with --metrics DSN (and --peer-profile FILE for peer diagnosis)."), nil
	}
	if _, err := u.live.get(r.Context()); err != nil {
		return nil, err
	}
	p, _ := u.liveNodesView()
	p.Live = "/live/events"
	return p, nil
}

// liveNodesView is the live nodes page of the feed's state, and its
// newest sample's time.
func (u *UI) liveNodesView() (*page, int64) {
	v := u.live.feed.View()
	d := &liveNodesData{View: v}
	if ix := u.o.Apps.Index(); ix != nil {
		for _, a := range ix.Apps() {
			if !a.Complete && a.End == 0 {
				d.Running = append(d.Running, runningApp{a.ID, a.Name, a.User})
			}
		}
	}
	p := &page{Title: "Live", View: "livenodes", Sub: "nodes, live",
		Content: func(w *htmlw.Writer) { writeLiveNodes(w, d) }, LivePart: func(w *htmlw.Writer) { writeLiveNodesPart(w, d) }}
	if len(v.Nodes) > 0 {
		p.Charts = []chart{liveCPUChart(v.Nodes)}
	}
	return p, v.Newest
}

// liveCPUChart is every node's CPU in its newest sample: a bar per node,
// or past speedBars nodes how many nodes run at each level (2,400 bars
// made a strip no one could read).
func liveCPUChart(nodes []live.Node) chart {
	if len(nodes) <= speedBars {
		c := chart{ID: "live-cpu", Title: "CPU of every node, newest sample (user + system + iowait)", Kind: "bar", YUnit: "%", Height: 240}
		se := series{Name: "CPU"}
		for i, n := range nodes {
			c.XCats = append(c.XCats, n.Host)
			se.Data = append(se.Data, [2]float64{float64(i), n.CPU})
		}
		c.Series = []series{se}
		return c
	}
	const bins, width = 20, 5.0 // % each
	c := chart{ID: "live-cpu", Title: fmt.Sprintf("How many of the %s nodes run at each CPU level, newest sample (user + system + iowait)", count(int64(len(nodes)))),
		Kind: "bar", YUnit: "count", Height: 240, XName: "CPU"}
	var n [bins]int
	for _, nd := range nodes {
		n[min(bins-1, max(0, int(nd.CPU/width)))]++
	}
	se := series{Name: "nodes"}
	for i := range bins {
		c.XCats = append(c.XCats, fmt.Sprintf("%.0f–%.0f%%", float64(i)*width, float64(i+1)*width))
		se.Data = append(se.Data, [2]float64{float64(i), float64(n[i])})
	}
	c.Series = []series{se}
	return c
}

// liveNodesEvents streams the live nodes page.
func (u *UI) liveNodesEvents(w http.ResponseWriter, r *http.Request) {
	if u.live == nil {
		http.Error(w, "no node sample store (serve --metrics)", http.StatusNotFound)
		return
	}
	u.stream(w, r, liveSource{feed: &u.live.sharedFeed, page: u.liveNodesView, ended: func() string { return "" }})
}

// liveAppData is the live application page's data.
type liveAppData struct {
	ID, Name, User string
	Start, End     int64
	Progress       *live.Progress
	// Ended says why the page no longer changes; Problem what the last
	// read lost.
	Ended, Problem string
}

// keepFollowed is how many applications the live pages follow at once;
// the one asked about least recently is dropped first.
const keepFollowed = 16

// followedApp is one application's log followed, shared by its viewers.
type followedApp struct {
	app *live.App
	sharedFeed
}

// followApp returns the follower of application id's log, starting it
// (a first read of the log) when no page follows it yet.
func (u *UI) followApp(r *http.Request) (*followedApp, error) {
	id := r.PathValue("id")
	af, ok := u.o.Apps.(AppFollower)
	if !ok {
		return nil, fmtErr(errNotFound, "application %s: this server cannot follow logs", id)
	}
	u.followMu.Lock()
	f := u.followed[id]
	if f == nil {
		app, ok := af.FollowApp(id)
		if !ok {
			u.followMu.Unlock()
			return nil, fmtErr(errNotFound, "no application %s in the logs", id)
		}
		f = &followedApp{app: app}
		f.poll = func(context.Context) (bool, error) { return f.app.Poll() }
		u.forgetIdle()
		u.followed[id] = f
	}
	u.followMu.Unlock()
	// The first read happens here, under the feed's lock only: viewers
	// of other applications do not wait for it.
	_, err := f.get(r.Context())
	if a, _, _ := f.app.App(); a == nil {
		u.followMu.Lock()
		if u.followed[id] == f {
			delete(u.followed, id)
		}
		u.followMu.Unlock()
		return nil, fmtErr(errNotFound, "application %s: its log holds no application: %v", id, err)
	}
	return f, nil
}

// forgetIdle drops the follower idle longest when keepFollowed are
// followed; u.followMu is held.
func (u *UI) forgetIdle() {
	if len(u.followed) < keepFollowed {
		return
	}
	var idle string
	for k, g := range u.followed {
		if idle == "" || g.asked.Load() < u.followed[idle].asked.Load() {
			idle = k
		}
	}
	delete(u.followed, idle)
}

// liveAppPage shows a running application as far as its log goes.
func (u *UI) liveAppPage(r *http.Request) (*page, error) {
	f, err := u.followApp(r)
	if err != nil {
		return nil, err
	}
	p, _ := liveAppView(f.app)
	p.Live = "/live/app/" + r.PathValue("id") + "/events"
	return p, nil
}

// liveAppView is the live application page of what f read, and the
// newest task event's time.
func liveAppView(f *live.App) (*page, int64) {
	a, _, err := f.App()
	pr := live.ProgressOf(a)
	d := &liveAppData{ID: a.ID, Name: a.Name, User: a.User, Start: a.Start, End: a.End, Progress: pr, Ended: endedWhy(f)}
	if err != nil {
		d.Problem = err.Error()
	}
	p := &page{Title: cmp.Or(a.Name, a.ID) + " (live)", View: "liveapp", Sub: a.ID + " · live",
		Content: func(w *htmlw.Writer) { writeLiveApp(w, d) }, LivePart: func(w *htmlw.Writer) { writeLiveAppPart(w, d) }}
	if pr.Newest > 0 && a.Start > 0 {
		bin := throughputBin(pr.Newest - a.Start)
		p.Charts = minuteCharts(summary.Minutes(a, bin), bin)
	}
	return p, pr.Newest
}

// endedWhy says why f no longer changes, "" while it may.
func endedWhy(f *live.App) string {
	a, ended, _ := f.App()
	switch {
	case !ended:
		return ""
	case !a.Complete:
		return "the log is gone; shown as last read"
	case a.End > 0:
		return "the application ended at " + time.UnixMilli(a.End).UTC().Format("15:04:05Z")
	}
	return "the application ended"
}

// liveAppEvents streams a live application page.
func (u *UI) liveAppEvents(w http.ResponseWriter, r *http.Request) {
	f, err := u.followApp(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	u.stream(w, r, liveSource{feed: &f.sharedFeed, page: func() (*page, int64) { return liveAppView(f.app) },
		ended: func() string { return endedWhy(f.app) }, token: f.app.Token})
}
