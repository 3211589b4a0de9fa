// Package agentcmd is the node agent's command line: its flags, the
// samplers they name and the collector's HTTP client. The agent alone
// (cmd/clusterlens-agent, what runs on the nodes) and `clusterlens agent`
// are this one command, so the agent's binary carries the agent and
// nothing of the analyses (docs/AGENT.md).
package agentcmd

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
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

// Options are the agent's flags.
type Options struct {
	Collector, TokenFile, Spool, Host, Samplers string
	CAFile                                      string
	ProcRoot, SysRoot                           string
	LogDirs                                     []string
	Interval                                    time.Duration
	SpoolMaxMB                                  int64
}

// UsageError is a command line the agent cannot run with (exit code 2).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(err error) error { return &UsageError{err} }

// Command is the agent's command, its log written to stderr.
func Command(stderr io.Writer) *cobra.Command {
	var o Options
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
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return Run(ctx, o, slog.New(slog.NewTextHandler(stderr, nil)))
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Collector, "collector", "", "collector URL, e.g. http://collector:9470 (required)")
	f.StringVar(&o.TokenFile, "token-file", "", "file holding the bearer token (default: $"+agent.TokenEnv+")")
	f.StringVar(&o.CAFile, "ca-file", "", "PEM certificates to trust for an https:// collector (default: the system's)")
	f.StringVar(&o.Spool, "spool", "/var/lib/clusterlens/spool", "folder for the agent id, sequence and undelivered batches")
	f.Int64Var(&o.SpoolMaxMB, "spool-max-mb", agent.DefaultSpoolMaxBytes>>20, "largest spool size in MiB")
	f.StringVar(&o.Samplers, "samplers", strings.Join(on, ","), "comma-separated samplers to run")
	f.DurationVar(&o.Interval, "interval", agent.DefaultInterval, "sampling interval")
	f.StringVar(&o.Host, "host", "", "this node's name as task logs name it (default: the host name)")
	f.StringVar(&o.ProcRoot, "proc-root", "/proc", "procfs mount")
	f.StringVar(&o.SysRoot, "sys-root", "/sys", "sysfs mount")
	f.StringSliceVar(&o.LogDirs, "log-dir", nil, "folder the log sampler follows (repeatable)")
	return cmd
}

// Main runs the agent alone with args (its command is the program) and
// returns the exit code: 0, 1 on a failure, 2 on a wrong command line.
func Main(args []string, stdout, stderr io.Writer) int {
	cmd := Command(stderr)
	cmd.Use = "clusterlens-agent --collector URL --token-file FILE"
	cmd.SetArgs(args)
	cmd.SetOut(stdout)
	cmd.SetErr(stderr)
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage(err) })
	err := cmd.Execute()
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "clusterlens-agent:", err)
	var ue *UsageError
	if errors.As(err, &ue) || strings.Contains(err.Error(), "unknown command") || strings.Contains(err.Error(), "accepts ") {
		return 2
	}
	return 1
}

// Run runs the agent until ctx ends.
func Run(ctx context.Context, o Options, log *slog.Logger) error {
	if o.Collector == "" {
		return usage(errors.New("--collector is required"))
	}
	if o.Interval <= 0 {
		return usage(fmt.Errorf("--interval %v: want a positive duration", o.Interval))
	}
	if o.SpoolMaxMB <= 0 {
		return usage(fmt.Errorf("--spool-max-mb %d: want a positive size", o.SpoolMaxMB))
	}
	token, err := agent.LoadToken(o.TokenFile)
	if err != nil {
		return usage(err)
	}
	if o.Host == "" {
		if o.Host, err = os.Hostname(); err != nil {
			return fmt.Errorf("host name: %w (set --host)", err)
		}
	}
	sources, err := buildSamplers(o, log)
	if err != nil {
		return err
	}
	client, err := HTTPClient(o.CAFile)
	if err != nil {
		return usage(err)
	}
	a, err := agent.New(agent.Config{Collector: o.Collector, Token: token, SpoolDir: o.Spool,
		SpoolMaxBytes: o.SpoolMaxMB << 20, Host: o.Host, Sources: sources, Client: client, Logger: log})
	if err != nil {
		return usage(err)
	}
	return a.Run(ctx)
}

// buildSamplers builds the samplers --samplers names. One the machine
// cannot run is reported and left out; an unknown name is a usage error.
func buildSamplers(o Options, log *slog.Logger) ([]agent.Source, error) {
	names, _ := sampler.Names()
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	cfg := sampler.Config{Host: o.Host, ProcRoot: o.ProcRoot, SysRoot: o.SysRoot, Interval: o.Interval, LogDirs: o.LogDirs, Logger: log}
	var sources []agent.Source
	for _, name := range strings.Split(o.Samplers, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !known[name] {
			return nil, usage(fmt.Errorf("--samplers: unknown sampler %q (available: %s)", name, strings.Join(names, ", ")))
		}
		s, err := sampler.Build(name, cfg)
		if errors.Is(err, sampler.ErrUnsupported) {
			log.Warn("sampler cannot run on this machine; left out", "sampler", name, "err", err)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("sampler %s: %w", name, err)
		}
		sources = append(sources, agent.Source{Name: name, Sampler: s, Interval: o.Interval})
	}
	if len(sources) == 0 {
		return nil, fmt.Errorf("--samplers %q: no sampler can run", o.Samplers)
	}
	return sources, nil
}

// HTTPClient returns the agent's HTTP client: trusting the certificates
// in caFile when set, the system's otherwise.
func HTTPClient(caFile string) (*http.Client, error) {
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
