// Package store keeps node samples for the collector and the analyses. Store
// is the one interface; sqlite/ (embedded, the default) and clickhouse/ (its
// HTTP interface, for scale) implement it, and storetest holds the
// conformance suite both must pass.
package store

import (
	"context"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// Store keeps samples exactly once. Implementations are safe for
// concurrent use; docs/STORE.md describes both and what they guarantee.
type Store interface {
	// Append stores a batch's samples. A batch already stored (same Agent
	// and Seq) is not stored again and dup is true. After Append returns
	// nil the batch is durable. A sample whose key (model.SampleKey) is
	// already stored replaces it. NaN and ±Inf values are stored (a NaN
	// reads back as NaN, without its payload); a nil batch is an error.
	Append(ctx context.Context, b *wire.Batch) (dup bool, err error)
	// Query calls fn for each stored sample that matches q, ordered by host,
	// type, target and time. The Sample passed to fn may be reused.
	Query(ctx context.Context, q Query, fn func(*model.Sample) error) error
	// Close releases the store.
	Close() error
}

// Query selects samples. Empty lists match everything; From and To bound
// Time (From inclusive, To exclusive, 0 for no bound).
type Query struct {
	Hosts    []string
	Types    []string
	From, To int64
}
