// Package server is clusterlens's HTTP server: the Spark History Server's
// REST API (/api/v1) and the web UI (internal/web) over the applications
// of a folder of event logs, or of the run history kept current from it.
// It is read-only, listens on the loopback interface unless told
// otherwise, and elsewhere only with a token or TLS (auth.go). The
// commands only parse flags and call Run.
package server

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/indexer"
	"github.com/clusterlens/clusterlens/internal/objstore"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/source"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/web"
)

// Options configure Run.
type Options struct {
	// Logs are the folders, files or object-store URLs of the event logs:
	// Run fails at start when none can be read, and serves the others
	// (with a banner naming the failing ones) when some cannot.
	Logs []string
	// Addr is the address to listen on.
	Addr string
	// Rescan is how often to look for new and changed logs (0: never, or
	// a minute for an object-store URL).
	Rescan time.Duration
	// Load bounds the decoders.
	Load decodelogs.Options
	// Store, when set, is the run history the server answers from: the
	// listing from it at once, the logs indexed into it every Rescan
	// (default 10 s), applications read from their logs when asked about.
	Store history.Store
	// Metrics is the node sample store the web UI reads (nil: none); Peer
	// a trained Ganesha profile for its node pages (nil: none).
	Metrics store.Store
	Peer    *peer.Profile
	// Token, when set, is required of every request (auth.go); a
	// non-loopback Addr needs it or TLS.
	Token string
	// TLSCert and TLSKey are PEM files to serve HTTPS with (both or none).
	TLSCert, TLSKey string
}

// appSource is where the server's applications come from, and how they are
// kept current.
type appSource interface {
	shs.Source
	scan(ctx context.Context) // look for new and changed logs, read them
	partial() bool            // the logs served were read in part
}

// defaultStoreRescan is how often a server with a run history indexes the
// logs again when Rescan is not given (the History Server's default update
// interval).
const defaultStoreRescan = 10 * time.Second

// ErrPartial is returned by Run after a clean stop when the logs it served
// last were read in part (each was logged as it was read).
var ErrPartial = errors.New("the logs served were read in part (logged above)")

// readingGrace is how long serve waits, stopping, for the logs being read
// to finish.
const readingGrace = 10 * time.Second

// defaultBucketRescan is how often serve lists an object-store prefix again
// when --rescan is not given: stores notify no one, so watching is polling.
const defaultBucketRescan = time.Minute

// Run serves until ctx ends. When ready is not nil it receives the
// listening address once the server accepts connections. It returns
// ErrPartial after a clean stop when the logs it served last were read in
// part.
func Run(ctx context.Context, o Options, log *slog.Logger, ready chan<- string) error {
	if len(o.Logs) == 0 {
		return fmt.Errorf("%w: none given", ErrNoSource)
	}
	o.Logs = slices.Clone(o.Logs)
	for i, p := range o.Logs {
		o.Logs[i] = source.Canonical(p)
		if o.Rescan == 0 && objstore.IsURL(p) {
			o.Rescan = defaultBucketRescan
		}
	}
	if err := checkExposure(o); err != nil {
		return err
	}
	health := newSourceHealth(o.Logs, log)
	if err := checkSources(o.Logs, health); err != nil {
		return err
	}
	tlsConfig, err := loadTLS(o)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.Addr, err)
	}
	var src appSource
	if o.Store != nil {
		if o.Rescan == 0 {
			o.Rescan = defaultStoreRescan
		}
		hs := newHistorySource(o.Store, o.Logs, indexer.Options{Load: o.Load}, health, log)
		if err := hs.refresh(ctx); err != nil {
			ln.Close()
			return err
		}
		src = hs
	} else {
		src = newLogSource(o.Logs, o.Load, health, log)
	}
	stopped := func() error {
		if src.partial() {
			return ErrPartial
		}
		return nil
	}
	wo := web.Options{Apps: src, History: o.Store, Peer: o.Peer, Log: log, Sources: func() []web.SourceProblem {
		var out []web.SourceProblem
		for _, p := range health.Problems() {
			out = append(out, web.SourceProblem{Source: p.Source, Err: p.Err.Error(), Since: p.Since})
		}
		return out
	}}
	if o.Metrics != nil {
		wo.Metrics = driver.StoreMetrics(o.Metrics)
	}
	ui, err := web.New(wo)
	if err != nil {
		ln.Close()
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", shs.Handler(src, log))
	mux.Handle("/", ui)
	srv := &http.Server{Handler: readOnly(withToken(o.Token, mux)), ReadHeaderTimeout: 10 * time.Second}
	srv.RegisterOnShutdown(ui.StopStreams) // Shutdown waits for no live stream
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
		ln = tls.NewListener(ln, tlsConfig)
	}
	log.Info("serving the web UI and the Spark History Server API", "url", scheme+"://"+ln.Addr().String()+"/",
		"api", scheme+"://"+ln.Addr().String()+"/api/v1/applications", "token", o.Token != "")
	if ready != nil {
		ready <- ln.Addr().String()
	}

	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	// Scans run one at a time; stopping waits for the one running to stop
	// starting reads and for those under way (at most readingGrace).
	readCtx, stopReading := context.WithCancel(ctx)
	scans, scanned := make(chan struct{}, 1), make(chan struct{})
	go func() {
		defer close(scanned)
		for range scans {
			src.scan(readCtx)
		}
	}()
	defer func() {
		stopReading()
		close(scans)
		select {
		case <-scanned:
		case <-time.After(readingGrace):
			log.Warn("stopped while a log was still being read")
		}
	}()
	scans <- struct{}{}
	var tick <-chan time.Time
	if o.Rescan > 0 {
		t := time.NewTicker(o.Rescan)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case err := <-done:
			if errors.Is(err, http.ErrServerClosed) {
				return stopped()
			}
			return fmt.Errorf("serve: %w", err)
		case <-tick:
			select {
			case scans <- struct{}{}:
			default: // a scan is still running; it will pick up the changes
			}
		case <-ctx.Done():
			log.Info("shutting down")
			sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil {
				return fmt.Errorf("shutdown: %w", err)
			}
			<-done
			return stopped()
		}
	}
}
