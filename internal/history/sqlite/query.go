package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/history"
)

// where turns a filter into a WHERE clause over history_runs and its
// arguments.
func where(f history.Filter) (string, []any) {
	var conds []string
	var args []any
	add := func(cond string, a ...any) {
		conds = append(conds, cond)
		args = append(args, a...)
	}
	if f.User != "" {
		add(`user = ?`, f.User)
	}
	if f.Name != "" {
		add(`name LIKE ? ESCAPE '\'`, "%"+likeEscape(f.Name)+"%")
	}
	if f.Status != "" {
		add(`status = ?`, string(f.Status))
	}
	if f.MinSeverity > 0 {
		add(`worst >= ?`, int(f.MinSeverity))
	}
	if f.From != 0 {
		add(`start >= ?`, f.From)
	}
	if f.To != 0 {
		add(`start < ?`, f.To)
	}
	if len(f.JobKeys) > 0 {
		add(`job_key IN (SELECT value FROM json_each(?))`, jsonText(f.JobKeys))
	}
	if len(f.Keys) > 0 {
		add(`key IN (SELECT value FROM json_each(?))`, jsonText(f.Keys))
	}
	if f.Host != "" {
		add(`id IN (SELECT run FROM history_host_stages WHERE host = (SELECT id FROM history_hosts WHERE name = ?))`, f.Host)
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// likeEscape escapes LIKE's wildcards with a backslash.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// Count returns how many runs match f.
func (s *Store) Count(ctx context.Context, f history.Filter) (int, error) {
	w, args := where(f)
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM history_runs`+w, args...).Scan(&n)
	return n, s.err("count runs", err)
}

const runColumns = `id, key, log, app_id, attempt, name, user, engine, version, platform, status, start, end, duration_ms,
	last_updated, hosts, executors, cores, exec_memory_mb, instance_types, jobs, failed_jobs, stages, failed_stages, tasks,
	failed_tasks, input_bytes, output_bytes, shuffle_read, shuffle_write, spill_bytes, task_time_ms, cpu_time_ms,
	gc_time_ms, name_key, job_key, worst, findings`

// Runs returns the runs matching f, newest first (oldest with f.Oldest).
func (s *Store) Runs(ctx context.Context, f history.Filter) ([]*history.Run, error) {
	w, args := where(f)
	order := " ORDER BY start DESC, key DESC"
	if f.Oldest {
		order = " ORDER BY start, key"
	}
	q := `SELECT ` + runColumns + ` FROM history_runs` + w + order
	if f.Limit > 0 || f.Offset > 0 {
		q += " LIMIT ? OFFSET ?"
		limit := f.Limit
		if limit <= 0 {
			limit = -1
		}
		args = append(args, limit, f.Offset)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.err("read runs", err)
	}
	defer rows.Close()
	var out []*history.Run
	var ids []int64
	for rows.Next() {
		r := &history.Run{}
		var id int64
		var status, findings string
		var worst int
		c, t := &r.Cluster, &r.Totals
		if err := rows.Scan(&id, &r.Key, &r.Log, &r.ID, &r.Attempt, &r.Name, &r.User, &r.Engine, &r.Version, &r.Platform,
			&status, &r.Start, &r.End, &r.DurationMs, &r.LastUpdated, &c.Hosts, &c.Executors, &c.Cores,
			&c.ExecutorMemoryMB, &c.InstanceTypes, &t.Jobs, &t.FailedJobs, &t.Stages, &t.FailedStages, &t.Tasks,
			&t.FailedTasks, &t.InputBytes, &t.OutputBytes, &t.ShuffleReadBytes, &t.ShuffleWriteBytes, &t.SpillBytes,
			&t.TaskTimeMs, &t.CPUTimeMs, &t.GCTimeMs, &r.NameKey, &r.JobKey, &worst, &findings); err != nil {
			return nil, s.err("read runs", err)
		}
		r.Status = history.Status(status)
		r.Worst = severity(worst)
		if err := json.Unmarshal([]byte(findings), &r.Findings); err != nil {
			return nil, s.err("read runs", fmt.Errorf("findings of %s: %w", r.Key, err))
		}
		out = append(out, r)
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, s.err("read runs", err)
	}
	if f.Detail && len(out) > 0 {
		if err := s.detail(ctx, out, ids, f.Host); err != nil {
			return nil, s.err("read runs", err)
		}
	}
	return out, nil
}

// detail fills the stages, host rows (only host's, when set) and DAGs of
// runs, whose row ids are ids.
func (s *Store) detail(ctx context.Context, runs []*history.Run, ids []int64, host string) error {
	byID := make(map[int64]*history.Run, len(ids))
	for i, id := range ids {
		byID[id] = runs[i]
	}
	idList := jsonText(ids)
	rows, err := s.db.QueryContext(ctx, `SELECT run, stage, attempt, name, signature, class, status, tasks, failed_tasks,
		duration_ms, q0, q25, q50, q75, q100, input_bytes, output_bytes, shuffle_read, shuffle_write, input_records,
		output_records, spill_bytes, run_time_ms, cpu_time_ms, gc_time_ms
		FROM history_stages WHERE run IN (SELECT value FROM json_each(?)) ORDER BY run, ord`, idList)
	if err != nil {
		return err
	}
	if err := scanStages(rows, byID); err != nil {
		return err
	}
	hq := `SELECT hs.run, h.name, hs.stage, hs.attempt, hs.tasks, hs.sum_ms, hs.sumsq_ms, hs.sum_log, hs.sumsq_log,
		hs.min_ms, hs.max_ms, hs.bytes FROM history_host_stages hs JOIN history_hosts h ON h.id = hs.host
		WHERE hs.run IN (SELECT value FROM json_each(?))`
	args := []any{idList}
	if host != "" {
		hq += ` AND h.name = ?`
		args = append(args, host)
	}
	rows, err = s.db.QueryContext(ctx, hq+` ORDER BY hs.run, hs.stage, hs.attempt, h.name`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var h history.HostStage
		if err := rows.Scan(&id, &h.Host, &h.Stage, &h.Attempt, &h.Tasks, &h.SumMs, &h.SumSqMs, &h.SumLog, &h.SumSqLog,
			&h.MinMs, &h.MaxMs, &h.Bytes); err != nil {
			return err
		}
		r := byID[id]
		r.Hosts = append(r.Hosts, h)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if err := s.hostFacts(ctx, byID, idList, host); err != nil {
		return err
	}
	if err := s.explainDetail(ctx, byID, idList); err != nil {
		return err
	}
	dags := map[string][]string{}
	for _, r := range runs {
		dags[r.JobKey] = nil
	}
	for k := range dags {
		var text string
		if err := s.db.QueryRowContext(ctx, `SELECT dag FROM history_dags WHERE job_key = ?`, k).Scan(&text); err != nil {
			return fmt.Errorf("dag of %s: %w", k, err)
		}
		var dag []string
		if err := json.Unmarshal([]byte(text), &dag); err != nil {
			return fmt.Errorf("dag of %s: %w", k, err)
		}
		dags[k] = dag
	}
	for _, r := range runs {
		r.DAG = dags[r.JobKey]
	}
	return nil
}

// hostFacts fills the host facts of the runs in byID (ids in idList; only
// host's when set).
func (s *Store) hostFacts(ctx context.Context, byID map[int64]*history.Run, idList, host string) error {
	q := `SELECT f.run, h.name, f.rack, f.executors, f.cores, f.memory_mb, f.instance_type
		FROM history_host_facts f JOIN history_hosts h ON h.id = f.host WHERE f.run IN (SELECT value FROM json_each(?))`
	args := []any{idList}
	if host != "" {
		q += ` AND h.name = ?`
		args = append(args, host)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY f.run, h.name`, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var f history.HostFact
		if err := rows.Scan(&id, &f.Host, &f.Rack, &f.Executors, &f.Cores, &f.MemoryMB, &f.InstanceType); err != nil {
			return err
		}
		r := byID[id]
		r.HostFacts = append(r.HostFacts, f)
	}
	return rows.Err()
}

// explainDetail fills the stage times, driver times, configurations and
// queries of the runs in byID (ids in idList).
func (s *Store) explainDetail(ctx context.Context, byID map[int64]*history.Run, idList string) error {
	rows, err := s.db.QueryContext(ctx, `SELECT run, stage, attempt, submit_ms, complete_ms, slot_ms, wait_ms, failed_ms,
		task_bytes_median, last_host, last_ms, last_bytes, last_gc_ms, last_retry_ms
		FROM history_stage_times WHERE run IN (SELECT value FROM json_each(?))`, idList)
	if err != nil {
		return err
	}
	defer rows.Close()
	type key struct {
		run            int64
		stage, attempt int32
	}
	times := map[key]history.StageTimes{}
	for rows.Next() {
		var k key
		var t history.StageTimes
		if err := rows.Scan(&k.run, &k.stage, &k.attempt, &t.SubmitMs, &t.CompleteMs, &t.SlotMs, &t.WaitMs, &t.FailedMs,
			&t.TaskBytesMedian, &t.Last.Host, &t.Last.Ms, &t.Last.Bytes, &t.Last.GCMs, &t.Last.RetryMs); err != nil {
			return err
		}
		times[k] = t
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for id, r := range byID {
		for i := range r.Stages {
			st := &r.Stages[i]
			st.Times = times[key{id, st.ID, st.Attempt}]
		}
	}
	rows, err = s.db.QueryContext(ctx, `SELECT c.run, c.driver_ms, c.executor_wait_ms, coalesce(f.config, '')
		FROM history_run_context c LEFT JOIN history_configs f ON f.id = c.config
		WHERE c.run IN (SELECT value FROM json_each(?))`, idList)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var conf string
		var driver, wait int64
		if err := rows.Scan(&id, &driver, &wait, &conf); err != nil {
			return err
		}
		r := byID[id]
		r.DriverMs, r.ExecutorWaitMs = driver, wait
		if r.Config, err = history.ParseConfig(conf); err != nil {
			return fmt.Errorf("run %s: %w", r.Key, err)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows, err = s.db.QueryContext(ctx, `SELECT run, exec_id, description, wall_ms, stages, plan FROM history_queries
		WHERE run IN (SELECT value FROM json_each(?)) ORDER BY run, ord`, idList)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var q history.Query
		var stages, plan string
		if err := rows.Scan(&id, &q.ID, &q.Description, &q.WallMs, &stages, &plan); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(stages), &q.Stages); err != nil {
			return fmt.Errorf("query %d's stages: %w", q.ID, err)
		}
		if err := json.Unmarshal([]byte(plan), &q.Plan); err != nil {
			return fmt.Errorf("query %d's plan: %w", q.ID, err)
		}
		byID[id].Queries = append(byID[id].Queries, q)
	}
	return rows.Err()
}

func scanStages(rows *sql.Rows, byID map[int64]*history.Run) error {
	defer rows.Close()
	for rows.Next() {
		var id int64
		var st history.Stage
		var class string
		q := &st.Quantiles
		if err := rows.Scan(&id, &st.ID, &st.Attempt, &st.Name, &st.Signature, &class, &st.Status, &st.Tasks, &st.Failed,
			&st.DurationMs, &q[0], &q[1], &q[2], &q[3], &q[4], &st.InputBytes, &st.OutputBytes, &st.ShuffleReadBytes,
			&st.ShuffleWriteBytes, &st.InputRecords, &st.OutputRecords, &st.SpillBytes, &st.RunTimeMs, &st.CPUTimeMs,
			&st.GCTimeMs); err != nil {
			return err
		}
		st.Class = history.Class(class)
		r := byID[id]
		r.Stages = append(r.Stages, st)
	}
	return rows.Err()
}

// Briefs returns the runs matching f, oldest first, with few columns.
func (s *Store) Briefs(ctx context.Context, f history.Filter) ([]history.Brief, error) {
	w, args := where(f)
	rows, err := s.db.QueryContext(ctx, `SELECT key, app_id, attempt, name, user, engine, version, platform, status, job_key, start, end,
		duration_ms, last_updated, log, worst FROM history_runs`+w+` ORDER BY start, key`, args...)
	if err != nil {
		return nil, s.err("read runs", err)
	}
	defer rows.Close()
	var out []history.Brief
	for rows.Next() {
		var b history.Brief
		var status string
		var worst int
		if err := rows.Scan(&b.Key, &b.ID, &b.Attempt, &b.Name, &b.User, &b.Engine, &b.Version, &b.Platform, &status, &b.JobKey, &b.Start,
			&b.End, &b.DurationMs, &b.LastUpdated, &b.Log, &worst); err != nil {
			return nil, s.err("read runs", err)
		}
		b.Status = history.Status(status)
		b.Worst = severity(worst)
		out = append(out, b)
	}
	return out, s.err("read runs", rows.Err())
}

// severity converts a stored severity, clamping unknown values.
func severity(v int) finding.Severity {
	return finding.Severity(max(0, min(v, int(finding.Critical))))
}

// Variants returns every JobKey with its DAG and number of runs.
func (s *Store) Variants(ctx context.Context) ([]history.Variant, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT d.job_key, d.engine, d.name_key, d.dag, count(r.id)
		FROM history_dags d JOIN history_runs r ON r.job_key = d.job_key GROUP BY d.job_key ORDER BY d.job_key`)
	if err != nil {
		return nil, s.err("read variants", err)
	}
	defer rows.Close()
	var out []history.Variant
	for rows.Next() {
		var v history.Variant
		var dag string
		if err := rows.Scan(&v.JobKey, &v.Engine, &v.NameKey, &dag, &v.Runs); err != nil {
			return nil, s.err("read variants", err)
		}
		if err := json.Unmarshal([]byte(dag), &v.DAG); err != nil {
			return nil, s.err("read variants", fmt.Errorf("dag of %s: %w", v.JobKey, err))
		}
		out = append(out, v)
	}
	return out, s.err("read variants", rows.Err())
}
