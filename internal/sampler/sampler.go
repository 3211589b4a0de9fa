// Package sampler holds the agent's per-node samplers (system from /proc,
// architecture through perf_event_open, JVM threads, followed log files).
// Each sampler lives in its own file and registers itself in init, as
// node_exporter's collectors do; the agent builds the enabled ones with New
// and calls each at its own interval.
package sampler

import (
	"fmt"
	"log/slog"
	"sort"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Sampler takes one kind of sample on this node.
type Sampler interface {
	// Sample appends what it measured at now to dst and returns it. A
	// counter-based sampler reports rates over the time since its previous
	// call, so its first call may append nothing.
	Sample(now time.Time, dst []model.Sample) ([]model.Sample, error)
}

// Config is what samplers are built from. Roots are injectable so tests
// can use fixtures (procfs style).
type Config struct {
	Host     string        // the node's name as logs name it (default os.Hostname)
	ProcRoot string        // default "/proc"
	SysRoot  string        // default "/sys"
	Interval time.Duration // default 1 s; a sampler may have its own
	LogDirs  []string      // folders the log sampler follows
	Logger   *slog.Logger
}

// Factory builds a sampler from cfg. It returns ErrUnsupported (wrapped)
// when the machine cannot provide the sampler's data.
type Factory func(cfg Config) (Sampler, error)

// ErrUnsupported says a sampler cannot run on this machine (no perf events,
// no JVMs visible); the agent reports it and goes on without it.
var ErrUnsupported = fmt.Errorf("sampler unsupported on this machine")

type registration struct {
	factory        Factory
	defaultEnabled bool
}

var registry = map[string]registration{}

// Register adds a sampler under name; called from init.
func Register(name string, defaultEnabled bool, f Factory) {
	if _, dup := registry[name]; dup {
		panic("sampler: " + name + " registered twice")
	}
	registry[name] = registration{f, defaultEnabled}
}

// Names lists the registered samplers, sorted, and which run by default.
func Names() (names []string, defaults map[string]bool) {
	defaults = map[string]bool{}
	for n, r := range registry {
		names = append(names, n)
		defaults[n] = r.defaultEnabled
	}
	sort.Strings(names)
	return names, defaults
}

// Build returns the named sampler built from cfg.
func Build(name string, cfg Config) (Sampler, error) {
	r, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("sampler %q: not registered", name)
	}
	return r.factory(cfg)
}
