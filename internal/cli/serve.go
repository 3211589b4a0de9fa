package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/agent"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	historyopen "github.com/clusterlens/clusterlens/internal/history/open"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/server"
	storeopen "github.com/clusterlens/clusterlens/internal/store/open"
)

// serveOptions are the flags of `clusterlens serve`.
type serveOptions struct {
	logs   []string
	addr   string
	rescan time.Duration
	load   decodelogs.Options
	store  string // run history DSN, "" for none
	// metrics is the node sample store DSN and peerProfile a trained
	// Ganesha profile, for the web UI ("" for none).
	metrics, peerProfile       string
	tokenFile, tlsCert, tlsKey string
}

// runServe runs the server with o until ctx ends (internal/server); a
// clean stop after serving logs read in part exits 3.
func runServe(ctx context.Context, o serveOptions, log *slog.Logger, ready chan<- string) error {
	so := server.Options{Logs: o.logs, Addr: o.addr, Rescan: o.rescan, Load: o.load, TLSCert: o.tlsCert, TLSKey: o.tlsKey}
	if o.tokenFile != "" {
		tok, err := agent.LoadToken(o.tokenFile)
		if err != nil {
			return withCode(ExitUsage, err)
		}
		so.Token = tok
	}
	if o.peerProfile != "" {
		if o.metrics == "" {
			return withCode(ExitUsage, errors.New("--peer-profile needs --metrics"))
		}
		prof, err := peer.LoadProfileFile(o.peerProfile)
		if err != nil {
			return fmt.Errorf("--peer-profile: %w", err)
		}
		so.Peer = prof
	}
	if o.metrics != "" {
		st, err := storeopen.Open(ctx, o.metrics)
		if err != nil {
			return fmt.Errorf("--metrics: %w", err)
		}
		defer st.Close()
		so.Metrics = st
	}
	if o.store != "" {
		st, err := historyopen.Open(ctx, o.store)
		if err != nil {
			return err
		}
		defer st.Close()
		so.Store = st
	}
	err := server.Run(ctx, so, log, ready)
	if errors.Is(err, server.ErrPartial) {
		return withCode(ExitPartial, err)
	}
	if errors.Is(err, server.ErrNoSource) {
		return withCode(ExitError, err)
	}
	if errors.Is(err, server.ErrExposed) || errors.Is(err, server.ErrTLSPair) {
		return withCode(ExitUsage, err)
	}
	return err
}

func init() {
	register(func(e *env) *cobra.Command {
		var o serveOptions
		var lf *logFlags
		cmd := &cobra.Command{
			Use:   "serve --logs DIR",
			Short: "Serve the web UI and the Spark History Server REST API over HTTP",
			Long: `serve reads the Spark event logs in DIR and serves a web UI (/: the fleet, each application,
two runs compared, the nodes; docs/UI.md) and the Spark History Server's REST API (/api/v1)
over HTTP, read-only, on the loopback interface unless --addr says otherwise; another address
needs --token-file (every request then presents the token) or --tls-cert and --tls-key. It answers at once:
applications are listed from their logs' first events while the logs are read in the background,
and a request about one application reads its log first.
DIR may be an object-store prefix (s3://, gs://, abfss://, wasbs://), which is
watched: listed again every --rescan (default 1m there) and new or changed logs read.
With --store the listing comes from the run history at once, whatever the number of
logs, and the logs are indexed into it every --rescan (docs/HISTORY.md).
It stops cleanly on SIGINT or SIGTERM. See docs/API.md for the endpoints.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				if len(o.logs) == 0 {
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
		cmd.Flags().StringArrayVar(&o.logs, "logs", nil, "folder (or file) of Spark event logs, or an object-store URL; repeat for several (serve fails at start when none can be read)")
		cmd.Flags().StringVar(&o.addr, "addr", "127.0.0.1:18080", "address to listen on")
		cmd.Flags().DurationVar(&o.rescan, "rescan", 0, "look for new and changed logs this often (0: never; 1m for an object-store URL; 10s with --store)")
		cmd.Flags().StringVar(&o.metrics, "metrics", "", "node sample store for the web UI's node metrics (sqlite:PATH or clickhouse+http://HOST:8123/DB, as collect writes)")
		cmd.Flags().StringVar(&o.peerProfile, "peer-profile", "", "trained Ganesha profile (peer train) for the web UI's peer diagnosis of the nodes; needs --metrics")
		cmd.Flags().StringVar(&o.tokenFile, "token-file", "", "file holding a token every request must present (needed to listen beyond the loopback interface without TLS)")
		cmd.Flags().StringVar(&o.tlsCert, "tls-cert", "", "PEM certificate to serve HTTPS with (with --tls-key)")
		cmd.Flags().StringVar(&o.tlsKey, "tls-key", "", "PEM private key of --tls-cert")
		cmd.Flags().StringVar(&o.store, "store", "", "run history to answer from (sqlite:PATH or clickhouse+http://HOST:8123/DB): listed at once, kept current by indexing the logs every --rescan")
		lf = addLogFlags(cmd.Flags())
		return cmd
	})
}
