package sqlite

import (
	"context"

	"github.com/clusterlens/clusterlens/internal/wire"
)

// AppendCrashed implements storetest.Crasher: the batch's samples and id
// are written in a transaction that is then rolled back, which is what
// SQLite's journal does to a transaction whose process died before COMMIT.
func (s *Store) AppendCrashed(ctx context.Context, b *wire.Batch) error {
	_, err := s.append(ctx, b, true)
	return err
}
