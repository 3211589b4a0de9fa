// Package loadtest drives many agents against one collector and checks
// that the store ends up with exactly the samples they produced: the load
// test of docs/AGENT.md (.ci/loadtest.sh runs it at full size).
package loadtest

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/agent"
)

// Config is one load run.
type Config struct {
	Collector string        // collector base URL
	Token     string        // bearer token
	Agents    int           // synthetic nodes, one agent each
	Duration  time.Duration // how long they sample
	Interval  time.Duration // sampling and batching interval (default 1 s)
	SpoolRoot string        // each agent's spool goes in a folder under it
	Logger    *slog.Logger
}

// Result is what the agents did and saw.
type Result struct {
	Agents     int
	Elapsed    time.Duration
	Batches    int64
	Samples    int64
	Spooled    int64 // batches left undelivered in spools at the end
	Dropped    int64
	Rejected   int64
	Duplicates int64           // batches the collector had already stored (resent after a lost reply)
	Latencies  []time.Duration // each request's round trip, sorted
	nodes      []*node
}

// MissedTicks counts the ticks the nodes' samplers missed: gaps between
// consecutive sampling times of more than 1.5 intervals (Go's tickers
// drop ticks the sampler goroutine was too late to take).
func (r *Result) MissedTicks(interval time.Duration) int {
	n := 0
	limit := int64(interval/time.Millisecond) * 3 / 2
	for _, nd := range r.nodes {
		ts := nd.sampled()
		for i := 1; i < len(ts); i++ {
			if gap := ts[i] - ts[i-1]; gap > limit {
				n += int((gap+limit/3)/(limit*2/3)) - 1
			}
		}
	}
	return n
}

// Quantile returns the q-quantile of the request latencies (nearest rank).
func (r *Result) Quantile(q float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	i := int(q*float64(len(r.Latencies)) + 0.5)
	return r.Latencies[min(max(i-1, 0), len(r.Latencies)-1)]
}

// timing records every request's round trip (to the response headers).
type timing struct {
	next http.RoundTripper
	mu   sync.Mutex
	lat  []time.Duration
}

// RoundTrip implements http.RoundTripper.
func (t *timing) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	if err == nil && resp.StatusCode/100 == 2 {
		d := time.Since(start)
		t.mu.Lock()
		t.lat = append(t.lat, d)
		t.mu.Unlock()
	}
	return resp, err
}

// Run starts cfg.Agents agents, each sampling a synthetic node, staggered
// over the first interval as independent nodes would be, lets them run for
// cfg.Duration and stops them (each flushes what it has).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = cfg.Agents
	tm := &timing{next: tr}
	client := &http.Client{Transport: tm, Timeout: 30 * time.Second}

	res := &Result{Agents: cfg.Agents}
	agents := make([]*agent.Agent, cfg.Agents)
	for i := range agents {
		n := &node{host: fmt.Sprintf("node-%04d", i)}
		a, err := agent.New(agent.Config{Collector: cfg.Collector, Token: cfg.Token,
			SpoolDir: filepath.Join(cfg.SpoolRoot, n.host), Host: n.host,
			Sources:       []agent.Source{{Name: "synthetic", Sampler: n, Interval: cfg.Interval}},
			BatchInterval: cfg.Interval, FlushTimeout: 30 * time.Second, Client: client, Logger: cfg.Logger})
		if err != nil {
			return nil, fmt.Errorf("load test: %w", err)
		}
		agents[i], res.nodes = a, append(res.nodes, n)
	}
	start := time.Now()
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, len(agents))
	for i, a := range agents {
		delay := time.Duration(rand.Int64N(int64(cfg.Interval)))
		wg.Go(func() {
			select {
			case <-time.After(delay):
			case <-runCtx.Done():
				return
			}
			errs[i] = a.Run(runCtx)
		})
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	for i, a := range agents {
		if errs[i] != nil {
			return nil, fmt.Errorf("load test: agent %d: %w", i, errs[i])
		}
		s := a.Stats()
		res.Batches += s.Batches
		res.Samples += s.Samples
		res.Spooled += s.Spooled
		res.Dropped += s.Dropped
		res.Rejected += s.Rejected
		res.Duplicates += s.Duplicates
	}
	res.Latencies = tm.lat
	slices.Sort(res.Latencies)
	return res, nil
}
