package metrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// PromMaxPoints is the most points Prometheus returns per series from one
// range query (its API rejects more: "exceeded maximum resolution of
// 11,000 points per timeseries").
const PromMaxPoints = 11000

// PromSource reads node metrics from a Prometheus server's HTTP API
// (/api/v1/query_range) over node_exporter's metrics, one PromQL expression
// per canonical metric (promQueries; the table is in docs/SOURCES.md). The
// zero value of every field but URL takes its default.
type PromSource struct {
	// URL is the server's base URL, for example http://prometheus:9090 (a
	// path prefix such as http://host/prometheus is kept).
	URL string
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// Step is the resolution of the answer; 0 means 1 s.
	Step time.Duration
	// Scrape is the scrape interval of node_exporter's job, used to size the
	// rate window; 0 means Prometheus's default, 15 s.
	Scrape time.Duration
	// Window is the range of rate(); 0 means Grafana's $__rate_interval,
	// max(Step + Scrape, 4 × Scrape), so every window holds several samples.
	Window time.Duration
	// Selector is extra label matchers added to every metric, for example
	// `job="node"`; "" for none.
	Selector string
	// Hosts maps an instance label ("10.0.0.5:9100") or its host part
	// ("10.0.0.5") to the host name the task logs use; an instance not in
	// it becomes its host part, the port stripped.
	Hosts map[string]string
	// MaxPoints bounds the points per series in one request; 0 means
	// PromMaxPoints. Longer ranges are split into consecutive requests.
	MaxPoints int
	// Warn receives the warnings Prometheus attaches to an answer; nil
	// drops them.
	Warn func(msg string)
}

func (p *PromSource) step() time.Duration {
	if p.Step > 0 {
		return p.Step
	}
	return time.Second
}

func (p *PromSource) window() time.Duration {
	if p.Window > 0 {
		return p.Window
	}
	scrape := p.Scrape
	if scrape <= 0 {
		scrape = 15 * time.Second
	}
	return max(p.step()+scrape, 4*scrape)
}

// Read queries every canonical metric from from to to (both inclusive, at
// from + k × Step) and calls fn with each finite sample; NaN and ±Inf
// points (a division by zero in PromQL) and series without an instance
// label are dropped. Samples come chunk by
// chunk (at most MaxPoints steps each), within a chunk metric by metric and
// series by series in time order. Time is the evaluation instant in Unix
// ms, the end of the rate window. The Sample passed to fn is reused.
func (p *PromSource) Read(ctx context.Context, from, to time.Time, fn func(*model.Sample) error) error {
	if p.URL == "" {
		return errors.New("prometheus: no URL")
	}
	if to.Before(from) {
		return fmt.Errorf("prometheus %s: time range ends (%s) before it starts (%s)", p.URL, to.Format(time.RFC3339), from.Format(time.RFC3339))
	}
	step := p.step()
	maxPts := p.MaxPoints
	if maxPts <= 0 {
		maxPts = PromMaxPoints
	}
	hosts := promHostCache{names: p.Hosts, seen: map[string]string{}}
	var s model.Sample
	for start := from; !start.After(to); start = start.Add(time.Duration(maxPts) * step) {
		end := start.Add(time.Duration(maxPts-1) * step)
		if end.After(to) {
			end = to
		}
		for _, q := range promQueries {
			expr := promExpr(q, p.window(), p.Selector)
			err := p.query(ctx, expr, start, end, step, func(instance string, pts []promPoint) error {
				if instance == "" {
					if p.Warn != nil {
						p.Warn(fmt.Sprintf("prometheus query %q: a series without an instance label skipped", expr))
					}
					return nil
				}
				s.Host = hosts.host(instance)
				for _, pt := range pts {
					if math.IsNaN(pt.v) || math.IsInf(pt.v, 0) {
						continue
					}
					for _, name := range q.names {
						s = model.Sample{Time: pt.ms, Host: s.Host, Type: name, Value: pt.v}
						if err := fn(&s); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// query runs one range query and hands each series to fn.
func (p *PromSource) query(ctx context.Context, expr string, start, end time.Time, step time.Duration, fn promSeriesFunc) error {
	u := strings.TrimRight(p.URL, "/") + "/api/v1/query_range"
	form := url.Values{
		"query": {expr},
		"start": {promTime(start)},
		"end":   {promTime(end)},
		"step":  {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(form.Encode()))
	if err != nil {
		return fmt.Errorf("prometheus %s: %w", p.URL, err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	client := p.Client
	if client == nil {
		client = http.DefaultClient
	}
	res, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("prometheus query %q: %w", expr, err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); !strings.Contains(ct, "json") {
		body, _ := io.ReadAll(io.LimitReader(res.Body, 200))
		return fmt.Errorf("prometheus %s: HTTP %s with %q, want a JSON answer from /api/v1/query_range: %q", u, res.Status, ct, body)
	}
	resp, err := promParseMatrix(res.Body, fn)
	if err != nil {
		return fmt.Errorf("prometheus query %q: HTTP %s: answer: %w", expr, res.Status, err)
	}
	if p.Warn != nil {
		for _, w := range resp.warnings {
			p.Warn(fmt.Sprintf("prometheus query %q: %s", expr, w))
		}
	}
	if resp.status != "success" {
		return fmt.Errorf("prometheus query %q: HTTP %s: %s: %s", expr, res.Status, resp.errorType, resp.err)
	}
	return nil
}

// promTime writes t as Unix seconds with millisecond precision.
func promTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)
}

// promHostCache maps instance labels to host names, remembering each.
type promHostCache struct {
	names map[string]string
	seen  map[string]string
}

func (c *promHostCache) host(instance string) string {
	if h, ok := c.seen[instance]; ok {
		return h
	}
	h := PromHost(instance, c.names)
	c.seen[instance] = h
	return h
}

// PromHost returns the host name of a Prometheus instance label: names'
// entry for the instance, else for its host part, else the host part
// itself ("node7:9100" → "node7", "[::1]:9100" → "::1").
func PromHost(instance string, names map[string]string) string {
	if h, ok := names[instance]; ok {
		return h
	}
	host := instance
	if h, _, err := net.SplitHostPort(instance); err == nil {
		host = h
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		host = host[1 : len(host)-1]
	}
	if h, ok := names[host]; ok {
		return h
	}
	return host
}
