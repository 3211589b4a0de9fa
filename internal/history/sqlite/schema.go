package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/history"
)

// migrations[v-1] takes a store from schema version v-1 to v; a new file
// runs them all. The tables share a file with the sample store (package
// store/sqlite) without touching its tables or its PRAGMA user_version:
// the history's version lives in history_meta. docs/HISTORY.md describes
// the columns.
var migrations = [][]string{
	{ // 1
		`CREATE TABLE history_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`CREATE TABLE history_logs (
			path        TEXT PRIMARY KEY,
			size        INTEGER NOT NULL,
			mtime       INTEGER NOT NULL,
			fingerprint TEXT NOT NULL,
			in_progress INTEGER NOT NULL,
			runs        TEXT NOT NULL,
			error       TEXT NOT NULL,
			indexed_at  INTEGER NOT NULL
		)`,
		`CREATE TABLE history_resume (path TEXT PRIMARY KEY, state BLOB NOT NULL)`,
		`CREATE TABLE history_runs (
			id             INTEGER PRIMARY KEY,
			key            TEXT NOT NULL UNIQUE,
			log            TEXT NOT NULL,
			app_id         TEXT NOT NULL,
			attempt        TEXT NOT NULL,
			name           TEXT NOT NULL,
			user           TEXT NOT NULL,
			engine         TEXT NOT NULL,
			version        TEXT NOT NULL,
			platform       TEXT NOT NULL,
			status         TEXT NOT NULL,
			start          INTEGER NOT NULL,
			end            INTEGER NOT NULL,
			duration_ms    INTEGER NOT NULL,
			last_updated   INTEGER NOT NULL,
			hosts          INTEGER NOT NULL,
			executors      INTEGER NOT NULL,
			cores          INTEGER NOT NULL,
			exec_memory_mb INTEGER NOT NULL,
			instance_types TEXT NOT NULL,
			jobs           INTEGER NOT NULL,
			failed_jobs    INTEGER NOT NULL,
			stages         INTEGER NOT NULL,
			failed_stages  INTEGER NOT NULL,
			tasks          INTEGER NOT NULL,
			failed_tasks   INTEGER NOT NULL,
			input_bytes    INTEGER NOT NULL,
			output_bytes   INTEGER NOT NULL,
			shuffle_read   INTEGER NOT NULL,
			shuffle_write  INTEGER NOT NULL,
			spill_bytes    INTEGER NOT NULL,
			task_time_ms   INTEGER NOT NULL,
			cpu_time_ms    INTEGER NOT NULL,
			gc_time_ms     INTEGER NOT NULL,
			name_key       TEXT NOT NULL,
			job_key        TEXT NOT NULL,
			worst          INTEGER NOT NULL,
			findings       TEXT NOT NULL
		)`,
		`CREATE INDEX history_runs_start ON history_runs (start, key)`,
		`CREATE INDEX history_runs_job ON history_runs (job_key, start)`,
		`CREATE INDEX history_runs_log ON history_runs (log)`,
		`CREATE INDEX history_runs_user ON history_runs (user, start)`,
		`CREATE TABLE history_stages (
			run           INTEGER NOT NULL,
			ord           INTEGER NOT NULL,
			stage         INTEGER NOT NULL,
			attempt       INTEGER NOT NULL,
			name          TEXT NOT NULL,
			signature     TEXT NOT NULL,
			class         TEXT NOT NULL,
			status        TEXT NOT NULL,
			tasks         INTEGER NOT NULL,
			failed_tasks  INTEGER NOT NULL,
			duration_ms   INTEGER NOT NULL,
			q0 REAL NOT NULL, q25 REAL NOT NULL, q50 REAL NOT NULL, q75 REAL NOT NULL, q100 REAL NOT NULL,
			input_bytes    INTEGER NOT NULL,
			output_bytes   INTEGER NOT NULL,
			shuffle_read   INTEGER NOT NULL,
			shuffle_write  INTEGER NOT NULL,
			input_records  INTEGER NOT NULL,
			output_records INTEGER NOT NULL,
			spill_bytes    INTEGER NOT NULL,
			run_time_ms    INTEGER NOT NULL,
			cpu_time_ms    INTEGER NOT NULL,
			gc_time_ms     INTEGER NOT NULL,
			PRIMARY KEY (run, stage, attempt)
		) WITHOUT ROWID`,
		`CREATE TABLE history_hosts (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)`,
		`CREATE TABLE history_host_stages (
			run        INTEGER NOT NULL,
			host       INTEGER NOT NULL,
			stage      INTEGER NOT NULL,
			attempt    INTEGER NOT NULL,
			tasks      INTEGER NOT NULL,
			sum_ms     REAL NOT NULL,
			sumsq_ms   REAL NOT NULL,
			sum_log    REAL NOT NULL,
			sumsq_log  REAL NOT NULL,
			min_ms     INTEGER NOT NULL,
			max_ms     INTEGER NOT NULL,
			bytes      INTEGER NOT NULL,
			PRIMARY KEY (run, host, stage, attempt)
		) WITHOUT ROWID`,
		`CREATE INDEX history_host_stages_host ON history_host_stages (host, run)`,
		`CREATE TABLE history_dags (
			job_key  TEXT PRIMARY KEY,
			engine   TEXT NOT NULL,
			name_key TEXT NOT NULL,
			dag      TEXT NOT NULL
		)`,
	},
	{ // 2: per-host facts; every log is read again by the next index pass to fill them
		`CREATE TABLE history_host_facts (
			run           INTEGER NOT NULL,
			host          INTEGER NOT NULL,
			rack          TEXT NOT NULL,
			executors     INTEGER NOT NULL,
			cores         INTEGER NOT NULL,
			memory_mb     INTEGER NOT NULL,
			instance_type TEXT NOT NULL,
			PRIMARY KEY (run, host)
		) WITHOUT ROWID`,
		`UPDATE history_logs SET mtime = -1, fingerprint = ''`,
	},
	{ // 3: what explaining a run needs (stage times, driver time, configuration, SQL plans); every log is read again
		`CREATE TABLE history_stage_times (
			run               INTEGER NOT NULL,
			stage             INTEGER NOT NULL,
			attempt           INTEGER NOT NULL,
			submit_ms         INTEGER NOT NULL,
			complete_ms       INTEGER NOT NULL,
			slot_ms           INTEGER NOT NULL,
			wait_ms           INTEGER NOT NULL,
			failed_ms         INTEGER NOT NULL,
			task_bytes_median INTEGER NOT NULL,
			last_host         TEXT NOT NULL,
			last_ms           INTEGER NOT NULL,
			last_bytes        INTEGER NOT NULL,
			last_gc_ms        INTEGER NOT NULL,
			last_retry_ms     INTEGER NOT NULL,
			PRIMARY KEY (run, stage, attempt)
		) WITHOUT ROWID`,
		`CREATE TABLE history_run_context (
			run              INTEGER PRIMARY KEY,
			driver_ms        INTEGER NOT NULL,
			executor_wait_ms INTEGER NOT NULL,
			config           TEXT NOT NULL
		)`,
		`CREATE TABLE history_configs (id TEXT PRIMARY KEY, config TEXT NOT NULL)`,
		`CREATE TABLE history_queries (
			run         INTEGER NOT NULL,
			ord         INTEGER NOT NULL,
			exec_id     INTEGER NOT NULL,
			description TEXT NOT NULL,
			wall_ms     INTEGER NOT NULL,
			stages      TEXT NOT NULL,
			plan        TEXT NOT NULL,
			PRIMARY KEY (run, ord)
		) WITHOUT ROWID`,
		`UPDATE history_logs SET mtime = -1, fingerprint = ''`,
	},
}

// migrate brings the file's history tables to history.SchemaVersion inside
// one immediate transaction, so two processes opening a new file do not
// both create it.
func migrate(ctx context.Context, db *sql.DB, where string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: migrate: %w", where, err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	v := 0
	var exists int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'history_meta'`).Scan(&exists); err != nil {
		return fmt.Errorf("%s: migrate: %w", where, err)
	}
	if exists > 0 {
		var s string
		if err := tx.QueryRowContext(ctx, `SELECT value FROM history_meta WHERE key = 'schema_version'`).Scan(&s); err != nil {
			return fmt.Errorf("%s: read schema version: %w", where, err)
		}
		if v, err = strconv.Atoi(s); err != nil {
			return fmt.Errorf("%s: schema version %q: want a number", where, s)
		}
	}
	if v > history.SchemaVersion {
		return history.NewerSchemaError(where, v)
	}
	for ; v < history.SchemaVersion; v++ {
		for _, stmt := range migrations[v] {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("%s: migrate to schema version %d: %w", where, v+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO history_meta (key, value) VALUES ('schema_version', ?)`, strconv.Itoa(v+1)); err != nil {
			return fmt.Errorf("%s: migrate: %w", where, err)
		}
	}
	return tx.Commit()
}
