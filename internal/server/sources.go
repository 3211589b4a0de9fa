package server

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/source"
)

// ErrNoSource is wrapped by Run's error when none of the log sources can be
// read at start (a path that does not exist, an unsupported store, a
// bucket that refuses the credentials): serving an empty UI would hide it.
var ErrNoSource = errors.New("no log source can be read")

// SourceProblem is a log source that could not be read at its last look:
// which, why, and since when (the logs it gave before are still served).
type SourceProblem struct {
	Source string
	Err    error
	Since  time.Time
}

// sourceHealth keeps the sources' state between scans, logging each change
// once: a source that fails, and one that can be read again.
type sourceHealth struct {
	log *slog.Logger
	now func() time.Time

	mu      sync.Mutex
	failing map[string]SourceProblem
	order   []string // the sources as given
}

func newSourceHealth(sources []string, log *slog.Logger) *sourceHealth {
	return &sourceHealth{log: log, now: time.Now, failing: map[string]SourceProblem{}, order: sources}
}

// set records the outcome of a look at src (err nil: it was read).
func (h *sourceHealth) set(src string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, was := h.failing[src]
	switch {
	case err == nil && was:
		delete(h.failing, src)
		h.log.Info("log source readable again", "source", src, "after", h.now().Sub(p.Since).Round(time.Second))
	case err != nil && !was:
		h.failing[src] = SourceProblem{Source: src, Err: err, Since: h.now()}
		h.log.Warn("log source cannot be read", "source", src, "err", err)
	case err != nil:
		p.Err = err
		h.failing[src] = p
	}
}

// Problems returns the sources failing now, in the order given.
func (h *sourceHealth) Problems() []SourceProblem {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []SourceProblem
	for _, s := range h.order {
		if p, ok := h.failing[s]; ok {
			out = append(out, p)
		}
	}
	return out
}

// checkSources looks at every source once (source.Check: a stat, or one
// listing of a bucket). When none can be read it fails, naming each source
// as given with its cause; otherwise it records each outcome in h.
func checkSources(sources []string, h *sourceHealth) error {
	errs := make([]error, len(sources))
	failed := 0
	for i, s := range sources {
		if errs[i] = source.Check(s); errs[i] != nil {
			failed++
		}
	}
	if failed == len(sources) {
		var b strings.Builder
		for i, s := range sources {
			fmt.Fprintf(&b, "\n  %s: %v", s, errs[i])
		}
		return fmt.Errorf("%w:%s", ErrNoSource, b.String())
	}
	for i, s := range sources {
		h.set(s, errs[i])
	}
	return nil
}
