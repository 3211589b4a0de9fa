package web

import (
	"cmp"
	"context"
	"fmt"
	why "github.com/clusterlens/clusterlens/internal/explain"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/htmlw"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// fleetTTL is how long the fleet's listing is served before it is listed
// again from the store (in the background: pages never wait for it once
// it was listed once).
const fleetTTL = 10 * time.Second

// fleetCache holds the run history's briefs and recurring jobs: a fleet
// page filters and sorts them in memory (100,000 runs in milliseconds),
// where the store can only page them by start time.
type fleetCache struct {
	st  history.Store
	ttl time.Duration
	log *slog.Logger

	mu         sync.Mutex
	snap       *fleetSnapshot
	loading    chan struct{} // closed when the first listing ends
	err        error         // the first listing's failure
	refreshing bool
}

// fleetSnapshot is one listing of the store.
type fleetSnapshot struct {
	briefs []history.Brief // newest first
	jobs   []*history.Job
	jobOf  map[string]*history.Job // by variant JobKey
	at     time.Time
}

func newFleetCache(st history.Store, ttl time.Duration, log *slog.Logger) *fleetCache {
	return &fleetCache{st: st, ttl: ttl, log: log}
}

// get returns the latest listing. Until there is one, callers wait for
// the one listing under way (a failed one is tried again by the next
// call); later, a listing older than the TTL is listed again in the
// background while the old one is served.
func (c *fleetCache) get(ctx context.Context) (*fleetSnapshot, error) {
	c.mu.Lock()
	if c.snap == nil {
		if c.loading == nil {
			c.loading = make(chan struct{})
			go c.refresh(c.loading)
		}
		loading := c.loading
		c.mu.Unlock()
		select {
		case <-loading:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		c.mu.Lock()
		if c.snap == nil {
			err := c.err
			c.loading = nil
			c.mu.Unlock()
			return nil, err
		}
	}
	snap := c.snap
	if time.Since(snap.at) > c.ttl && !c.refreshing {
		c.refreshing = true
		go c.refresh(nil)
	}
	c.mu.Unlock()
	return snap, nil
}

// refresh lists the store and keeps the listing; done, when not nil, is
// closed after.
func (c *fleetCache) refresh(done chan struct{}) {
	s, err := c.list(context.Background())
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refreshing = false
	if err != nil {
		c.log.Warn("list the run history", "err", err)
	} else {
		c.snap = s
	}
	if done != nil {
		c.err = err
		close(done)
	}
}

// list reads the briefs and variants and groups the recurring jobs.
func (c *fleetCache) list(ctx context.Context) (*fleetSnapshot, error) {
	briefs, err := c.st.Briefs(ctx, history.Filter{})
	if err != nil {
		return nil, err
	}
	vs, err := c.st.Variants(ctx)
	if err != nil {
		return nil, err
	}
	s := &fleetSnapshot{jobs: history.JobsOf(vs, briefs, history.GroupOptions{}), jobOf: map[string]*history.Job{}, at: time.Now()}
	for _, j := range s.jobs {
		for _, v := range j.Variants {
			s.jobOf[v] = j
		}
	}
	slices.Reverse(briefs)
	s.briefs = briefs
	return s, nil
}

// fleetQuery is a fleet page's filter, order and page, from its URL.
type fleetQuery struct {
	User, Name, Status, Platform string
	Severity                     finding.Severity
	Sort                         string
	Asc                          bool
	Page, Per                    int
}

// fleetSorts are the columns a fleet page sorts by.
var fleetSorts = []string{"start", "duration", "name", "user", "platform", "status", "worst"}

// maxPer is the most rows a fleet page shows.
const maxPer = 1000

func parseFleetQuery(q url.Values) (fleetQuery, error) {
	f := fleetQuery{User: q.Get("user"), Name: q.Get("name"), Status: q.Get("status"), Platform: q.Get("platform"),
		Sort: cmp.Or(q.Get("sort"), "start"), Asc: q.Get("order") == "asc", Page: 1, Per: 100}
	if s := q.Get("severity"); s != "" {
		sev, err := finding.ParseSeverity(s)
		if err != nil {
			return f, fmtErr(errBadRequest, "severity: %v", err)
		}
		f.Severity = sev
	}
	if !slices.Contains(fleetSorts, f.Sort) {
		return f, fmtErr(errBadRequest, "sort %q: want one of %s", f.Sort, strings.Join(fleetSorts, ", "))
	}
	for name, dst := range map[string]*int{"page": &f.Page, "per": &f.Per} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return f, fmtErr(errBadRequest, "%s %q: want a whole number from 1", name, v)
			}
			*dst = n
		}
	}
	f.Per = min(f.Per, maxPer)
	return f, nil
}

// match reports whether a run passes the filter.
func (f *fleetQuery) match(b *history.Brief, lowerName string) bool {
	return (f.User == "" || b.User == f.User) && (f.Status == "" || string(b.Status) == f.Status) &&
		(f.Platform == "" || b.Platform == f.Platform) && b.Worst >= f.Severity &&
		(lowerName == "" || strings.Contains(strings.ToLower(b.Name), lowerName))
}

// compare orders two runs by the query's column, newest first among ties.
func (f *fleetQuery) compare(a, b *history.Brief) int {
	var c int
	switch f.Sort {
	case "duration":
		c = cmp.Compare(a.DurationMs, b.DurationMs)
	case "name":
		c = strings.Compare(a.Name, b.Name)
	case "user":
		c = strings.Compare(a.User, b.User)
	case "platform":
		c = strings.Compare(a.Platform, b.Platform)
	case "status":
		c = strings.Compare(string(a.Status), string(b.Status))
	case "worst":
		c = cmp.Compare(a.Worst, b.Worst)
	}
	if c == 0 {
		c = cmp.Or(cmp.Compare(a.Start, b.Start), strings.Compare(a.Key, b.Key))
	}
	if !f.Asc {
		c = -c
	}
	return c
}

// url is the fleet page's URL with one parameter changed.
func (f fleetQuery) url(key, value string) string {
	q := url.Values{}
	for k, v := range map[string]string{"user": f.User, "name": f.Name, "status": f.Status, "platform": f.Platform, "sort": f.Sort} {
		if v != "" && k != key {
			q.Set(k, v)
		}
	}
	if f.Severity > finding.None && key != "severity" {
		q.Set("severity", f.Severity.String())
	}
	if f.Asc && key != "order" && key != "sort" {
		q.Set("order", "asc")
	}
	if f.Per != 100 && key != "per" {
		q.Set("per", strconv.Itoa(f.Per))
	}
	if value != "" {
		q.Set(key, value)
	}
	return "/fleet?" + q.Encode()
}

// fleetData is the fleet page's data.
type fleetData struct {
	Q                  fleetQuery
	Rows               []fleetRow
	Matched, Total     int
	Pages              int
	Prev, Next         string
	Heads              []fleetHead
	Users, Platforms   []string
	Statuses, Severity []string
	Jobs               []*history.Job
	Listed             time.Time
}

// fleetRow is one run in the table.
type fleetRow struct {
	history.Brief
	Job   *history.Job
	Spark bool
}

// fleetHead is one sortable column header.
type fleetHead struct {
	Name, Sort, URL string
	On, Num         bool
}

// fleetPage lists the runs of the history, filtered and sorted, a page at
// a time, with charts of the runs over time.
func (u *UI) fleetPage(r *http.Request) (*page, error) {
	if u.fleet == nil {
		return needsHistory("Fleet"), nil
	}
	f, err := parseFleetQuery(r.URL.Query())
	if err != nil {
		return nil, err
	}
	snap, err := u.fleet.get(r.Context())
	if err != nil {
		return nil, err
	}
	d := &fleetData{Q: f, Total: len(snap.briefs), Listed: snap.at,
		Statuses: []string{string(history.StatusSucceeded), string(history.StatusFailed), string(history.StatusRunning), string(history.StatusIncomplete)},
		Severity: []string{"low", "moderate", "severe", "critical"}}
	users, platforms := map[string]bool{}, map[string]bool{}
	lowerName := strings.ToLower(f.Name)
	matched := make([]*history.Brief, 0, len(snap.briefs))
	for i := range snap.briefs {
		b := &snap.briefs[i]
		users[b.User], platforms[b.Platform] = true, true
		if f.match(b, lowerName) {
			matched = append(matched, b)
		}
	}
	d.Users, d.Platforms = sortedKeys(users), sortedKeys(platforms)
	d.Matched = len(matched)
	if f.Sort != "start" || f.Asc {
		slices.SortStableFunc(matched, f.compare) // the snapshot is newest first already
	}
	d.Pages = max(1, (len(matched)+f.Per-1)/f.Per)
	f.Page = min(f.Page, d.Pages)
	d.Q.Page = f.Page
	lo := (f.Page - 1) * f.Per
	for _, b := range matched[lo:min(lo+f.Per, len(matched))] {
		row := fleetRow{Brief: *b, Job: snap.jobOf[b.JobKey], Spark: b.Engine == model.Spark.String()}
		d.Rows = append(d.Rows, row)
	}
	if f.Page > 1 {
		d.Prev = f.url("page", strconv.Itoa(f.Page-1))
	}
	if f.Page < d.Pages {
		d.Next = f.url("page", strconv.Itoa(f.Page+1))
	}
	for _, h := range []struct {
		name, sort string
		num        bool
	}{{"start", "start", false}, {"application", "", false}, {"name", "name", false}, {"user", "user", false},
		{"platform", "platform", false}, {"status", "status", false}, {"duration", "duration", true}, {"worst finding", "worst", false}, {"recurring job", "", false}} {
		fh := fleetHead{Name: h.name, Sort: h.sort, Num: h.num, On: h.sort == f.Sort}
		if h.sort != "" {
			order := ""
			if fh.On && !f.Asc {
				order = "asc"
			}
			fh.URL = f.url("sort", h.sort)
			if order != "" {
				fh.URL += "&order=asc"
			}
		}
		d.Heads = append(d.Heads, fh)
	}
	d.Jobs = snap.jobs[:min(len(snap.jobs), 20)]
	return &page{Title: "Fleet", View: "fleet", Content: func(w *htmlw.Writer) { writeFleet(w, d) },
		Sub:    fmt.Sprintf("%d runs in the run history, listed %s", len(snap.briefs), snap.at.UTC().Format("15:04:05Z")),
		Charts: fleetCharts(matched)}, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// fleetBins is how many bins of time the fleet's charts have at most.
const fleetBins = 120

// fleetCharts are the matched runs over time: how many started per bin by
// status, and the median and 90th percentile of their durations.
func fleetCharts(runs []*history.Brief) []chart {
	// A run without a start (an older history stored some at 0) is left
	// off the time axis, which would run from 1970.
	runs = slices.DeleteFunc(slices.Clone(runs), func(b *history.Brief) bool { return b.Start <= 0 })
	if len(runs) == 0 {
		return nil
	}
	lo, hi := runs[0].Start, runs[0].Start
	for _, b := range runs {
		lo, hi = min(lo, b.Start), max(hi, b.Start)
	}
	bin := niceBin(hi-lo+1, fleetBins)
	lo -= lo % bin
	n := int((hi-lo)/bin) + 1
	statuses := []history.Status{history.StatusSucceeded, history.StatusFailed, history.StatusRunning, history.StatusIncomplete}
	counts := make([][]float64, len(statuses))
	for i := range counts {
		counts[i] = make([]float64, n)
	}
	durations := make([][]float64, n)
	for _, b := range runs {
		k := int((b.Start - lo) / bin)
		if i := slices.Index(statuses, b.Status); i >= 0 {
			counts[i][k]++
		}
		if b.End > 0 && b.DurationMs > 0 {
			durations[k] = append(durations[k], float64(b.DurationMs))
		}
	}
	colors := []string{"#16a34a", "#b91c1c", "#2563eb", "#b7791f"}
	runsChart := chart{ID: "fleet-runs", Title: "Runs started per " + binName(bin) + ", by status", Kind: "bar", XTime: true, YUnit: "count", Height: 240, Stack: true}
	for i, s := range statuses {
		se := series{Name: string(s), Color: colors[i]}
		for k, c := range counts[i] {
			if c > 0 {
				se.Data = append(se.Data, [2]float64{float64(lo + int64(k)*bin), c})
			}
		}
		if len(se.Data) > 0 {
			runsChart.Series = append(runsChart.Series, se)
		}
	}
	durChart := chart{ID: "fleet-durations", Title: "Duration of the finished runs per " + binName(bin), Kind: "line", XTime: true, YUnit: "ms", Height: 240}
	p50, p90 := series{Name: "median"}, series{Name: "90th percentile", Dashed: true}
	for k, d := range durations {
		if len(d) == 0 {
			continue
		}
		q := stats.Quantiles(d, []float64{0.5, 0.9})
		x := float64(lo + int64(k)*bin)
		p50.Data = append(p50.Data, [2]float64{x, q[0]})
		p90.Data = append(p90.Data, [2]float64{x, q[1]})
	}
	out := []chart{runsChart}
	if len(p50.Data) > 0 {
		durChart.Series = []series{p50, p90}
		out = append(out, durChart)
	}
	return out
}

// niceBins are the bin widths the time charts choose from.
var niceBins = []int64{60_000, 5 * 60_000, 15 * 60_000, 3_600_000, 6 * 3_600_000, 86_400_000, 7 * 86_400_000, 30 * 86_400_000}

// niceBin is the smallest of niceBins that cuts span into at most n bins.
func niceBin(span int64, n int) int64 {
	for _, b := range niceBins {
		if span/b < int64(n) {
			return b
		}
	}
	return niceBins[len(niceBins)-1] * (span/niceBins[len(niceBins)-1]/int64(n) + 1)
}

// binName names a bin width: "minute", "10 s", "6 hours".
func binName(bin int64) string {
	for _, u := range []struct {
		ms         int64
		one, units string
	}{{7 * 86_400_000, "week", "weeks"}, {86_400_000, "day", "days"}, {3_600_000, "hour", "hours"}, {60_000, "minute", "minutes"}, {1000, "second", "s"}} {
		if bin%u.ms == 0 {
			if bin == u.ms {
				return u.one
			}
			return fmt.Sprintf("%d %s", bin/u.ms, u.units)
		}
	}
	return fmt.Sprintf("%d ms", bin)
}

// jobData is a recurring job's page data.
type jobData struct {
	Job       *history.Job
	Runs      []*history.Brief // newest first, at most maxJobRows
	RunsAll   int
	Predicted *driver.Estimate
	NoPredict string
	// Judged are Runs' durations against their usual times; Regressions
	// the latest slower runs explained.
	Judged      []why.Judgment
	Regressions []*why.Explanation
}

// maxJobRows is how many runs a job's page lists.
const maxJobRows = 500

// jobPage shows a recurring job's runs over time with their trend and
// the predicted duration of its next run.
func (u *UI) jobPage(r *http.Request) (*page, error) {
	if u.fleet == nil {
		return needsHistory("Recurring job"), nil
	}
	snap, err := u.fleet.get(r.Context())
	if err != nil {
		return nil, err
	}
	job, err := history.MatchJob(snap.jobs, r.PathValue("ref"))
	if err != nil {
		return nil, err
	}
	var runs []*history.Brief // oldest first
	for i := len(snap.briefs) - 1; i >= 0; i-- {
		if b := &snap.briefs[i]; slices.Contains(job.Variants, b.JobKey) {
			runs = append(runs, b)
		}
	}
	d := &jobData{Job: job, RunsAll: len(runs)}
	judged := why.Judge(runs, why.DefaultParams)
	for i := len(runs) - 1; i >= 0 && len(d.Runs) < maxJobRows; i-- {
		d.Runs = append(d.Runs, runs[i])
		d.Judged = append(d.Judged, judged[i])
	}
	d.Regressions = u.regressions(r.Context(), d.Runs, d.Judged)
	d.Predicted, err = driver.PredictNext(r.Context(), u.o.History, job)
	if err != nil {
		d.NoPredict = err.Error()
	}
	return &page{Title: job.Name, View: "job", Content: func(w *htmlw.Writer) { writeJob(w, d) }, Sub: "recurring job " + job.ID,
		Charts: []chart{jobChart(runs, d.Predicted)}}, nil
}

// jobChart is the job's run durations over time, by status, with the
// predicted next run and its interval after the last.
func jobChart(runs []*history.Brief, next *driver.Estimate) chart {
	c := chart{ID: "job-runs", Title: "Duration of each run", Kind: "scatter", XTime: true, YUnit: "ms", Height: 280}
	by := map[history.Status]*series{}
	colors := map[history.Status]string{history.StatusSucceeded: "#16a34a", history.StatusFailed: "#b91c1c", history.StatusRunning: "#2563eb", history.StatusIncomplete: "#b7791f"}
	var order []history.Status
	var last int64
	for _, b := range runs {
		if b.DurationMs <= 0 {
			continue
		}
		s := by[b.Status]
		if s == nil {
			s = &series{Name: string(b.Status), Color: colors[b.Status]}
			by[b.Status] = s
			order = append(order, b.Status)
		}
		s.Data = append(s.Data, [2]float64{float64(b.Start), float64(b.DurationMs)})
		last = max(last, b.Start)
	}
	for _, st := range order {
		c.Series = append(c.Series, *by[st])
	}
	if next != nil && last > 0 && len(runs) > 1 {
		gap := (last - runs[0].Start) / int64(len(runs)-1)
		x := float64(last + gap)
		c.Series = append(c.Series, series{Name: "predicted next run", Color: "#9333ea", Data: [][2]float64{{x, next.Value}}},
			series{Name: "prediction interval", Kind: "line", Color: "#9333ea", Dashed: true, Data: [][2]float64{{x, next.Lower}, {x, next.Upper}}})
	}
	return c
}
