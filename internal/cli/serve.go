package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/load"
	"github.com/clusterlens/clusterlens/internal/objstore"
	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/source"
)

// serveOptions are the flags of `clusterlens serve`.
type serveOptions struct {
	logs   string
	addr   string
	rescan time.Duration
	load   load.Options
}

func init() {
	register(func(e *env) *cobra.Command {
		var o serveOptions
		var lf *logFlags
		cmd := &cobra.Command{
			Use:   "serve --logs DIR",
			Short: "Serve the Spark History Server REST API over HTTP",
			Long: `serve reads the Spark event logs in DIR and serves the Spark History Server's REST API
(/api/v1) over HTTP, on the loopback interface unless --addr says otherwise.
DIR may be an object-store prefix (s3://, gs://, abfss://, wasbs://), which is
watched: listed again every --rescan (default 1m there) and new or changed logs read.
It stops cleanly on SIGINT or SIGTERM. See docs/API.md for the endpoints.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if o.logs == "" {
					return withCode(ExitUsage, errors.New("--logs is required"))
				}
				var err error
				if o.load, err = lf.options(); err != nil {
					return err
				}
				ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				log := slog.New(slog.NewTextHandler(e.stderr, nil))
				return runServe(ctx, o, log, nil)
			},
		}
		cmd.Flags().StringVar(&o.logs, "logs", "", "folder (or file) of Spark event logs, or an object-store URL")
		cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:18080", "address to listen on")
		cmd.Flags().DurationVar(&o.rescan, "rescan", 0, "look for new and changed logs this often (0: never, or 1m for an object-store URL)")
		lf = addLogFlags(cmd.Flags())
		return cmd
	})
}

// defaultBucketRescan is how often serve lists an object-store prefix again
// when --rescan is not given: stores notify no one, so watching is polling.
const defaultBucketRescan = time.Minute

// runServe serves until ctx ends. When ready is not nil it receives the
// listening address once the server accepts connections. It returns the
// ExitPartial error after a clean stop when the logs it served last were
// read in part (each was logged as it was read).
func runServe(ctx context.Context, o serveOptions, log *slog.Logger, ready chan<- string) error {
	var index atomic.Pointer[shs.Index]
	var cache load.Cache // a rescan reads only new and changed logs
	var partial atomic.Bool
	opts := o.load
	opts.Kinds = sparkKinds
	read := func() error {
		start := time.Now()
		res, fresh, err := cache.Paths([]string{o.logs}, opts)
		if errors.Is(err, source.ErrNotLog) {
			log.Warn("no Spark event logs yet", "dir", o.logs)
		} else if err != nil {
			return fmt.Errorf("find logs: %w", err)
		}
		for _, s := range res.Skipped {
			if s.Err != nil {
				log.Warn("skipped: unreadable", "path", s.Name, "reason", s.Reason+hint(s.Err))
			} else {
				log.Info("skipped: not a log", "path", s.Name, "reason", s.Reason)
			}
		}
		for _, p := range res.Problems {
			log.Warn("log read in part", "err", p.Error()+hint(p))
		}
		partial.Store(res.Partial())
		apps := sparkApps(res)
		index.Store(shs.NewIndex(apps))
		log.Info("logs read", "dir", o.logs, "applications", len(apps), "logs read anew", fresh, "took", time.Since(start).Round(time.Millisecond))
		return nil
	}
	if o.rescan == 0 && objstore.IsURL(o.logs) {
		o.rescan = defaultBucketRescan
	}
	if err := read(); err != nil {
		return err
	}
	stopped := func() error {
		if partial.Load() {
			return withCode(ExitPartial, errors.New("the logs served were read in part (logged above)"))
		}
		return nil
	}
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", o.addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", shs.Handler(index.Load, log))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	log.Info("serving the Spark History Server API", "url", "http://"+ln.Addr().String()+"/api/v1/applications")
	if ready != nil {
		ready <- ln.Addr().String()
	}

	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	var tick <-chan time.Time
	if o.rescan > 0 {
		t := time.NewTicker(o.rescan)
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
			if err := read(); err != nil {
				log.Error("rescan", "err", err)
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
