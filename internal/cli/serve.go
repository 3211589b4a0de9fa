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

	"github.com/clusterlens/clusterlens/internal/shs"
	"github.com/clusterlens/clusterlens/internal/source"
)

// serveOptions are the flags of `clusterlens serve`.
type serveOptions struct {
	logs   string
	addr   string
	rescan time.Duration
}

func init() {
	register(func(e *env) *cobra.Command {
		var o serveOptions
		cmd := &cobra.Command{
			Use:   "serve --logs DIR",
			Short: "Serve the Spark History Server REST API over HTTP",
			Long: `serve reads the Spark event logs in DIR and serves the Spark History Server's REST API
(/api/v1) over HTTP, on the loopback interface unless --addr says otherwise.
It stops cleanly on SIGINT or SIGTERM. See docs/API.md for the endpoints.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if o.logs == "" {
					return withCode(ExitUsage, errors.New("--logs is required"))
				}
				ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				log := slog.New(slog.NewTextHandler(e.stderr, nil))
				return runServe(ctx, o, log, nil)
			},
		}
		cmd.Flags().StringVar(&o.logs, "logs", "", "folder (or file) of Spark event logs")
		cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:18080", "address to listen on")
		cmd.Flags().DurationVar(&o.rescan, "rescan", 0, "re-read the logs this often (0: never)")
		return cmd
	})
}

// runServe serves until ctx ends. When ready is not nil it receives the
// listening address once the server accepts connections.
func runServe(ctx context.Context, o serveOptions, log *slog.Logger, ready chan<- string) error {
	var index atomic.Pointer[shs.Index]
	load := func() error {
		start := time.Now()
		apps, problems, err := loadSparkLogs(o.logs)
		if errors.Is(err, source.ErrNotLog) {
			log.Warn("no Spark event logs yet", "dir", o.logs)
		} else if err != nil {
			return err
		}
		for _, p := range problems {
			log.Warn("log read in part", "err", p)
		}
		index.Store(shs.NewIndex(apps))
		log.Info("logs read", "dir", o.logs, "applications", len(apps), "took", time.Since(start).Round(time.Millisecond))
		return nil
	}
	if err := load(); err != nil {
		return err
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
				return nil
			}
			return fmt.Errorf("serve: %w", err)
		case <-tick:
			if err := load(); err != nil {
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
			return nil
		}
	}
}
