package indexer

import (
	"context"
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/history"
)

// Grouping of writes: the logs the workers read are written a group at a
// time, so that a pass over many small logs makes one transaction (SQLite)
// or one insert per table (ClickHouse, where every insert makes a part on
// disk and too many parts stop inserts) per group rather than per log.
const (
	groupDelay = 250 * time.Millisecond // a group waits at most this long for more logs
	groupLogs  = 256                    // ... or until it holds this many logs
	groupRuns  = 20_000                 // ... or this many runs
)

// writer puts the entries sent to it in groups, from one goroutine.
type writer struct {
	st   history.Store
	in   chan history.Entry
	done chan struct{}

	mu  sync.Mutex
	err error // the first failed Put; later entries are dropped
}

func newWriter(ctx context.Context, st history.Store) *writer {
	w := &writer{st: st, in: make(chan history.Entry), done: make(chan struct{})}
	go w.run(ctx)
	return w
}

// put hands e to the writer; it returns the error of an earlier failed
// group, after which nothing more is written.
func (w *writer) put(e history.Entry) error {
	if err := w.failed(); err != nil {
		return err
	}
	w.in <- e
	return nil
}

func (w *writer) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// close writes what is waiting and returns the first error.
func (w *writer) close() error {
	close(w.in)
	<-w.done
	return w.failed()
}

func (w *writer) run(ctx context.Context) {
	defer close(w.done)
	for e := range w.in {
		group, runs := []history.Entry{e}, len(e.Runs)
		timer := time.NewTimer(groupDelay)
	gather:
		for len(group) < groupLogs && runs < groupRuns {
			select {
			case e, ok := <-w.in:
				if !ok {
					break gather
				}
				group, runs = append(group, e), runs+len(e.Runs)
			case <-timer.C:
				break gather
			}
		}
		timer.Stop()
		if w.failed() != nil {
			continue // drain: the pass stops with the first error
		}
		if err := w.st.Put(ctx, group...); err != nil {
			w.mu.Lock()
			w.err = err
			w.mu.Unlock()
		}
	}
}
