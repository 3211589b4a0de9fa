package collector

import (
	"errors"
	"log/slog"
	"time"

	"github.com/clusterlens/clusterlens/internal/promtext"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// DefaultListen is where the collector listens unless told otherwise:
// loopback only, so exposing it is a deliberate choice.
const DefaultListen = "127.0.0.1:9470"

// DefaultMaxBodyBytes bounds a request body (compressed) by default.
const DefaultMaxBodyBytes = 16 << 20

// DefaultShutdownTimeout is how long a stopping collector lets requests
// in flight finish by default.
const DefaultShutdownTimeout = 5 * time.Second

// Config configures a Server.
type Config struct {
	Listen string      // address to listen on (default DefaultListen)
	Store  store.Store // where batches go (required)
	Token  string      // bearer token agents must present (required)

	// TLSCert and TLSKey are PEM files; when both are set the server
	// speaks HTTPS.
	TLSCert, TLSKey string

	MaxBodyBytes int64       // compressed body limit (default DefaultMaxBodyBytes)
	Limits       wire.Limits // decoding limits (zero fields: wire.DefaultLimits)

	// OnBatch, when set, is called with every batch after it was stored
	// for the first time (never for duplicates), in the request's
	// goroutine: online analyses hook in here and must return quickly.
	// Calls for different agents run concurrently; one agent's batches
	// arrive one at a time in increasing Seq order (an agent has one
	// request in flight and replays its spool oldest first), with gaps
	// where batches were dropped or numbers skipped by a restart.
	OnBatch func(*wire.Batch)

	// Registry receives the collector's metrics and is served on
	// /metrics; callers may register their own collectors in it. Nil: a
	// new registry with the Go runtime's and the process's metrics.
	Registry *promtext.Registry

	// ShutdownTimeout bounds a graceful stop (default
	// DefaultShutdownTimeout); connections still open then are closed.
	// Go's server also waits this long for connections that sent no
	// request yet, which HTTP clients open speculatively.
	ShutdownTimeout time.Duration

	Logger *slog.Logger // default slog.Default()
}

// ErrNoToken is returned by New when Config.Token is empty: the collector
// never accepts unauthenticated batches.
var ErrNoToken = errors.New("collector: a bearer token is required")
