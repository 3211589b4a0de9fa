// Package sqlite keeps the run history in one SQLite file (modernc.org/sqlite,
// pure Go, WAL mode), beside or inside the sample store's file. Every Put is
// one immediate transaction, so two indexers (processes or goroutines) can
// share a file: SQLite serializes their writes, and readers see either the
// old or the new state of a log, never a mix.
package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/clusterlens/clusterlens/internal/history"
)

// Store is a history.Store in a SQLite file.
type Store struct {
	path string
	db   *sql.DB

	mu    sync.Mutex
	hosts map[string]int64 // host name -> id, as stored
}

var _ history.Store = (*Store)(nil)

// Open opens (creating if needed) the run history in the SQLite file at
// path, migrating an older schema forward; a file written by a newer
// schema is refused with history.ErrNewerSchema.
func Open(ctx context.Context, path string) (*Store, error) {
	where := fmt.Sprintf("run history %q", path)
	if path == "" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("%s: want a file path without '?' or '#'", where)
	}
	pragmas := url.Values{"_pragma": {"busy_timeout(30000)", "journal_mode(WAL)", "synchronous(NORMAL)"}}
	db, err := sql.Open("sqlite", "file:"+path+"?"+pragmas.Encode()+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	db.SetMaxOpenConns(4)
	// A new connection sets WAL mode, which SQLite refuses at once with
	// SQLITE_BUSY (no busy handler) while another process creates the
	// file: such a refusal is retried within the busy timeout.
	err = migrate(ctx, db, where)
	for deadline := time.Now().Add(30 * time.Second); isBusy(err) && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		err = migrate(ctx, db, where)
	}
	if err != nil {
		db.Close()
		return nil, err
	}
	return &Store{path: path, db: db, hosts: map[string]int64{}}, nil
}

// isBusy tells SQLite's SQLITE_BUSY, any extended code of it.
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == 5
}

// Close closes the file.
func (s *Store) Close() error { return s.db.Close() }

// Logs returns every log's state.
func (s *Store) Logs(ctx context.Context) ([]history.LogState, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT path, size, mtime, fingerprint, in_progress, runs, error, indexed_at FROM history_logs ORDER BY path`)
	if err != nil {
		return nil, s.err("read logs", err)
	}
	defer rows.Close()
	var out []history.LogState
	for rows.Next() {
		var st history.LogState
		var runs string
		if err := rows.Scan(&st.Path, &st.Size, &st.ModTime, &st.Fingerprint, &st.InProgress, &runs, &st.Error, &st.IndexedAt); err != nil {
			return nil, s.err("read logs", err)
		}
		if err := json.Unmarshal([]byte(runs), &st.Runs); err != nil {
			return nil, s.err("read logs", fmt.Errorf("runs of %q: %w", st.Path, err))
		}
		out = append(out, st)
	}
	return out, s.err("read logs", rows.Err())
}

// Put replaces what the store holds of the entries' logs in one
// transaction.
func (s *Store) Put(ctx context.Context, entries ...history.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	what := "put " + entries[0].State.Path
	if len(entries) > 1 {
		what += fmt.Sprintf(" and %d other logs", len(entries)-1)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.err(what, err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	newHosts := map[string]int64{}
	for _, e := range entries {
		if err := s.put(ctx, tx, e.State, e.Runs, newHosts); err != nil {
			return s.err("put "+e.State.Path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.err(what, err)
	}
	s.mu.Lock()
	for name, id := range newHosts {
		s.hosts[name] = id
	}
	s.mu.Unlock()
	return nil
}

// put writes a log's state and runs in tx; host names it adds are put in
// newHosts, to be cached once tx commits.
func (s *Store) put(ctx context.Context, tx *sql.Tx, st history.LogState, runs []*history.Run, newHosts map[string]int64) error {
	keys := make([]string, 0, len(runs))
	for _, r := range runs {
		keys = append(keys, r.Key)
	}
	// The log's earlier runs, and runs with these keys read from other logs.
	if err := deleteRuns(ctx, tx, `log = ? OR key IN (SELECT value FROM json_each(?))`, st.Path, jsonText(keys)); err != nil {
		return err
	}
	for _, r := range runs {
		if err := s.insertRun(ctx, tx, r, newHosts); err != nil {
			return fmt.Errorf("run %s: %w", r.Key, err)
		}
	}
	st.Runs = keys
	_, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO history_logs (path, size, mtime, fingerprint, in_progress, runs, error, indexed_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, st.Path, st.Size, st.ModTime, st.Fingerprint, st.InProgress, jsonText(keys), st.Error, st.IndexedAt)
	return err
}

// deleteRuns removes the runs matching where, with their stages and host rows.
func deleteRuns(ctx context.Context, tx *sql.Tx, where string, args ...any) error {
	sel := `SELECT id FROM history_runs WHERE ` + where
	for _, stmt := range []string{
		`DELETE FROM history_stages WHERE run IN (` + sel + `)`,
		`DELETE FROM history_host_stages WHERE run IN (` + sel + `)`,
		`DELETE FROM history_host_facts WHERE run IN (` + sel + `)`,
		`DELETE FROM history_stage_times WHERE run IN (` + sel + `)`,
		`DELETE FROM history_run_context WHERE run IN (` + sel + `)`,
		`DELETE FROM history_queries WHERE run IN (` + sel + `)`,
		`DELETE FROM history_runs WHERE ` + where,
	} {
		if _, err := tx.ExecContext(ctx, stmt, args...); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) insertRun(ctx context.Context, tx *sql.Tx, r *history.Run, newHosts map[string]int64) error {
	c, t := &r.Cluster, &r.Totals
	res, err := tx.ExecContext(ctx, `INSERT INTO history_runs (key, log, app_id, attempt, name, user, engine, version, platform,
		status, start, end, duration_ms, last_updated, hosts, executors, cores, exec_memory_mb, instance_types, jobs, failed_jobs,
		stages, failed_stages, tasks, failed_tasks, input_bytes, output_bytes, shuffle_read, shuffle_write, spill_bytes,
		task_time_ms, cpu_time_ms, gc_time_ms, name_key, job_key, worst, findings)
		VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
		r.Key, r.Log, r.ID, r.Attempt, r.Name, r.User, r.Engine, r.Version, r.Platform, string(r.Status), r.Start, r.End,
		r.DurationMs, r.LastUpdated, c.Hosts, c.Executors, c.Cores, c.ExecutorMemoryMB, c.InstanceTypes, t.Jobs,
		t.FailedJobs, t.Stages, t.FailedStages, t.Tasks, t.FailedTasks, t.InputBytes, t.OutputBytes, t.ShuffleReadBytes,
		t.ShuffleWriteBytes, t.SpillBytes, t.TaskTimeMs, t.CPUTimeMs, t.GCTimeMs, r.NameKey, r.JobKey, int(r.Worst),
		jsonText(r.Findings))
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	if err := insertRows(ctx, tx, `INSERT INTO history_stages VALUES `, 26, len(r.Stages), func(i int, args []any) []any {
		st := &r.Stages[i]
		return append(args, id, i, st.ID, st.Attempt, st.Name, st.Signature, string(st.Class), st.Status, st.Tasks, st.Failed,
			st.DurationMs, st.Quantiles[0], st.Quantiles[1], st.Quantiles[2], st.Quantiles[3], st.Quantiles[4],
			st.InputBytes, st.OutputBytes, st.ShuffleReadBytes, st.ShuffleWriteBytes, st.InputRecords, st.OutputRecords,
			st.SpillBytes, st.RunTimeMs, st.CPUTimeMs, st.GCTimeMs)
	}); err != nil {
		return fmt.Errorf("stages: %w", err)
	}
	hostIDs := make([]int64, len(r.Hosts))
	for i := range r.Hosts {
		if hostIDs[i], err = s.hostID(ctx, tx, r.Hosts[i].Host, newHosts); err != nil {
			return fmt.Errorf("host %q: %w", r.Hosts[i].Host, err)
		}
	}
	if err := insertRows(ctx, tx, `INSERT INTO history_host_stages VALUES `, 12, len(r.Hosts), func(i int, args []any) []any {
		h := &r.Hosts[i]
		return append(args, id, hostIDs[i], h.Stage, h.Attempt, h.Tasks, h.SumMs, h.SumSqMs, h.SumLog, h.SumSqLog,
			h.MinMs, h.MaxMs, h.Bytes)
	}); err != nil {
		return fmt.Errorf("host stages: %w", err)
	}
	factIDs := make([]int64, len(r.HostFacts))
	for i := range r.HostFacts {
		if factIDs[i], err = s.hostID(ctx, tx, r.HostFacts[i].Host, newHosts); err != nil {
			return fmt.Errorf("host %q: %w", r.HostFacts[i].Host, err)
		}
	}
	if err := insertRows(ctx, tx, `INSERT INTO history_host_facts VALUES `, 7, len(r.HostFacts), func(i int, args []any) []any {
		f := &r.HostFacts[i]
		return append(args, id, factIDs[i], f.Rack, f.Executors, f.Cores, f.MemoryMB, f.InstanceType)
	}); err != nil {
		return fmt.Errorf("host facts: %w", err)
	}
	if err := insertRows(ctx, tx, `INSERT INTO history_stage_times VALUES `, 14, len(r.Stages), func(i int, args []any) []any {
		st := &r.Stages[i]
		t := &st.Times
		return append(args, id, st.ID, st.Attempt, t.SubmitMs, t.CompleteMs, t.SlotMs, t.WaitMs, t.FailedMs, t.TaskBytesMedian,
			t.Last.Host, t.Last.Ms, t.Last.Bytes, t.Last.GCMs, t.Last.RetryMs)
	}); err != nil {
		return fmt.Errorf("stage times: %w", err)
	}
	confID, confText := history.ConfigID(r.Config)
	if confID != "" {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO history_configs (id, config) VALUES (?, ?)`, confID, confText); err != nil {
			return fmt.Errorf("config: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO history_run_context (run, driver_ms, executor_wait_ms, config) VALUES (?, ?, ?, ?)`,
		id, r.DriverMs, r.ExecutorWaitMs, confID); err != nil {
		return fmt.Errorf("run context: %w", err)
	}
	if err := insertRows(ctx, tx, `INSERT INTO history_queries VALUES `, 7, len(r.Queries), func(i int, args []any) []any {
		q := &r.Queries[i]
		return append(args, id, i, q.ID, q.Description, q.WallMs, jsonText(q.Stages), jsonText(q.Plan))
	}); err != nil {
		return fmt.Errorf("queries: %w", err)
	}
	_, err = tx.ExecContext(ctx, `INSERT OR IGNORE INTO history_dags (job_key, engine, name_key, dag) VALUES (?, ?, ?, ?)`,
		r.JobKey, r.Engine, r.NameKey, jsonText(r.DAG))
	return err
}

// rowsPerInsert is how many rows one multi-row INSERT carries (at most 26
// columns each: well under SQLite's 32,766 parameters).
const rowsPerInsert = 256

// insertRows inserts n rows of cols columns each, rowsPerInsert at a time;
// row appends row i's values to args.
func insertRows(ctx context.Context, tx *sql.Tx, prefix string, cols, n int, row func(i int, args []any) []any) error {
	one := "(" + strings.TrimSuffix(strings.Repeat("?,", cols), ",") + ")"
	args := make([]any, 0, cols*rowsPerInsert)
	for i := 0; i < n; i += rowsPerInsert {
		k := min(rowsPerInsert, n-i)
		args = args[:0]
		for j := 0; j < k; j++ {
			args = row(i+j, args)
		}
		stmt := prefix + strings.TrimSuffix(strings.Repeat(one+",", k), ",")
		if _, err := tx.ExecContext(ctx, stmt, args...); err != nil {
			return err
		}
	}
	return nil
}

// hostID returns the id of a host name, adding it when new (and then
// recording it in newHosts).
func (s *Store) hostID(ctx context.Context, tx *sql.Tx, name string, newHosts map[string]int64) (int64, error) {
	s.mu.Lock()
	id, ok := s.hosts[name]
	s.mu.Unlock()
	if ok {
		return id, nil
	}
	if id, ok := newHosts[name]; ok {
		return id, nil
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO history_hosts (name) VALUES (?)`, name); err != nil {
		return 0, err
	}
	if err := tx.QueryRowContext(ctx, `SELECT id FROM history_hosts WHERE name = ?`, name).Scan(&id); err != nil {
		return 0, err
	}
	newHosts[name] = id
	return id, nil
}

// Forget removes a log, its resume state and its runs.
func (s *Store) Forget(ctx context.Context, path string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.err("forget "+path, err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if err := deleteRuns(ctx, tx, `log = ?`, path); err != nil {
		return s.err("forget "+path, err)
	}
	for _, stmt := range []string{`DELETE FROM history_logs WHERE path = ?`, `DELETE FROM history_resume WHERE path = ?`} {
		if _, err := tx.ExecContext(ctx, stmt, path); err != nil {
			return s.err("forget "+path, err)
		}
	}
	return s.err("forget "+path, tx.Commit())
}

// PutResume keeps (or with nil removes) a log's resume state.
func (s *Store) PutResume(ctx context.Context, path string, state []byte) error {
	var err error
	if state == nil {
		_, err = s.db.ExecContext(ctx, `DELETE FROM history_resume WHERE path = ?`, path)
	} else {
		_, err = s.db.ExecContext(ctx, `INSERT OR REPLACE INTO history_resume (path, state) VALUES (?, ?)`, path, state)
	}
	return s.err("resume state of "+path, err)
}

// Resume returns a log's resume state, nil when none.
func (s *Store) Resume(ctx context.Context, path string) ([]byte, error) {
	var b []byte
	err := s.db.QueryRowContext(ctx, `SELECT state FROM history_resume WHERE path = ?`, path).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return b, s.err("resume state of "+path, err)
}

func (s *Store) err(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("run history %q: %s: %w", s.path, what, err)
}

// jsonText is v as JSON text ("null" never: nil slices become []).
func jsonText[T any](v []T) string {
	if v == nil {
		return "[]"
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain structs and strings always marshal
	}
	return string(b)
}
