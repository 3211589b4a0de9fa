package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/live"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/source"
	"github.com/clusterlens/clusterlens/internal/store"
	samplesqlite "github.com/clusterlens/clusterlens/internal/store/sqlite"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// liveUpdateSeen is one update the live page's script recorded.
type liveUpdateSeen struct {
	Arrived float64 `json:"arrived"`
	At      float64 `json:"at"`
	Newest  float64 `json:"newestMs"`
	Ms      float64 `json:"ms"`
	HTMLMs  float64 `json:"htmlMs"`
	Tasks   string  `json:"tasks"`
}

// typicalValues are the 90th percentile of each of Ganesha's metrics on
// one of the fixture's nodes: synthetic nodes look like busy simulated
// ones.
func typicalValues(t testing.TB) []float64 {
	t.Helper()
	f := getFixture(t)
	out := make([]float64, len(peer.GaneshaMetrics))
	for i, m := range peer.GaneshaMetrics {
		var xs []float64
		err := f.samples.Query(context.Background(), store.Query{Hosts: []string{f.spark[0].Executors[1].Host}, Types: []string{m}},
			func(s *model.Sample) error { xs = append(xs, s.Value); return nil })
		if err != nil || len(xs) == 0 {
			t.Fatalf("typical %s: %d samples, %v", m, len(xs), err)
		}
		slices.Sort(xs)
		out[i] = xs[len(xs)*9/10]
	}
	return out
}

// nodeBatch is one agent tick of n synthetic nodes at time t: Ganesha's
// metrics about their typical values, as the collector stores them; node
// hot (-1: none) runs its CPU at 98% and its disk five times as hard.
func nodeBatch(rng *rand.Rand, typical []float64, seq uint64, n, hot int, t int64) *wire.Batch {
	b := &wire.Batch{Agent: "live-test", Seq: seq}
	for h := range n {
		host := fmt.Sprintf("node%04d", h)
		for i, m := range peer.GaneshaMetrics {
			v := typical[i] * (0.9 + 0.2*rng.Float64())
			if h == hot {
				switch {
				case m == "cpu_user_pct":
					v = 85
				case m == "cpu_system_pct":
					v = 8
				case m == "cpu_iowait_pct":
					v = 5
				case strings.HasPrefix(m, "disk_"):
					v *= 5
				}
			}
			b.Samples = append(b.Samples, model.Sample{Host: host, Type: m, Time: t, Value: v})
		}
	}
	return b
}

// liveStore is an empty SQLite sample store served by a UI with the
// fixture's peer profile.
func liveStore(t *testing.T) (store.Store, *httptest.Server) {
	t.Helper()
	f := getFixture(t)
	st, err := samplesqlite.Open(filepath.Join(t.TempDir(), "samples.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ui, err := New(Options{Apps: shs.Static(shs.NewIndex(nil)), Metrics: driver.StoreMetrics(st), Peer: f.prof})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ui)
	t.Cleanup(srv.Close)
	return st, srv
}

// liveRun is what the live nodes page showed while batches were stored.
type liveRun struct {
	// latency is, per batch, from the store's Append returning to the
	// page's update showing the batch.
	latency []time.Duration
	// draw is each update's drawing time (ms), frames the intervals
	// between animation frames (ms), both sorted.
	draw, frames []float64
	rows         int
	errs         []string
}

// watchNodes stores a batch of n nodes' samples every second, as the
// collector does, while headless Chromium shows the live nodes page, and
// measures what the page showed.
func watchNodes(t *testing.T, n, batches int) liveRun {
	bin := sharedtest.Chromium(t)
	st, srv := liveStore(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	typical := typicalValues(t)
	seq := uint64(1)
	if _, err := st.Append(ctx, nodeBatch(rng, typical, seq, n, -1, time.Now().UnixMilli())); err != nil {
		t.Fatal(err)
	}
	b := sharedtest.OpenBrowser(t, bin, srv.URL+"/live", "1280,1600")
	b.WaitFor(t, "window.__clLive && window.__clLive.length > 0", 30*time.Second)
	var r liveRun
	for range batches {
		time.Sleep(time.Second)
		seq++
		tb := time.Now().UnixMilli()
		if _, err := st.Append(ctx, nodeBatch(rng, typical, seq, n, -1, tb)); err != nil {
			t.Fatal(err)
		}
		stored := time.Now()
		b.WaitFor(t, fmt.Sprintf("window.__clLive.some(function (u) { return u.newestMs >= %d })", tb), 10*time.Second)
		var at float64
		b.Eval(t, fmt.Sprintf("window.__clLive.filter(function (u) { return u.newestMs >= %d })[0].at", tb), &at)
		r.latency = append(r.latency, time.UnixMilli(int64(at)).Sub(stored))
	}
	var seen []liveUpdateSeen
	b.Eval(t, "window.__clLive", &seen)
	b.Eval(t, "window.__clFrames", &r.frames)
	b.Eval(t, "document.querySelectorAll('#cl-live table:last-of-type tr').length - 1", &r.rows)
	b.Eval(t, "window.__clErrors", &r.errs)
	var table []float64
	for _, u := range seen {
		r.draw = append(r.draw, u.Ms)
		table = append(table, u.HTMLMs)
	}
	slices.Sort(r.latency)
	slices.Sort(r.draw)
	slices.Sort(table)
	slices.Sort(r.frames)
	t.Logf("stored → shown on the page, %d batches of %d nodes: median %v, max %v", len(r.latency), n,
		r.latency[len(r.latency)/2].Round(time.Millisecond), r.latency[len(r.latency)-1].Round(time.Millisecond))
	t.Logf("%d updates of %d nodes: drawing an update (table and chart) median %.1f ms (the table %.1f ms), max %.1f ms; "+
		"%d frame intervals: median %.1f ms, 99th percentile %.1f ms, max %.1f ms",
		len(r.draw), n, quantile(r.draw, 0.5), quantile(table, 0.5), r.draw[len(r.draw)-1],
		len(r.frames), quantile(r.frames, 0.5), quantile(r.frames, 0.99), r.frames[len(r.frames)-1])
	if r.rows != n {
		t.Errorf("the live table has %d rows, want the %d nodes", r.rows, n)
	}
	if len(r.errs) > 0 {
		t.Errorf("script errors: %q", r.errs)
	}
	return r
}

// quantile is the p-quantile of sorted xs (the nearest rank above).
func quantile(xs []float64, p float64) float64 {
	return xs[min(int(p*float64(len(xs))), len(xs)-1)]
}

// TestLiveBatchWithin2s: with 100 nodes shipping a batch every second,
// each batch is on the live page within 2 s of being stored (issue 15).
func TestLiveBatchWithin2s(t *testing.T) {
	r := watchNodes(t, 100, 8)
	for _, l := range r.latency {
		if l > 2*time.Second {
			t.Errorf("a batch took %v to show (want under 2 s)", l)
		}
	}
}

// TestLiveFrameTime1000Nodes: with 1,000 nodes the page draws an update
// in well under the second between two and keeps its frames; it prints
// the drawing and frame times. The latency is printed too, and its median
// must stay under 2 s: here the store's poll (a range scan per series,
// 14,000 of them) adds 0.2-0.6 s, and more on a loaded machine, so the
// 2-s bound per batch is held by TestLiveBatchWithin2s.
func TestLiveFrameTime1000Nodes(t *testing.T) {
	r := watchNodes(t, 1000, 10)
	if m := quantile(r.draw, 0.5); m > 500 {
		t.Errorf("an update of 1,000 nodes takes %.0f ms to draw (median): the page cannot keep up with one a second", m)
	}
	if m := r.latency[len(r.latency)/2]; m > 2*time.Second {
		t.Errorf("batches of 1,000 nodes took %v to show (median), want under 2 s", m)
	}
}

// TestLiveAtMostOncePerSecond stores a batch every 100 ms for 8 s: the
// page and a plain client of the stream get an event at most once a
// second, and still one about every second. Then the batches stop: the
// page says so and keeps the last data.
func TestLiveAtMostOncePerSecond(t *testing.T) {
	bin := sharedtest.Chromium(t)
	st, srv := liveStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rng := rand.New(rand.NewPCG(3, 4))
	typical := typicalValues(t)
	// The last four minutes, node 3 running hot: the page opens on its
	// indictment (the feed reads the recent past first).
	const hot = 3
	now := time.Now().UnixMilli()
	for i := range 240 {
		if _, err := st.Append(ctx, nodeBatch(rng, typical, uint64(i+1), 20, hot, now-int64(240-i)*1000)); err != nil {
			t.Fatal(err)
		}
	}
	b := sharedtest.OpenBrowser(t, bin, srv.URL+"/live", "1280,1250")
	b.WaitFor(t, "window.__clLive && window.__clLive.length > 0", 30*time.Second)
	var indicted string
	b.Eval(t, "document.querySelector('#cl-live table').textContent", &indicted)
	if !strings.Contains(indicted, fmt.Sprintf("node%04d", hot)) {
		t.Errorf("the node running hot is not indicted: %q", indicted)
	}
	// A client of the stream beside the page: when the events arrive.
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/live/events", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	arrivals := make(chan time.Time, 100)
	go func() {
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "event: ") {
				arrivals <- time.Now()
			}
		}
		close(arrivals)
	}()
	start := time.Now()
	for seq := uint64(241); time.Since(start) < 8*time.Second; seq++ {
		if _, err := st.Append(ctx, nodeBatch(rng, typical, seq, 20, hot, time.Now().UnixMilli())); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	res.Body.Close()
	// The collector stops: the page says so and keeps the last data.
	b.WaitFor(t, "document.getElementById('cl-live-status').textContent.indexOf('Nothing new since') === 0", 15*time.Second)
	var rows int
	b.Eval(t, "document.querySelectorAll('#cl-live table:last-of-type tr').length", &rows)
	if rows != 21 {
		t.Errorf("after the source stopped the page shows %d rows, want the header and 20 nodes", rows)
	}
	var client []time.Time
	for at := range arrivals {
		client = append(client, at)
	}
	var seen []liveUpdateSeen
	b.Eval(t, "window.__clLive", &seen)
	var page []time.Time
	for _, u := range seen {
		page = append(page, time.UnixMilli(int64(u.Arrived)))
	}
	for name, ts := range map[string][]time.Time{"page": page, "client": client} {
		var gaps []time.Duration
		for i := 1; i < len(ts); i++ {
			gaps = append(gaps, ts[i].Sub(ts[i-1]))
		}
		slices.Sort(gaps)
		if len(gaps) < 5 {
			t.Errorf("%s: %d updates in 8 s of batches every 100 ms, want one about every second", name, len(ts))
			continue
		}
		t.Logf("%s: %d updates while 80 batches were stored; gaps min %v, median %v, max %v", name, len(ts), gaps[0], gaps[len(gaps)/2], gaps[len(gaps)-1])
		// The server writes no two events within a second; the page sees
		// them as they arrive, give or take its own scheduling.
		if gaps[0] < 900*time.Millisecond {
			t.Errorf("%s: two updates %v apart (want at most one a second)", name, gaps[0])
		}
		if span := ts[len(ts)-1].Sub(ts[0]); len(ts) > int(span/time.Second)+1 {
			t.Errorf("%s: %d updates in %v", name, len(ts), span)
		}
	}
}

// followed is a source of applications that can follow one log.
type followed struct {
	shs.Source
	logs map[string]string // by application id
}

func (f followed) FollowApp(id string) (*live.App, bool) {
	path, ok := f.logs[id]
	if !ok {
		return nil, false
	}
	logs, _, err := decodelogs.Find([]string{path}, decodelogs.Options{})
	if err != nil || len(logs) != 1 {
		return nil, false
	}
	return live.FollowApp(logs[0], decodelogs.Options{}), true
}

// TestFollowersBounded opens the live pages of 20 applications: 16 are
// followed at a time, the one viewed least recently dropped first, and a
// page viewed again keeps its follower.
func TestFollowersBounded(t *testing.T) {
	f := getFixture(t)
	dir := t.TempDir()
	src := followed{Source: shs.Static(shs.NewIndex(f.spark)), logs: map[string]string{}}
	apps := f.spark[:20]
	for _, a := range apps {
		path := filepath.Join(dir, a.ID)
		if err := eventlog.WriteFile(path, a, codec.None); err != nil {
			t.Fatal(err)
		}
		src.logs[a.ID] = path
	}
	ui, err := New(Options{Apps: src})
	if err != nil {
		t.Fatal(err)
	}
	view := func(id string) *followedApp {
		t.Helper()
		rec := httptest.NewRecorder()
		ui.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/live/app/"+id, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("/live/app/%s: %d", id, rec.Code)
		}
		return ui.followed[id]
	}
	first := view(apps[0].ID)
	for _, a := range apps[1:keepFollowed] {
		view(a.ID)
	}
	if again := view(apps[0].ID); again != first {
		t.Error("a page viewed again got a new follower")
	}
	for _, a := range apps[keepFollowed:] {
		view(a.ID)
	}
	if len(ui.followed) != keepFollowed {
		t.Errorf("%d applications followed, want %d", len(ui.followed), keepFollowed)
	}
	// apps[0] was viewed again after apps[1..15]: those went first.
	for i, a := range apps {
		_, kept := ui.followed[a.ID]
		if want := i == 0 || i > len(apps)-keepFollowed; kept != want {
			t.Errorf("application %d followed %v, want %v", i, kept, want)
		}
	}
}

// TestLiveAppGrowingLog writes a Spark event log in four steps, as a
// driver would, while headless Chromium shows its live page: after each
// step the page shows as many tasks as the lines written launched (counted
// in the text, not decoded), and once the application ended and its log
// was renamed without .inprogress the page says so and keeps the data.
func TestLiveAppGrowingLog(t *testing.T) {
	bin := sharedtest.Chromium(t)
	f := getFixture(t)
	app := f.spark[0]
	for _, a := range f.spark {
		if a.NumTasks() > app.NumTasks() {
			app = a
		}
	}
	var full bytes.Buffer
	if err := eventlog.Write(&full, app); err != nil {
		t.Fatal(err)
	}
	log := full.Bytes()
	// launched counts the task starts in the whole lines of log[:n].
	launched := func(n int) int {
		whole := log[:bytes.LastIndexByte(log[:n], '\n')+1]
		return bytes.Count(whole, []byte(`"Event":"SparkListenerTaskStart"`))
	}
	dir := t.TempDir()
	path := filepath.Join(dir, app.ID+".inprogress")
	// The log as the server found it, before the page: its first events.
	// Every step ends within a line, as a driver's buffered writes do.
	written := len(log) / 10
	if err := os.WriteFile(path, log[:written], 0o644); err != nil {
		t.Fatal(err)
	}
	head, err := decodelogs.Log(mustFind(t, path), decodelogs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ui, err := New(Options{Apps: followed{shs.Static(shs.NewIndex(head)), map[string]string{app.ID: path}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ui)
	defer srv.Close()
	b := sharedtest.OpenBrowser(t, bin, srv.URL+"/live/app/"+app.ID, "1280,1150")
	b.WaitFor(t, "window.__clLive && window.__clLive.length > 0", 30*time.Second)
	// A second viewer, of the stream itself: it shares the page's
	// follower and sees the same end.
	res, err := http.Get(srv.URL + "/live/app/" + app.ID + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := make(chan string, 100)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			if ev, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				events <- ev
			}
		}
	}()
	shows := func(want int) {
		t.Helper()
		b.WaitFor(t, fmt.Sprintf("document.getElementById('cl-live-tasks').textContent === '%d'", want), 5*time.Second)
	}
	shows(launched(written))
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, upto := range []int{len(log) / 4, len(log) / 2, len(log) * 3 / 4} {
		if launched(upto) <= launched(written) {
			t.Fatalf("the step to byte %d launches no task: the test shows nothing", upto)
		}
		if _, err := fh.Write(log[written:upto]); err != nil {
			t.Fatal(err)
		}
		written = upto
		t0 := time.Now()
		shows(launched(upto))
		t.Logf("%d tasks launched on the page %v after their lines were appended", launched(upto), time.Since(t0).Round(time.Millisecond))
	}
	if _, err := fh.Write(log[written:]); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	if err := os.Rename(path, strings.TrimSuffix(path, ".inprogress")); err != nil {
		t.Fatal(err)
	}
	b.WaitFor(t, "document.body.dataset.liveEnded === 'true'", 5*time.Second)
	var status string
	b.Eval(t, "document.getElementById('cl-live-status').textContent", &status)
	if !strings.Contains(status, "No longer live: the application ended") {
		t.Errorf("status %q: want it to say the application ended", status)
	}
	shows(launched(len(log)))
	var seen []string
	for ev := range events {
		seen = append(seen, ev)
	}
	if len(seen) < 4 || seen[len(seen)-1] != "end" {
		t.Errorf("the second viewer saw %q, want updates as the log grew, then the end", seen)
	}
	if got, want := launched(len(log)), app.NumTasks(); got != want {
		t.Errorf("the log launched %d tasks, the application has %d", got, want)
	}
}

// TestLiveAppLogReplacedWhileOpen: a live application page left open
// after its application ended shows the next run when the log is
// replaced by a shorter running one, without a reload. It kept "No longer
// live: the application ended" (issue 23): the page closed its stream at
// the end and only a reload followed the new log. The newest stage and
// whether it is still running are read from the log's text, not decoded.
func TestLiveAppLogReplacedWhileOpen(t *testing.T) {
	bin := sharedtest.Chromium(t)
	app := getFixture(t).spark[0]
	var full bytes.Buffer
	if err := eventlog.Write(&full, app); err != nil {
		t.Fatal(err)
	}
	log := full.Bytes()
	short := log[:len(log)/3]
	short = short[:bytes.LastIndexByte(short, '\n')+1]
	// The newest stage submitted in the shorter log, and not completed.
	newest, active := -1, map[int]bool{}
	for line := range bytes.Lines(short) {
		var ev struct {
			Event string
			Info  struct {
				ID int `json:"Stage ID"`
			} `json:"Stage Info"`
		}
		switch {
		case bytes.Contains(line, []byte(`"Event":"SparkListenerStageSubmitted"`)):
			json.Unmarshal(line, &ev)
			newest, active[ev.Info.ID] = ev.Info.ID, true
		case bytes.Contains(line, []byte(`"Event":"SparkListenerStageCompleted"`)):
			json.Unmarshal(line, &ev)
			delete(active, ev.Info.ID)
		}
	}
	if newest < 0 || !active[newest] {
		t.Fatalf("the shorter log's newest stage %d is not running (%v): the test shows nothing", newest, active)
	}
	path := filepath.Join(t.TempDir(), app.ID+".inprogress")
	if err := os.WriteFile(path, log[:len(log)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	ui, err := New(Options{Apps: followed{shs.Static(shs.NewIndex([]*model.App{app})), map[string]string{app.ID: path}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ui)
	t.Cleanup(srv.Close) // after the browser's: the page is live at the end
	b := sharedtest.OpenBrowser(t, bin, srv.URL+"/live/app/"+app.ID, "1280,1150")
	b.WaitFor(t, "window.__clLive && window.__clLive.length > 0", 30*time.Second)
	// The application ends: its log complete, renamed without .inprogress.
	final := strings.TrimSuffix(path, ".inprogress")
	if err := os.WriteFile(final, log, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	b.WaitFor(t, "document.body.dataset.liveEnded === 'true'", 5*time.Second)
	// What the browser does after an end, by hand: the end event names
	// what it shows and when to come back; coming back with that name
	// while nothing changed gets nothing, and the stream closes at once.
	get := func(lastID string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+"/live/app/"+app.ID+"/events", nil)
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(body)
	}
	retry := fmt.Sprintf("retry: %d\n", liveEndedEvery.Milliseconds())
	end := get("")
	id, _, _ := strings.Cut(strings.TrimPrefix(end, retry+"id: "), "\n")
	if want := retry + "id: " + id + "\nevent: end\ndata: "; id == "" || !strings.HasPrefix(end, want) {
		t.Fatalf("after the end the stream sent %.80q, want %q then the page", end, want)
	}
	if again := get(id); again != retry+"\n" {
		t.Errorf("coming back with the end's id while nothing changed: %.80q, want only the retry", again)
	}
	if other := get(id + "x"); !strings.Contains(other, "event: end\n") {
		t.Errorf("coming back with another id: %.80q, want the end again", other)
	}
	// Run again, the old log overwritten: a shorter one, still running.
	if err := os.WriteFile(path+".tmp", short, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(final); err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	first := "document.querySelector('#cl-live table.grid tr:nth-child(2)')"
	b.WaitFor(t, fmt.Sprintf("!document.body.dataset.liveEnded && %s.cells[0].textContent === '%d' && %[1]s.cells[2].textContent === 'active'",
		first, newest), liveEndedEvery+3*time.Second)
	t.Logf("the open page showed the new run's stage %d active %v after the log was replaced", newest, time.Since(t0).Round(time.Millisecond))
	var status string
	b.Eval(t, "document.getElementById('cl-live-status').textContent", &status)
	if !strings.HasPrefix(status, "Live: updated") {
		t.Errorf("status %q: want the page live again", status)
	}
}

func mustFind(t *testing.T, path string) *source.Log {
	t.Helper()
	logs, _, err := decodelogs.Find([]string{path}, decodelogs.Options{})
	if err != nil || len(logs) != 1 {
		t.Fatalf("find %s: %d logs, %v", path, len(logs), err)
	}
	return logs[0]
}

// BenchmarkLiveNodesEvent builds one event of the live nodes page of
// 1,000 nodes (with their peer-diagnosis state): the page's data from the
// feed, its live part rendered and its chart, encoded.
func BenchmarkLiveNodesEvent(b *testing.B) {
	f := getFixture(b)
	st, err := samplesqlite.Open(filepath.Join(b.TempDir(), "samples.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ui, err := New(Options{Apps: shs.Static(shs.NewIndex(nil)), Metrics: driver.StoreMetrics(st), Peer: f.prof})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	typical := typicalValues(b)
	now := time.Now().UnixMilli()
	for i := range 30 {
		if _, err := st.Append(context.Background(), nodeBatch(rng, typical, uint64(i+1), 1000, 3, now-int64(30-i)*1000)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := ui.live.get(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	var size int
	for b.Loop() {
		p, newest := ui.liveNodesView()
		data, err := liveEvent(p, newest, "")
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
	}
	b.SetBytes(int64(size))
	b.ReportMetric(float64(size), "bytes/event")
}
