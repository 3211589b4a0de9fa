// Package collectortest holds test doubles for the collector and the
// agent: an in-memory store.Store that keeps batches exactly once.
package collectortest

import (
	"context"
	"sort"
	"sync"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/wire"
)

type batchKey struct {
	agent string
	seq   uint64
}

// MemStore is an in-memory store.Store: batches de-duplicated by (Agent,
// Seq), samples kept in arrival order. Fail makes Append fail, to test
// what happens when the real store is down.
type MemStore struct {
	mu      sync.Mutex
	batches map[batchKey]bool
	samples []model.Sample
	fail    error
	appends int
}

// NewMemStore returns an empty MemStore.
func NewMemStore() *MemStore { return &MemStore{batches: map[batchKey]bool{}} }

// Fail makes every later Append return err (nil: succeed again).
func (m *MemStore) Fail(err error) {
	m.mu.Lock()
	m.fail = err
	m.mu.Unlock()
}

// Append implements store.Store.
func (m *MemStore) Append(_ context.Context, b *wire.Batch) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.appends++
	if m.fail != nil {
		return false, m.fail
	}
	k := batchKey{b.Agent, b.Seq}
	if m.batches[k] {
		return true, nil
	}
	m.batches[k] = true
	m.samples = append(m.samples, b.Samples...)
	return false, nil
}

// Query implements store.Store.
func (m *MemStore) Query(ctx context.Context, q store.Query, fn func(*model.Sample) error) error {
	m.mu.Lock()
	sel := make([]model.Sample, 0, len(m.samples))
	for _, s := range m.samples {
		if match(q, &s) {
			sel = append(sel, s)
		}
	}
	m.mu.Unlock()
	sort.SliceStable(sel, func(i, j int) bool {
		a, b := &sel[i], &sel[j]
		if a.Host != b.Host {
			return a.Host < b.Host
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		return a.Time < b.Time
	})
	for i := range sel {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := fn(&sel[i]); err != nil {
			return err
		}
	}
	return nil
}

func match(q store.Query, s *model.Sample) bool {
	if q.From != 0 && s.Time < q.From || q.To != 0 && s.Time >= q.To {
		return false
	}
	return in(q.Hosts, s.Host) && in(q.Types, s.Type)
}

func in(list []string, v string) bool {
	if len(list) == 0 {
		return true
	}
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// Batches returns how many distinct batches were stored.
func (m *MemStore) Batches() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.batches)
}

// Appends returns how many times Append was called (duplicates and
// failures included).
func (m *MemStore) Appends() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.appends
}

// Close implements store.Store.
func (m *MemStore) Close() error { return nil }
