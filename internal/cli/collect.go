package cli

import (
	"context"

	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/agent"
	"github.com/clusterlens/clusterlens/internal/collector"
	"github.com/clusterlens/clusterlens/internal/driver"
	"github.com/clusterlens/clusterlens/internal/peer"

	"github.com/clusterlens/clusterlens/internal/store/open"
)

// collectOptions are the flags of `clusterlens collect`.
type collectOptions struct {
	listen, store, tokenFile, tlsCert, tlsKey string
	maxBody                                   int64
	peerProfile                               string // Ganesha profile for online peer diagnosis ("" for none)
	peerBaseline                              string // the nodes' own models (peer baseline, "" for none)
}

func init() {
	register(func(e *env) *cobra.Command {
		var o collectOptions
		cmd := &cobra.Command{
			Use:   "collect --store DSN --token-file FILE",
			Short: "Receive agents' samples and store them (the collector)",
			Long: `collect is the collector: agents POST batches of samples to /v1/batches with a bearer
token; each batch is stored once (a batch sent again after a lost reply is acknowledged,
not stored twice) in the store --store names:

  sqlite:PATH                      embedded SQLite file (the default)
  clickhouse+http://HOST:PORT/DB   ClickHouse through its HTTP interface

It also serves GET /healthz and GET /metrics (Prometheus). It listens on the loopback
interface unless --listen says otherwise; --tls-cert and --tls-key switch to HTTPS.
The token comes from --token-file or the CLUSTERLENS_TOKEN environment variable.
It stops cleanly on SIGINT or SIGTERM. docs/AGENT.md describes the protocol.
With --peer-profile it also runs Ganesha's peer diagnosis on every stored batch
(docs/PEER.md): indictments are logged, stored (type peer_indictment) and exported as
clusterlens_peer_* metrics.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				return runCollect(ctx, o, slog.New(slog.NewTextHandler(e.stderr, nil)), nil)
			},
		}
		f := cmd.Flags()
		f.StringVar(&o.listen, "listen", collector.DefaultListen, "address to listen on")
		f.StringVar(&o.store, "store", "sqlite:/var/lib/clusterlens/samples.db", "where samples go: sqlite:PATH or clickhouse+http://HOST:PORT/DB")
		f.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token agents must present (default: $"+agent.TokenEnv+")")
		f.StringVar(&o.tlsCert, "tls-cert", "", "PEM certificate: serve HTTPS (with --tls-key)")
		f.StringVar(&o.tlsKey, "tls-key", "", "PEM private key of --tls-cert")
		f.Int64Var(&o.maxBody, "max-body", collector.DefaultMaxBodyBytes, "largest request body accepted, in bytes (compressed)")
		f.StringVar(&o.peerProfile, "peer-profile", "", "peer profile (clusterlens peer train): diagnose nodes online, indictments logged and on /metrics")
		f.StringVar(&o.peerBaseline, "peer-baseline", "", "with --peer-profile, the nodes' own fault-free models (clusterlens peer baseline): a node is indicted only when it differs from its peers and from itself")
		return cmd
	})
}

// runCollect serves until ctx ends. When ready is not nil it receives the
// listening address once the collector accepts connections.
func runCollect(ctx context.Context, o collectOptions, log *slog.Logger, ready chan<- string) error {
	token, err := agent.LoadToken(o.tokenFile)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return withCode(ExitUsage, errors.New("--tls-cert and --tls-key go together"))
	}
	var online *peer.Online
	if o.peerProfile != "" {
		prof, err := peer.LoadProfileFile(o.peerProfile)
		if err != nil {
			return withCode(ExitUsage, fmt.Errorf("--peer-profile: %w", err))
		}
		if online, err = peer.NewOnline(prof, prof.Params, log); err != nil {
			return withCode(ExitUsage, fmt.Errorf("--peer-profile: %w", err))
		}
		if o.peerBaseline != "" {
			b, err := peer.LoadBaselineFile(o.peerBaseline)
			if err == nil {
				err = online.SetBaseline(b)
			}
			if err != nil {
				return withCode(ExitUsage, fmt.Errorf("--peer-baseline: %w", err))
			}
		}
	} else if o.peerBaseline != "" {
		return withCode(ExitUsage, errors.New("--peer-baseline needs --peer-profile"))
	}
	st, err := open.Open(ctx, o.store)
	if err != nil {
		return fmt.Errorf("--store: %w", err)
	}
	cfg := collector.Config{Listen: o.listen, Store: st, Token: token,
		TLSCert: o.tlsCert, TLSKey: o.tlsKey, MaxBodyBytes: o.maxBody, Logger: log}
	if online != nil {
		cfg.OnBatch = online.ObserveBatch
		online.OnIndict(driver.StoreIndictments(ctx, st, log))
	}
	srv, err := collector.New(cfg)
	if err == nil && online != nil {
		srv.Registry().Register(online)
	}
	if err != nil {
		st.Close()
		return err
	}
	ln, err := new(net.ListenConfig).Listen(ctx, "tcp", o.listen)
	if err != nil {
		st.Close()
		return fmt.Errorf("listen on %s: %w", o.listen, err)
	}
	if ready != nil {
		ready <- ln.Addr().String()
	}
	err = srv.Serve(ctx, ln)
	if cerr := st.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("close store: %w", cerr)
	}
	return err
}
