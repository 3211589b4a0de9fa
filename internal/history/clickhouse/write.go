package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clusterlens/clusterlens/internal/clickhttp"
	"github.com/clusterlens/clusterlens/internal/history"
)

// Put writes the entries' logs: stage and host rows, then runs (and
// tombstones for the logs' runs not given again), then the logs' states,
// one insert per table for all entries.
func (s *Store) Put(ctx context.Context, entries ...history.Entry) error {
	if len(entries) == 0 {
		return nil
	}
	what := "put " + entries[0].State.Path
	if len(entries) > 1 {
		what += fmt.Sprintf(" and %d other logs", len(entries)-1)
	}
	paths := make([]string, len(entries))
	for i, e := range entries {
		paths[i] = e.State.Path
	}
	held, err := s.keysOfLogs(ctx, paths)
	if err != nil {
		return s.err(what, err)
	}
	var stages, hosts, facts, rows, dags, logs, times, contexts, configs, queries []byte
	for _, e := range entries {
		v := s.version()
		st := e.State
		keys := make([]string, len(e.Runs))
		given := make(map[string]bool, len(e.Runs))
		for i, r := range e.Runs {
			keys[i] = r.Key
			given[r.Key] = true
			for j := range r.Stages {
				stages = appendStage(stages, r.Key, v, j, &r.Stages[j])
			}
			for j := range r.Hosts {
				hosts = appendHostStage(hosts, r.Key, v, &r.Hosts[j])
			}
			for j := range r.HostFacts {
				facts = appendHostFact(facts, r.Key, v, &r.HostFacts[j])
			}
			for j := range r.Stages {
				times = appendStageTimes(times, r.Key, v, &r.Stages[j])
			}
			confID, confText := history.ConfigID(r.Config)
			if confID != "" {
				configs = clickhttp.AppendString(configs, confID)
				configs = clickhttp.AppendString(configs, confText)
			}
			contexts = clickhttp.AppendString(contexts, r.Key)
			contexts = clickhttp.AppendUint64(contexts, v)
			contexts = clickhttp.AppendInt64(contexts, r.DriverMs)
			contexts = clickhttp.AppendInt64(contexts, r.ExecutorWaitMs)
			contexts = clickhttp.AppendString(contexts, confID)
			for j := range r.Queries {
				queries = appendQuery(queries, r.Key, v, j, &r.Queries[j])
			}
			rows = appendRun(rows, r, v)
			dags = clickhttp.AppendString(dags, r.JobKey)
			dags = clickhttp.AppendString(dags, r.Engine)
			dags = clickhttp.AppendString(dags, r.NameKey)
			dags = clickhttp.AppendString(dags, jsonText(r.DAG))
		}
		for _, k := range held[st.Path] {
			if !given[k] {
				rows = appendRun(rows, &history.Run{Key: k}, v, true)
			}
		}
		st.Runs = keys
		logs = appendLog(logs, &st, v, false)
	}
	for _, ins := range []struct {
		table, cols string
		rows        []byte
	}{
		{"history_stages", stageColumns, stages},
		{"history_host_stages", hostColumns, hosts},
		{"history_host_facts", factColumns, facts},
		{"history_stage_times", timesColumns, times},
		{"history_run_context", "run, gen, driver_ms, executor_wait_ms, config", contexts},
		{"history_configs", "id, config", configs},
		{"history_queries", queryColumns, queries},
		{"history_dags", "job_key, engine, name_key, dag", dags},
		{"history_runs", runColumns + ", version, deleted", rows},
		{"history_logs", logColumns + ", version, deleted", logs},
	} {
		if len(ins.rows) == 0 {
			continue
		}
		if err := s.c.Exec(ctx, "INSERT INTO "+ins.table+" ("+ins.cols+") FORMAT RowBinary", ins.rows); err != nil {
			return s.err(what+": insert into "+ins.table, err)
		}
	}
	return nil
}

// keysOfLogs returns the keys of the live runs held from each of paths.
func (s *Store) keysOfLogs(ctx context.Context, paths []string) (map[string][]string, error) {
	out := map[string][]string{}
	err := s.query(ctx, `SELECT log, key FROM history_runs FINAL`+where(history.Filter{})+` AND log IN `+inList(paths)+` FORMAT RowBinary`,
		func(d *clickhttp.RowReader) error {
			log, err := d.String()
			if err != nil {
				return err
			}
			key, err := d.String()
			out[log] = append(out[log], key)
			return err
		})
	return out, err
}

// Forget writes tombstones for a log's state, resume state and runs.
func (s *Store) Forget(ctx context.Context, path string) error {
	v := s.version()
	held, err := s.keysOfLogs(ctx, []string{path})
	if err != nil {
		return s.err("forget "+path, err)
	}
	var rows []byte
	for _, k := range held[path] {
		rows = appendRun(rows, &history.Run{Key: k}, v, true)
	}
	if len(rows) > 0 {
		if err := s.c.Exec(ctx, "INSERT INTO history_runs ("+runColumns+", version, deleted) FORMAT RowBinary", rows); err != nil {
			return s.err("forget "+path, err)
		}
	}
	if err := s.putResume(ctx, path, nil, v); err != nil {
		return s.err("forget "+path, err)
	}
	gone := history.LogState{Path: path}
	if err := s.c.Exec(ctx, "INSERT INTO history_logs ("+logColumns+", version, deleted) FORMAT RowBinary", appendLog(nil, &gone, v, true)); err != nil {
		return s.err("forget "+path, err)
	}
	return nil
}

// PutResume keeps (or with nil removes) a log's resume state.
func (s *Store) PutResume(ctx context.Context, path string, state []byte) error {
	return s.err("resume state of "+path, s.putResume(ctx, path, state, s.version()))
}

func (s *Store) putResume(ctx context.Context, path string, state []byte, v uint64) error {
	row := clickhttp.AppendString(nil, path)
	row = clickhttp.AppendString(row, string(state))
	row = clickhttp.AppendUint64(row, v)
	row = clickhttp.AppendBool(row, state == nil)
	return s.c.Exec(ctx, "INSERT INTO history_resume (path, state, version, deleted) FORMAT RowBinary", row)
}

const logColumns = `path, size, mtime, fingerprint, in_progress, runs, error, indexed_at`

func appendLog(b []byte, st *history.LogState, v uint64, deleted bool) []byte {
	b = clickhttp.AppendString(b, st.Path)
	b = clickhttp.AppendInt64(b, st.Size)
	b = clickhttp.AppendInt64(b, st.ModTime)
	b = clickhttp.AppendString(b, st.Fingerprint)
	b = clickhttp.AppendBool(b, st.InProgress)
	b = clickhttp.AppendString(b, jsonText(st.Runs))
	b = clickhttp.AppendString(b, st.Error)
	b = clickhttp.AppendInt64(b, st.IndexedAt)
	b = clickhttp.AppendUint64(b, v)
	return clickhttp.AppendBool(b, deleted)
}

const runColumns = `key, log, app_id, attempt, name, user, engine, app_version, platform, status, start, end, duration_ms,
	last_updated, hosts, executors, cores, exec_memory_mb, instance_types, jobs, failed_jobs, stages, failed_stages, tasks,
	failed_tasks, input_bytes, output_bytes, shuffle_read, shuffle_write, spill_bytes, task_time_ms, cpu_time_ms,
	gc_time_ms, name_key, job_key, worst, findings`

// appendRun appends r as a row of history_runs with version v; a
// tombstone (deleted) needs only the key.
func appendRun(b []byte, r *history.Run, v uint64, deleted ...bool) []byte {
	c, t := &r.Cluster, &r.Totals
	for _, str := range []string{r.Key, r.Log, r.ID, r.Attempt, r.Name, r.User, r.Engine, r.Version, r.Platform, string(r.Status)} {
		b = clickhttp.AppendString(b, str)
	}
	for _, n := range []int64{r.Start, r.End, r.DurationMs, r.LastUpdated, int64(c.Hosts), int64(c.Executors), int64(c.Cores), c.ExecutorMemoryMB} {
		b = clickhttp.AppendInt64(b, n)
	}
	b = clickhttp.AppendString(b, c.InstanceTypes)
	for _, n := range []int64{int64(t.Jobs), int64(t.FailedJobs), int64(t.Stages), int64(t.FailedStages), int64(t.Tasks),
		int64(t.FailedTasks), t.InputBytes, t.OutputBytes, t.ShuffleReadBytes, t.ShuffleWriteBytes, t.SpillBytes,
		t.TaskTimeMs, t.CPUTimeMs, t.GCTimeMs} {
		b = clickhttp.AppendInt64(b, n)
	}
	b = clickhttp.AppendString(b, r.NameKey)
	b = clickhttp.AppendString(b, r.JobKey)
	b = clickhttp.AppendInt64(b, int64(r.Worst))
	b = clickhttp.AppendString(b, jsonText(r.Findings))
	b = clickhttp.AppendUint64(b, v)
	return clickhttp.AppendBool(b, len(deleted) > 0 && deleted[0])
}

const stageColumns = `run, gen, ord, stage, attempt, name, signature, class, status, tasks, failed_tasks, duration_ms,
	q0, q25, q50, q75, q100, input_bytes, output_bytes, shuffle_read, shuffle_write, input_records, output_records,
	spill_bytes, run_time_ms, cpu_time_ms, gc_time_ms`

func appendStage(b []byte, run string, gen uint64, ord int, st *history.Stage) []byte {
	b = clickhttp.AppendString(b, run)
	b = clickhttp.AppendUint64(b, gen)
	for _, n := range []int64{int64(ord), int64(st.ID), int64(st.Attempt)} {
		b = clickhttp.AppendInt64(b, n)
	}
	for _, str := range []string{st.Name, st.Signature, string(st.Class), st.Status} {
		b = clickhttp.AppendString(b, str)
	}
	for _, n := range []int64{int64(st.Tasks), int64(st.Failed), st.DurationMs} {
		b = clickhttp.AppendInt64(b, n)
	}
	for _, q := range st.Quantiles {
		b = clickhttp.AppendFloat64(b, q)
	}
	for _, n := range []int64{st.InputBytes, st.OutputBytes, st.ShuffleReadBytes, st.ShuffleWriteBytes, st.InputRecords,
		st.OutputRecords, st.SpillBytes, st.RunTimeMs, st.CPUTimeMs, st.GCTimeMs} {
		b = clickhttp.AppendInt64(b, n)
	}
	return b
}

const hostColumns = `run, gen, host, stage, attempt, tasks, sum_ms, sumsq_ms, sum_log, sumsq_log, min_ms, max_ms, bytes`

func appendHostStage(b []byte, run string, gen uint64, h *history.HostStage) []byte {
	b = clickhttp.AppendString(b, run)
	b = clickhttp.AppendUint64(b, gen)
	b = clickhttp.AppendString(b, h.Host)
	for _, n := range []int64{int64(h.Stage), int64(h.Attempt), int64(h.Tasks)} {
		b = clickhttp.AppendInt64(b, n)
	}
	for _, f := range []float64{h.SumMs, h.SumSqMs, h.SumLog, h.SumSqLog} {
		b = clickhttp.AppendFloat64(b, f)
	}
	for _, n := range []int64{h.MinMs, h.MaxMs, h.Bytes} {
		b = clickhttp.AppendInt64(b, n)
	}
	return b
}

const factColumns = `run, gen, host, rack, executors, cores, memory_mb, instance_type`

func appendHostFact(b []byte, run string, gen uint64, f *history.HostFact) []byte {
	b = clickhttp.AppendString(b, run)
	b = clickhttp.AppendUint64(b, gen)
	b = clickhttp.AppendString(b, f.Host)
	b = clickhttp.AppendString(b, f.Rack)
	for _, n := range []int64{int64(f.Executors), int64(f.Cores), f.MemoryMB} {
		b = clickhttp.AppendInt64(b, n)
	}
	return clickhttp.AppendString(b, f.InstanceType)
}

const timesColumns = `run, gen, stage, attempt, submit_ms, complete_ms, slot_ms, wait_ms, failed_ms, task_bytes_median,
	last_host, last_ms, last_bytes, last_gc_ms, last_retry_ms`

func appendStageTimes(b []byte, run string, gen uint64, st *history.Stage) []byte {
	t := &st.Times
	b = clickhttp.AppendString(b, run)
	b = clickhttp.AppendUint64(b, gen)
	for _, n := range []int64{int64(st.ID), int64(st.Attempt), t.SubmitMs, t.CompleteMs, t.SlotMs, t.WaitMs, t.FailedMs, t.TaskBytesMedian} {
		b = clickhttp.AppendInt64(b, n)
	}
	b = clickhttp.AppendString(b, t.Last.Host)
	for _, n := range []int64{t.Last.Ms, t.Last.Bytes, t.Last.GCMs, t.Last.RetryMs} {
		b = clickhttp.AppendInt64(b, n)
	}
	return b
}

const queryColumns = `run, gen, ord, exec_id, description, wall_ms, stages, plan`

func appendQuery(b []byte, run string, gen uint64, ord int, q *history.Query) []byte {
	b = clickhttp.AppendString(b, run)
	b = clickhttp.AppendUint64(b, gen)
	b = clickhttp.AppendInt64(b, int64(ord))
	b = clickhttp.AppendInt64(b, q.ID)
	b = clickhttp.AppendString(b, q.Description)
	b = clickhttp.AppendInt64(b, q.WallMs)
	b = clickhttp.AppendString(b, jsonText(q.Stages))
	return clickhttp.AppendString(b, jsonText(q.Plan))
}

// jsonText is v as JSON (nil slices as []).
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

// inList renders strings as a parenthesized list of literals for IN.
func inList(vals []string) string {
	lits := make([]string, len(vals))
	for i, v := range vals {
		lits[i] = clickhttp.Quote(v)
	}
	return "(" + strings.Join(lits, ", ") + ")"
}
