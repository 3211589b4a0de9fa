// Package clickhouse keeps the run history in ClickHouse, for fleets one
// machine cannot hold, through its HTTP interface (package clickhttp), which
// Debian's 18.16 server and current releases both speak.
//
// ClickHouse has no transactions, so Put is built from versions: every row
// of a log's state, a run or a resume state carries the version of the Put
// that wrote it (nanoseconds, increasing), tables are ReplacingMergeTrees
// keyed by path or run key and read with FINAL, so the newest version wins,
// and a removal writes a newer row marked deleted. A run's stage and host
// rows carry its version as their generation and are read only for the
// run's current one, so a run re-read with fewer stages shows no stale
// stage. A Put writes stage and host rows first, then runs, then the log's
// state: a crash in between leaves the log's old state, so the next pass
// reads it again; readers may see a log's new runs a moment before its new
// state, never a torn run.
package clickhouse

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/clusterlens/clusterlens/internal/clickhttp"
	"github.com/clusterlens/clusterlens/internal/history"
)

// Store is a history.Store in a ClickHouse database.
type Store struct {
	c *clickhttp.Client

	mu   sync.Mutex
	last uint64 // the last version handed out
}

var _ history.Store = (*Store)(nil)

// Open connects to the server at rawURL ("http://host:port/database"),
// creates or migrates the history's tables, and returns the store. A
// database written by a newer schema is refused with history.ErrNewerSchema.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	c, err := clickhttp.Dial(ctx, rawURL, nil)
	if err != nil {
		return nil, fmt.Errorf("run history on clickhouse %w", err)
	}
	s := &Store{c: c}
	if err := s.migrate(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Close releases idle connections; the server and its data stay.
func (s *Store) Close() error {
	s.c.CloseIdleConnections()
	return nil
}

// DropDatabase drops the store's database (tests clean up with it).
func (s *Store) DropDatabase(ctx context.Context) error { return s.c.DropDatabase(ctx) }

// version returns a new version, above every one this store handed out and
// at least the clock's nanoseconds (other processes' writes are ordered by
// their clocks).
func (s *Store) version() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := max(uint64(time.Now().UnixNano()), s.last+1)
	s.last = v
	return v
}

func (s *Store) err(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("run history on clickhouse %s: %s: %w", s.c.Where(), what, err)
}

// migrations[v-1] takes the database from schema version v-1 to v. Time is
// Int64 milliseconds; 18.16 has no Bool (UInt8) and no DateTime64.
var migrations = [][]string{
	{ // 1
		`CREATE TABLE IF NOT EXISTS history_logs (path String, size Int64, mtime Int64, fingerprint String,
			in_progress UInt8, runs String, error String, indexed_at Int64, version UInt64, deleted UInt8)
			ENGINE = ReplacingMergeTree(version) ORDER BY path`,
		`CREATE TABLE IF NOT EXISTS history_resume (path String, state String, version UInt64, deleted UInt8)
			ENGINE = ReplacingMergeTree(version) ORDER BY path`,
		`CREATE TABLE IF NOT EXISTS history_runs (key String, log String, app_id String, attempt String, name String,
			user String, engine String, app_version String, platform String, status String, start Int64, end Int64,
			duration_ms Int64, last_updated Int64, hosts Int64, executors Int64, cores Int64, exec_memory_mb Int64,
			instance_types String, jobs Int64, failed_jobs Int64, stages Int64, failed_stages Int64, tasks Int64,
			failed_tasks Int64, input_bytes Int64, output_bytes Int64, shuffle_read Int64, shuffle_write Int64,
			spill_bytes Int64, task_time_ms Int64, cpu_time_ms Int64, gc_time_ms Int64, name_key String,
			job_key String, worst Int64, findings String, version UInt64, deleted UInt8)
			ENGINE = ReplacingMergeTree(version) ORDER BY key`,
		`CREATE TABLE IF NOT EXISTS history_stages (run String, gen UInt64, ord Int64, stage Int64, attempt Int64,
			name String, signature String, class String, status String, tasks Int64, failed_tasks Int64,
			duration_ms Int64, q0 Float64, q25 Float64, q50 Float64, q75 Float64, q100 Float64, input_bytes Int64,
			output_bytes Int64, shuffle_read Int64, shuffle_write Int64, input_records Int64, output_records Int64,
			spill_bytes Int64, run_time_ms Int64, cpu_time_ms Int64, gc_time_ms Int64)
			ENGINE = MergeTree ORDER BY (run, gen, ord)`,
		`CREATE TABLE IF NOT EXISTS history_host_stages (run String, gen UInt64, host String, stage Int64,
			attempt Int64, tasks Int64, sum_ms Float64, sumsq_ms Float64, sum_log Float64, sumsq_log Float64,
			min_ms Int64, max_ms Int64, bytes Int64)
			ENGINE = MergeTree ORDER BY (host, run, gen)`,
		`CREATE TABLE IF NOT EXISTS history_dags (job_key String, engine String, name_key String, dag String)
			ENGINE = ReplacingMergeTree ORDER BY job_key`,
	},
	{ // 2: per-host facts; every log is read again by the next index pass to fill them (a newer state without
		// its time and fingerprint)
		`CREATE TABLE IF NOT EXISTS history_host_facts (run String, gen UInt64, host String, rack String,
			executors Int64, cores Int64, memory_mb Int64, instance_type String)
			ENGINE = MergeTree ORDER BY (run, gen, host)`,
		`INSERT INTO history_logs (path, size, mtime, fingerprint, in_progress, runs, error, indexed_at, version, deleted)
			SELECT path, size, -1, '', in_progress, runs, error, indexed_at, version + 1, deleted FROM history_logs FINAL`,
	},
	{ // 3: what explaining a run needs (stage times, driver time, configuration, SQL plans), in tables of their
		// own (18.16 has no ADD COLUMN IF NOT EXISTS); every log is read again
		`CREATE TABLE IF NOT EXISTS history_stage_times (run String, gen UInt64, stage Int64, attempt Int64,
			submit_ms Int64, complete_ms Int64, slot_ms Int64, wait_ms Int64, failed_ms Int64, task_bytes_median Int64,
			last_host String, last_ms Int64, last_bytes Int64, last_gc_ms Int64, last_retry_ms Int64)
			ENGINE = MergeTree ORDER BY (run, gen, stage, attempt)`,
		`CREATE TABLE IF NOT EXISTS history_run_context (run String, gen UInt64, driver_ms Int64, executor_wait_ms Int64,
			config String) ENGINE = MergeTree ORDER BY (run, gen)`,
		`CREATE TABLE IF NOT EXISTS history_configs (id String, config String) ENGINE = ReplacingMergeTree ORDER BY id`,
		`CREATE TABLE IF NOT EXISTS history_queries (run String, gen UInt64, ord Int64, exec_id Int64, description String,
			wall_ms Int64, stages String, plan String) ENGINE = MergeTree ORDER BY (run, gen, ord)`,
		`INSERT INTO history_logs (path, size, mtime, fingerprint, in_progress, runs, error, indexed_at, version, deleted)
			SELECT path, size, -1, '', in_progress, runs, error, indexed_at, version + 1, deleted FROM history_logs FINAL`,
	},
}

// migrate brings the database to history.SchemaVersion. Statements are
// idempotent (IF NOT EXISTS), so two processes migrating at once are safe.
func (s *Store) migrate(ctx context.Context) error {
	if err := s.c.Exec(ctx, `CREATE TABLE IF NOT EXISTS history_meta (key String, value String, version UInt64)
		ENGINE = ReplacingMergeTree(version) ORDER BY key`, nil); err != nil {
		return s.err("migrate", err)
	}
	rc, err := s.c.Do(ctx, `SELECT value FROM history_meta FINAL WHERE key = 'schema_version' FORMAT RowBinary`, nil)
	if err != nil {
		return s.err("read schema version", err)
	}
	d := clickhttp.NewRowReader(rc)
	v := 0
	end, err := d.AtEOF()
	if err == nil && !end {
		var text string
		if text, err = d.String(); err == nil {
			if v, err = strconv.Atoi(text); err != nil {
				err = fmt.Errorf("schema version %q: want a number", text)
			}
		}
	}
	rc.Close()
	if err != nil {
		return s.err("read schema version", err)
	}
	if v > history.SchemaVersion {
		return history.NewerSchemaError("run history on clickhouse "+s.c.Where(), v)
	}
	for ; v < history.SchemaVersion; v++ {
		for _, stmt := range migrations[v] {
			if err := s.c.Exec(ctx, stmt, nil); err != nil {
				return s.err(fmt.Sprintf("migrate to schema version %d", v+1), err)
			}
		}
		row := clickhttp.AppendString(nil, "schema_version")
		row = clickhttp.AppendString(row, strconv.Itoa(v+1))
		row = clickhttp.AppendUint64(row, s.version())
		if err := s.c.Exec(ctx, `INSERT INTO history_meta (key, value, version) FORMAT RowBinary`, row); err != nil {
			return s.err("migrate", err)
		}
	}
	return nil
}
