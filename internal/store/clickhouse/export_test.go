package clickhouse

import (
	"context"

	"github.com/clusterlens/clusterlens/internal/wire"
)

// AppendCrashed implements storetest.Crasher: the batch's samples are
// inserted and its id is not recorded, as when the collector dies between
// the two inserts.
func (s *Store) AppendCrashed(ctx context.Context, b *wire.Batch) error {
	_, err := s.append(ctx, b, true)
	return err
}
