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
	kind, addr, err := ParseDSN(dsn)
	if err != nil {
		return nil, err
	}
	if kind == KindClickHouse {
		s, err := clickhouse.Open(ctx, addr, clickhouse.Options{})
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	return openSQLite(addr)
}

// The kinds of store ParseDSN tells apart.
const (
	KindSQLite     = "sqlite"
	KindClickHouse = "clickhouse"
)

// ParseDSN splits dsn into the kind of store and its address: a file path
// for SQLite, an http(s) URL for ClickHouse. The run history's stores take
// the same DSNs.
func ParseDSN(dsn string) (kind, addr string, err error) {
	switch {
	case strings.HasPrefix(dsn, "sqlite:"):
		addr = strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "//")
		if addr == "" {
			return "", "", fmt.Errorf("open store %q: want sqlite:PATH with a path", dsn)
		}
		return KindSQLite, addr, nil
	case strings.HasPrefix(dsn, "clickhouse+http://"), strings.HasPrefix(dsn, "clickhouse+https://"):
		return KindClickHouse, strings.TrimPrefix(dsn, "clickhouse+"), nil
	case !strings.Contains(dsn, "://") && hasSuffix(dsn, ".db", ".sqlite", ".sqlite3"):
		return KindSQLite, dsn, nil
	}
	return "", "", fmt.Errorf("open store %q: want sqlite:PATH, PATH.db or clickhouse+http://HOST:PORT/DB", dsn)
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
