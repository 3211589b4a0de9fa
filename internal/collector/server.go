package collector

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/clusterlens/clusterlens/internal/promtext"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// Server is the collector. Build it with New and run it with Run or Serve.
type Server struct {
	cfg      Config
	store    store.Store
	token    [sha256.Size]byte
	maxBody  int64
	dec      *wire.Decoder
	onBatch  func(*wire.Batch)
	registry *promtext.Registry
	m        *serverMetrics
	log      *slog.Logger
	mux      *http.ServeMux
}

// New checks cfg and returns a Server.
func New(cfg Config) (*Server, error) {
	if cfg.Token == "" {
		return nil, ErrNoToken
	}
	if cfg.Store == nil {
		return nil, errors.New("collector: no store")
	}
	if (cfg.TLSCert == "") != (cfg.TLSKey == "") {
		return nil, errors.New("collector: TLS needs both a certificate and a key")
	}
	if cfg.Listen == "" {
		cfg.Listen = DefaultListen
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	dec, err := wire.NewDecoder(cfg.Limits)
	if err != nil {
		return nil, fmt.Errorf("collector: %w", err)
	}
	reg, m := newServerMetrics(cfg.Registry)
	s := &Server{cfg: cfg, store: cfg.Store, token: sha256.Sum256([]byte(cfg.Token)), maxBody: cfg.MaxBodyBytes,
		dec: dec, onBatch: cfg.OnBatch, registry: reg, m: m, log: cfg.Logger, mux: http.NewServeMux()}
	s.mux.HandleFunc("/v1/batches", s.handleBatch)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	s.mux.Handle("GET /metrics", reg)
	return s, nil
}

// Registry returns the registry /metrics serves, for callers' own collectors.
func (s *Server) Registry() *promtext.Registry { return s.registry }

// Handler returns the server's HTTP handler (batches, health, metrics).
func (s *Server) Handler() http.Handler { return s.mux }

// Run listens on Config.Listen and serves until ctx is done.
func (s *Server) Run(ctx context.Context) error {
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", s.cfg.Listen)
	if err != nil {
		return fmt.Errorf("collector: listen: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln (over TLS when configured) until ctx is done, then
// shuts down gracefully, letting requests in flight finish for up to
// Config.ShutdownTimeout.
// It closes ln.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if s.cfg.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(s.cfg.TLSCert, s.cfg.TLSKey)
		if err != nil {
			ln.Close()
			return fmt.Errorf("collector: load TLS key pair: %w", err)
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, srv.TLSConfig)
	}
	s.log.Info("collector listening", "addr", ln.Addr().String(), "tls", s.cfg.TLSCert != "")
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("collector: serve: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		<-gctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			// Requests still running are cut; their agents retry them.
			s.log.Warn("collector: connections still open after the shutdown timeout, closed", "timeout", s.cfg.ShutdownTimeout)
			srv.Close()
		}
		return nil
	})
	return g.Wait()
}
