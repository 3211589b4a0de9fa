package open

import (
	"context"

	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/history/clickhouse"
)

func openClickHouse(ctx context.Context, addr string) (history.Store, error) {
	s, err := clickhouse.Open(ctx, addr)
	if err != nil {
		return nil, err
	}
	return s, nil
}
