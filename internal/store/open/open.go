// Package open chooses a store.Store from a DSN, for the CLI (it lives
// apart from package store so that store does not import its
// implementations). Stores are a closed set, chosen explicitly:
//
//	sqlite:PATH                          SQLite file PATH (created if missing)
//	PATH.db, PATH.sqlite, PATH.sqlite3   the same
//	clickhouse+http://HOST:PORT/DB       ClickHouse's HTTP interface, database DB
//	clickhouse+https://HOST:PORT/DB      the same over TLS
//
// Users and passwords go in the URL (clickhouse+http://user:pw@host:8123/db).
package open

import (
	"context"
	"fmt"
	"strings"

	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/store/clickhouse"
	"github.com/clusterlens/clusterlens/internal/store/sqlite"
)

// Open opens the store dsn names.
func Open(ctx context.Context, dsn string) (store.Store, error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//")
		return openSQLite(path)
	case strings.HasPrefix(dsn, "clickhouse+http://"), strings.HasPrefix(dsn, "clickhouse+https://"):
		s, err := clickhouse.Open(ctx, strings.TrimPrefix(dsn, "clickhouse+"), clickhouse.Options{})
		if err != nil {
			return nil, err
		}
		return s, nil
	case !strings.Contains(dsn, "://") && hasSuffix(dsn, ".db", ".sqlite", ".sqlite3"):
		return openSQLite(dsn)
	}
	return nil, fmt.Errorf("open store %q: want sqlite:PATH, PATH.db or clickhouse+http://HOST:PORT/DB", dsn)
}

func openSQLite(path string) (store.Store, error) {
	s, err := sqlite.Open(path)
	if err != nil {
		return nil, err
	}
	return s, nil
}

func hasSuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}
