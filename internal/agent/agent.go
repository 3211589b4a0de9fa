package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sampler"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// Defaults for Config's zero fields.
const (
	DefaultInterval        = time.Second
	DefaultBatchInterval   = time.Second
	DefaultMaxBatchSamples = 10000
	DefaultSpoolMaxBytes   = 256 << 20
	DefaultMinBackoff      = 500 * time.Millisecond
	DefaultMaxBackoff      = 30 * time.Second
	DefaultRequestTimeout  = 10 * time.Second
	DefaultFlushTimeout    = 2 * time.Second
)

// Source is one enabled sampler and how often it runs.
type Source struct {
	Name     string
	Sampler  sampler.Sampler
	Interval time.Duration // default DefaultInterval
}

// Config configures an Agent.
type Config struct {
	Collector string // collector base URL, e.g. http://127.0.0.1:9470 (required)
	Token     string // bearer token (required)
	SpoolDir  string // spool, agent id and sequence (required)
	Host      string // node name, the prefix of a new agent id (default os.Hostname)
	ID        string // agent id; default: kept in SpoolDir/agent-id
	Sources   []Source

	BatchInterval   time.Duration // seal a batch this often (default 1 s)
	MaxBatchSamples int           // or as soon as it holds this many samples (default 10000)
	SpoolMaxBytes   int64         // spool bound (default 256 MiB)
	MinBackoff      time.Duration // first retry delay (default 0.5 s)
	MaxBackoff      time.Duration // longest retry delay (default 30 s)
	FlushTimeout    time.Duration // how long shutdown may still try to deliver (default 2 s)
	Client          *http.Client  // default: 10 s timeout
	Logger          *slog.Logger  // default slog.Default()
}

// Stats counts what an agent did since it started.
type Stats struct {
	Batches    int64 // batches sealed
	Samples    int64 // samples sealed into batches
	Delivered  int64 // batches acknowledged by the collector (2xx)
	Duplicates int64 // of those, batches the collector already had
	Rejected   int64 // batches refused for good (4xx) and dropped
	Spooled    int64 // batches waiting in the spool now
	Dropped    int64 // batches deleted from a full spool or lost to disk errors
}

// Agent samples a node and ships the samples to a collector.
type Agent struct {
	cfg    Config
	id     string
	url    string
	client *http.Client
	log    *slog.Logger
	seq    *sequencer
	spool  *spool

	mu      sync.Mutex
	pending []model.Sample
	full    chan struct{}

	batches, samples, delivered, duplicates, rejected atomic.Int64
}

// New checks cfg, opens the spool and the agent's identity.
func New(cfg Config) (*Agent, error) {
	if cfg.Token == "" {
		return nil, errors.New("agent: a bearer token is required")
	}
	if cfg.SpoolDir == "" {
		return nil, errors.New("agent: a spool directory is required")
	}
	u, err := url.Parse(cfg.Collector)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("agent: collector %q: want an http:// or https:// URL", cfg.Collector)
	}
	if cfg.Host == "" {
		if cfg.Host, err = os.Hostname(); err != nil {
			return nil, fmt.Errorf("agent: host name: %w", err)
		}
	}
	setDefaults(&cfg)
	if err := os.MkdirAll(cfg.SpoolDir, 0o700); err != nil {
		return nil, fmt.Errorf("agent: spool: %w", err)
	}
	a := &Agent{cfg: cfg, client: cfg.Client, log: cfg.Logger, full: make(chan struct{}, 1),
		url: strings.TrimSuffix(cfg.Collector, "/") + "/v1/batches"}
	if a.id, err = loadID(cfg.SpoolDir, cfg.Host, cfg.ID); err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if a.seq, err = openSequencer(filepath.Join(cfg.SpoolDir, "seq")); err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if a.spool, err = openSpool(filepath.Join(cfg.SpoolDir, "batches"), cfg.SpoolMaxBytes, cfg.Logger); err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	a.log = a.log.With("agent", a.id)
	return a, nil
}

func setDefaults(cfg *Config) {
	for i := range cfg.Sources {
		if cfg.Sources[i].Interval <= 0 {
			cfg.Sources[i].Interval = DefaultInterval
		}
	}
	if cfg.BatchInterval <= 0 {
		cfg.BatchInterval = DefaultBatchInterval
	}
	if cfg.MaxBatchSamples <= 0 {
		cfg.MaxBatchSamples = DefaultMaxBatchSamples
	}
	if cfg.SpoolMaxBytes <= 0 {
		cfg.SpoolMaxBytes = DefaultSpoolMaxBytes
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = max(DefaultMaxBackoff, cfg.MinBackoff)
	}
	if cfg.FlushTimeout <= 0 {
		cfg.FlushTimeout = DefaultFlushTimeout
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: DefaultRequestTimeout}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
}

// ID returns the agent id the batches carry.
func (a *Agent) ID() string { return a.id }

// Stats returns the agent's counters; safe to call while it runs.
func (a *Agent) Stats() Stats {
	return Stats{Batches: a.batches.Load(), Samples: a.samples.Load(), Delivered: a.delivered.Load(),
		Duplicates: a.duplicates.Load(), Rejected: a.rejected.Load(),
		Spooled: a.spool.count.Load(), Dropped: a.spool.dropped.Load()}
}

// Run samples and ships until ctx is done. On the way out it seals what
// was sampled last and spools every batch not yet delivered, for the next
// run to replay. It returns an error only when it cannot go on (the
// sequence file cannot be written).
func (a *Agent) Run(ctx context.Context) error {
	a.log.Info("agent started", "collector", a.cfg.Collector, "samplers", len(a.cfg.Sources), "spooled", a.spool.len())
	g, gctx := errgroup.WithContext(ctx)
	sealedc := make(chan sealed, 16)
	var samplers sync.WaitGroup
	for _, src := range a.cfg.Sources {
		samplers.Go(func() { a.sample(gctx, src) })
	}
	samplersDone := make(chan struct{})
	go func() { samplers.Wait(); close(samplersDone) }()
	g.Go(func() error { return a.batch(gctx, samplersDone, sealedc) })
	g.Go(func() error { a.ship(gctx, sealedc); return nil })
	err := g.Wait()
	st := a.Stats()
	a.log.Info("agent stopped", "batches", st.Batches, "delivered", st.Delivered, "spooled", st.Spooled,
		"rejected", st.Rejected, "dropped", st.Dropped)
	return err
}

// sample runs one sampler at its interval, appending to the pending batch.
func (a *Agent) sample(ctx context.Context, src Source) {
	t := time.NewTicker(src.Interval)
	defer t.Stop()
	var buf []model.Sample
	var failing bool
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			var err error
			buf, err = src.Sampler.Sample(now, buf[:0])
			switch {
			case err != nil && !failing:
				a.log.Warn("sampler failing", "sampler", src.Name, "err", err)
			case err == nil && failing:
				a.log.Info("sampler recovered", "sampler", src.Name)
			}
			failing = err != nil
			if len(buf) == 0 {
				continue
			}
			a.mu.Lock()
			a.pending = append(a.pending, buf...)
			full := len(a.pending) >= a.cfg.MaxBatchSamples
			a.mu.Unlock()
			if full {
				select {
				case a.full <- struct{}{}:
				default:
				}
			}
		}
	}
}

// batch seals the pending samples every BatchInterval, or when they fill
// a batch, and hands the batches to the shipper. When ctx is done it waits
// for the samplers to stop, seals the rest and closes out.
func (a *Agent) batch(ctx context.Context, samplersDone <-chan struct{}, out chan<- sealed) error {
	defer close(out)
	// Seal half an interval out of phase with the samplers (which tick at
	// their intervals from the start), so that a batch holds one tick of
	// each rather than racing it.
	select {
	case <-ctx.Done():
		<-samplersDone
		return a.seal(out)
	case <-time.After(a.cfg.BatchInterval / 2):
	}
	t := time.NewTicker(a.cfg.BatchInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			<-samplersDone
			return a.seal(out)
		case <-t.C:
		case <-a.full:
		}
		if err := a.seal(out); err != nil {
			return err
		}
	}
}

// seal numbers and encodes the pending samples, in batches of at most
// MaxBatchSamples.
func (a *Agent) seal(out chan<- sealed) error {
	a.mu.Lock()
	samples := a.pending
	a.pending = nil
	a.mu.Unlock()
	for len(samples) > 0 {
		n := min(len(samples), a.cfg.MaxBatchSamples)
		seq, err := a.seq.take()
		if err != nil {
			return fmt.Errorf("agent: %w", err)
		}
		b := wire.Batch{Agent: a.id, Seq: seq, Samples: samples[:n]}
		out <- sealed{seq: seq, data: wire.EncodeBatch(&b)}
		a.batches.Add(1)
		a.samples.Add(int64(n))
		samples = samples[n:]
	}
	return nil
}
