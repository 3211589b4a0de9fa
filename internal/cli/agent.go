package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/clusterlens/clusterlens/internal/agent"
	"github.com/clusterlens/clusterlens/internal/sampler"
)

// agentOptions are the flags of `clusterlens agent`.
type agentOptions struct {
	collector, tokenFile, spool, host, samplers string
	caFile                                      string
	procRoot, sysRoot                           string
	logDirs                                     []string
	interval                                    time.Duration
	spoolMaxMB                                  int64
}

func init() {
	register(func(e *env) *cobra.Command {
		var o agentOptions
		names, defaults := sampler.Names()
		var on []string
		for _, n := range names {
			if defaults[n] {
				on = append(on, n)
			}
		}
		cmd := &cobra.Command{
			Use:   "agent --collector URL --token-file FILE",
			Short: "Sample this node and ship the samples to a collector",
			Long: `agent runs on every node: it samples the node with the chosen samplers (available: ` + strings.Join(names, ", ") + `),
batches the samples every second and POSTs them to the collector (clusterlens collect).
While the collector is away batches wait in the spool folder (bounded by --spool-max-mb,
oldest dropped first) and are sent again, in order, when it is back; each is stored once.
The token comes from --token-file or the CLUSTERLENS_TOKEN environment variable.
It stops cleanly on SIGINT or SIGTERM. docs/AGENT.md describes it.`,
			Args: cobra.NoArgs,
			RunE: func(cmd *cobra.Command, _ []string) error {
				ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				return runAgent(ctx, o, slog.New(slog.NewTextHandler(e.stderr, nil)))
			},
		}
		f := cmd.Flags()
		f.StringVar(&o.collector, "collector", "", "collector URL, e.g. http://collector:9470 (required)")
		f.StringVar(&o.tokenFile, "token-file", "", "file holding the bearer token (default: $"+tokenEnv+")")
		f.StringVar(&o.caFile, "ca-file", "", "PEM certificates to trust for an https:// collector (default: the system's)")
		f.StringVar(&o.spool, "spool", "/var/lib/clusterlens/spool", "folder for the agent id, sequence and undelivered batches")
		f.Int64Var(&o.spoolMaxMB, "spool-max-mb", agent.DefaultSpoolMaxBytes>>20, "largest spool size in MiB")
		f.StringVar(&o.samplers, "samplers", strings.Join(on, ","), "comma-separated samplers to run")
		f.DurationVar(&o.interval, "interval", agent.DefaultInterval, "sampling interval")
		f.StringVar(&o.host, "host", "", "this node's name as task logs name it (default: the host name)")
		f.StringVar(&o.procRoot, "proc-root", "/proc", "procfs mount")
		f.StringVar(&o.sysRoot, "sys-root", "/sys", "sysfs mount")
		f.StringSliceVar(&o.logDirs, "log-dir", nil, "folder the log sampler follows (repeatable)")
		return cmd
	})
}

// runAgent runs the agent until ctx ends.
func runAgent(ctx context.Context, o agentOptions, log *slog.Logger) error {
	if o.collector == "" {
		return withCode(ExitUsage, errors.New("--collector is required"))
	}
	if o.interval <= 0 {
		return withCode(ExitUsage, fmt.Errorf("--interval %v: want a positive duration", o.interval))
	}
	if o.spoolMaxMB <= 0 {
		return withCode(ExitUsage, fmt.Errorf("--spool-max-mb %d: want a positive size", o.spoolMaxMB))
	}
	token, err := loadToken(o.tokenFile)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	if o.host == "" {
		if o.host, err = os.Hostname(); err != nil {
			return fmt.Errorf("host name: %w (set --host)", err)
		}
	}
	sources, err := buildSamplers(o, log)
	if err != nil {
		return err
	}
	client, err := httpClient(o.caFile)
	if err != nil {
		return withCode(ExitUsage, err)
	}
	a, err := agent.New(agent.Config{Collector: o.collector, Token: token, SpoolDir: o.spool,
		SpoolMaxBytes: o.spoolMaxMB << 20, Host: o.host, Sources: sources, Client: client, Logger: log})
	if err != nil {
		return withCode(ExitUsage, err)
	}
	return a.Run(ctx)
}

// buildSamplers builds the samplers --samplers names. One the machine
// cannot run is reported and left out; an unknown name is a usage error.
func buildSamplers(o agentOptions, log *slog.Logger) ([]agent.Source, error) {
	names, _ := sampler.Names()
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	cfg := sampler.Config{Host: o.host, ProcRoot: o.procRoot, SysRoot: o.sysRoot, Interval: o.interval, LogDirs: o.logDirs, Logger: log}
	var sources []agent.Source
	for _, name := range strings.Split(o.samplers, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !known[name] {
			return nil, withCode(ExitUsage, fmt.Errorf("--samplers: unknown sampler %q (available: %s)", name, strings.Join(names, ", ")))
		}
		s, err := sampler.Build(name, cfg)
		if errors.Is(err, sampler.ErrUnsupported) {
			log.Warn("sampler cannot run on this machine; left out", "sampler", name, "err", err)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("sampler %s: %w", name, err)
		}
		sources = append(sources, agent.Source{Name: name, Sampler: s, Interval: o.interval})
	}
	if len(sources) == 0 {
		return nil, fmt.Errorf("--samplers %q: no sampler can run", o.samplers)
	}
	return sources, nil
}

// httpClient returns the agent's HTTP client: trusting the certificates in
// caFile when set, the system's otherwise.
func httpClient(caFile string) (*http.Client, error) {
	c := &http.Client{Timeout: agent.DefaultRequestTimeout}
	if caFile == "" {
		return c, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("--ca-file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--ca-file %s: no PEM certificate in it", caFile)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	c.Transport = tr
	return c, nil
}
