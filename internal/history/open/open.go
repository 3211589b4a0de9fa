// Package open chooses the run history's store from a DSN, the same DSNs the
// sample store takes (store/open.ParseDSN): sqlite:PATH (or PATH.db) and
// clickhouse+http(s)://HOST:PORT/DB.
package open

import (
	"context"

	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/history/sqlite"
	storeopen "github.com/clusterlens/clusterlens/internal/store/open"
)

// Open opens the run history dsn names, creating or migrating its tables.
func Open(ctx context.Context, dsn string) (history.Store, error) {
	kind, addr, err := storeopen.ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if kind == storeopen.KindClickHouse {
		return openClickHouse(ctx, addr)
	}
	s, err := sqlite.Open(ctx, addr)
	if err != nil {
		return nil, err
	}
	return s, nil
}
