package sqlite

import (
	"context"
	"database/sql"
	"fmt"
)

// schemaVersion is stored in PRAGMA user_version; a file written by another
// version of the schema is refused rather than misread.
const schemaVersion = 1

// schema is docs/STORE.md's SQLite schema. Text compares bytewise (BINARY
// collation), as Go's strings do, so the (host, type, target) index gives
// store.Query's order.
var schema = []string{
	`CREATE TABLE IF NOT EXISTS series (
		id     INTEGER PRIMARY KEY,
		host   TEXT NOT NULL,
		type   TEXT NOT NULL,
		target TEXT NOT NULL,
		UNIQUE (host, type, target)
	)`,
	// value NULL is NaN (SQLite has no NaN).
	`CREATE TABLE IF NOT EXISTS samples (
		series INTEGER NOT NULL,
		time   INTEGER NOT NULL,
		value  REAL,
		text   TEXT NOT NULL,
		PRIMARY KEY (series, time)
	) WITHOUT ROWID`,
	`CREATE TABLE IF NOT EXISTS batches (
		agent   TEXT NOT NULL,
		seq     INTEGER NOT NULL,
		samples INTEGER NOT NULL,
		stored  INTEGER NOT NULL,
		PRIMARY KEY (agent, seq)
	) WITHOUT ROWID`,
}

// createSchema creates the tables in a new file and checks the version of
// an existing one.
func createSchema(ctx context.Context, db *sql.DB) error {
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if v != 0 && v != schemaVersion {
		return fmt.Errorf("schema version %d, want %d", v, schemaVersion)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	for _, stmt := range schema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	return nil
}
