package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clusterlens/clusterlens/internal/clickhttp"
	"github.com/clusterlens/clusterlens/internal/finding"
	"github.com/clusterlens/clusterlens/internal/history"
)

// query runs q (which must end in FORMAT RowBinary) and calls row for each
// row until the answer ends.
func (s *Store) query(ctx context.Context, q string, row func(d *clickhttp.RowReader) error) error {
	rc, err := s.c.Do(ctx, q, nil)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := clickhttp.NewRowReader(rc)
	for {
		end, err := d.AtEOF()
		if err != nil {
			return err
		}
		if end {
			return nil
		}
		if err := row(d); err != nil {
			return err
		}
	}
}

// keys returns the keys of the runs that the rest of a query (its WHERE,
// ORDER BY and LIMIT clauses) selects.
func (s *Store) keys(ctx context.Context, rest string) ([]string, error) {
	var out []string
	err := s.query(ctx, `SELECT key FROM history_runs FINAL`+rest+` FORMAT RowBinary`,
		func(d *clickhttp.RowReader) error {
			k, err := d.String()
			out = append(out, k)
			return err
		})
	return out, err
}

// Logs returns every log's state.
func (s *Store) Logs(ctx context.Context) ([]history.LogState, error) {
	var out []history.LogState
	err := s.query(ctx, `SELECT `+logColumns+` FROM history_logs FINAL WHERE deleted = 0 ORDER BY path FORMAT RowBinary`,
		func(d *clickhttp.RowReader) error {
			var st history.LogState
			var runs string
			r := reader{d: d}
			r.str(&st.Path)
			r.int(&st.Size)
			r.int(&st.ModTime)
			r.str(&st.Fingerprint)
			r.bool(&st.InProgress)
			r.str(&runs)
			r.str(&st.Error)
			r.int(&st.IndexedAt)
			if r.err == nil {
				r.err = json.Unmarshal([]byte(runs), &st.Runs)
			}
			out = append(out, st)
			return r.err
		})
	return out, s.err("read logs", err)
}

// Resume returns a log's resume state, nil when none.
func (s *Store) Resume(ctx context.Context, path string) ([]byte, error) {
	var state []byte
	err := s.query(ctx, `SELECT state FROM history_resume FINAL WHERE deleted = 0 AND path = `+clickhttp.Quote(path)+` FORMAT RowBinary`,
		func(d *clickhttp.RowReader) error {
			b, err := d.Bytes()
			state = append([]byte{}, b...)
			return err
		})
	return state, s.err("resume state of "+path, err)
}

// where turns a filter into conditions over the live rows of history_runs.
func where(f history.Filter) string {
	conds := []string{"deleted = 0"}
	if f.User != "" {
		conds = append(conds, "user = "+clickhttp.Quote(f.User))
	}
	if f.Name != "" {
		conds = append(conds, "positionCaseInsensitiveUTF8(name, "+clickhttp.Quote(f.Name)+") > 0")
	}
	if f.Status != "" {
		conds = append(conds, "status = "+clickhttp.Quote(string(f.Status)))
	}
	if f.MinSeverity > 0 {
		conds = append(conds, fmt.Sprintf("worst >= %d", f.MinSeverity))
	}
	if f.From != 0 {
		conds = append(conds, fmt.Sprintf("start >= %d", f.From))
	}
	if f.To != 0 {
		conds = append(conds, fmt.Sprintf("start < %d", f.To))
	}
	if len(f.JobKeys) > 0 {
		conds = append(conds, "job_key IN "+inList(f.JobKeys))
	}
	if len(f.Keys) > 0 {
		conds = append(conds, "key IN "+inList(f.Keys))
	}
	if f.Host != "" {
		conds = append(conds, "(key, version) IN (SELECT run, gen FROM history_host_stages WHERE host = "+clickhttp.Quote(f.Host)+")")
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// Count returns how many runs match f.
func (s *Store) Count(ctx context.Context, f history.Filter) (int, error) {
	var n int64
	err := s.query(ctx, `SELECT toInt64(count()) FROM history_runs FINAL`+where(f)+` FORMAT RowBinary`,
		func(d *clickhttp.RowReader) (err error) {
			n, err = d.Int64()
			return err
		})
	return int(n), s.err("count runs", err)
}

// Runs returns the runs matching f, newest first (oldest with f.Oldest).
// A page (f.Limit set) is found in two steps: the page's keys from the
// few columns that order and filter, read with FINAL over the whole table,
// then the page's rows by key through the primary index. Reading every
// column of every run with FINAL to keep 100 of them is what made a page of
// 100,000 runs take 1.4 s on 18.16.
func (s *Store) Runs(ctx context.Context, f history.Filter) ([]*history.Run, error) {
	order := " ORDER BY start DESC, key DESC"
	if f.Oldest {
		order = " ORDER BY start, key"
	}
	q := `SELECT ` + runColumns + `, version FROM history_runs FINAL` + where(f) + order
	var page []string
	if f.Limit > 0 {
		var err error
		page, err = s.keys(ctx, where(f)+order+fmt.Sprintf(" LIMIT %d, %d", f.Offset, f.Limit))
		if err != nil {
			return nil, s.err("read runs", err)
		}
		if len(page) == 0 {
			return nil, nil
		}
		q = `SELECT ` + runColumns + `, version FROM history_runs FINAL WHERE key IN ` + inList(page) + ` AND deleted = 0`
	} else if f.Offset > 0 {
		q += fmt.Sprintf(" LIMIT %d, %d", f.Offset, int64(1)<<62)
	}
	var out []*history.Run
	var gens []uint64
	err := s.query(ctx, q+" FORMAT RowBinary", func(d *clickhttp.RowReader) error {
		run, gen, err := readRun(d)
		out = append(out, run)
		gens = append(gens, gen)
		return err
	})
	if err != nil {
		return nil, s.err("read runs", err)
	}
	if page != nil {
		out, gens = inOrder(page, out, gens)
	}
	if f.Detail && len(out) > 0 {
		if err := s.detail(ctx, out, gens, f.Host); err != nil {
			return nil, s.err("read runs", err)
		}
	}
	return out, nil
}

// inOrder puts runs (and their generations) in the order of keys.
func inOrder(keys []string, runs []*history.Run, gens []uint64) ([]*history.Run, []uint64) {
	at := make(map[string]int, len(runs))
	for i, r := range runs {
		at[r.Key] = i
	}
	outR, outG := make([]*history.Run, 0, len(keys)), make([]uint64, 0, len(keys))
	for _, k := range keys {
		if i, ok := at[k]; ok {
			outR, outG = append(outR, runs[i]), append(outG, gens[i])
		}
	}
	return outR, outG
}

// Briefs returns the runs matching f, oldest first, with few columns.
func (s *Store) Briefs(ctx context.Context, f history.Filter) ([]history.Brief, error) {
	var out []history.Brief
	err := s.query(ctx, `SELECT key, app_id, attempt, name, user, engine, app_version, platform, status, job_key, start, end,
		duration_ms, last_updated, log, worst FROM history_runs FINAL`+where(f)+` ORDER BY start, key FORMAT RowBinary`,
		func(d *clickhttp.RowReader) error {
			r := reader{d: d}
			var b history.Brief
			var status string
			var worst int64
			for _, p := range []*string{&b.Key, &b.ID, &b.Attempt, &b.Name, &b.User, &b.Engine, &b.Version, &b.Platform, &status, &b.JobKey} {
				r.str(p)
			}
			for _, p := range []*int64{&b.Start, &b.End, &b.DurationMs, &b.LastUpdated} {
				r.int(p)
			}
			r.str(&b.Log)
			r.int(&worst)
			b.Status = history.Status(status)
			b.Worst = severity(worst)
			out = append(out, b)
			return r.err
		})
	return out, s.err("read runs", err)
}

func readRun(d *clickhttp.RowReader) (*history.Run, uint64, error) {
	r := reader{d: d}
	run := &history.Run{}
	c, t := &run.Cluster, &run.Totals
	var status, findings string
	var worst int64
	for _, p := range []*string{&run.Key, &run.Log, &run.ID, &run.Attempt, &run.Name, &run.User, &run.Engine, &run.Version, &run.Platform, &status} {
		r.str(p)
	}
	for _, p := range []*int64{&run.Start, &run.End, &run.DurationMs, &run.LastUpdated} {
		r.int(p)
	}
	r.intInt(&c.Hosts)
	r.intInt(&c.Executors)
	r.intInt(&c.Cores)
	r.int(&c.ExecutorMemoryMB)
	r.str(&c.InstanceTypes)
	for _, p := range []*int{&t.Jobs, &t.FailedJobs, &t.Stages, &t.FailedStages, &t.Tasks, &t.FailedTasks} {
		r.intInt(p)
	}
	for _, p := range []*int64{&t.InputBytes, &t.OutputBytes, &t.ShuffleReadBytes, &t.ShuffleWriteBytes, &t.SpillBytes, &t.TaskTimeMs, &t.CPUTimeMs, &t.GCTimeMs} {
		r.int(p)
	}
	r.str(&run.NameKey)
	r.str(&run.JobKey)
	r.int(&worst)
	r.str(&findings)
	var gen uint64
	if r.err == nil {
		gen, r.err = d.Fixed()
	}
	if r.err != nil {
		return run, 0, r.err
	}
	run.Status = history.Status(status)
	run.Worst = severity(worst)
	if err := json.Unmarshal([]byte(findings), &run.Findings); err != nil {
		return run, 0, fmt.Errorf("findings of %s: %w", run.Key, err)
	}
	return run, gen, nil
}

// detail fills the stages, host rows (only host's, when set) and DAGs of
// runs, whose current generations are gens.
func (s *Store) detail(ctx context.Context, runs []*history.Run, gens []uint64, host string) error {
	byKey := make(map[string]*history.Run, len(runs))
	var pairs []string
	for i, r := range runs {
		byKey[r.Key] = r
		pairs = append(pairs, fmt.Sprintf("(%s, %d)", clickhttp.Quote(r.Key), gens[i]))
	}
	current := "(run, gen) IN (" + strings.Join(pairs, ", ") + ")"
	err := s.query(ctx, `SELECT run, stage, attempt, name, signature, class, status, tasks, failed_tasks, duration_ms,
		q0, q25, q50, q75, q100, input_bytes, output_bytes, shuffle_read, shuffle_write, input_records, output_records,
		spill_bytes, run_time_ms, cpu_time_ms, gc_time_ms FROM history_stages WHERE `+current+` ORDER BY run, ord FORMAT RowBinary`,
		func(d *clickhttp.RowReader) error {
			r := reader{d: d}
			var key, class string
			var st history.Stage
			var id, attempt int64
			r.str(&key)
			r.int(&id)
			r.int(&attempt)
			r.str(&st.Name)
			r.str(&st.Signature)
			r.str(&class)
			r.str(&st.Status)
			r.intInt(&st.Tasks)
			r.intInt(&st.Failed)
			r.int(&st.DurationMs)
			for i := range st.Quantiles {
				r.float(&st.Quantiles[i])
			}
			for _, p := range []*int64{&st.InputBytes, &st.OutputBytes, &st.ShuffleReadBytes, &st.ShuffleWriteBytes,
				&st.InputRecords, &st.OutputRecords, &st.SpillBytes, &st.RunTimeMs, &st.CPUTimeMs, &st.GCTimeMs} {
				r.int(p)
			}
			st.ID, st.Attempt, st.Class = int32(id), int32(attempt), history.Class(class)
			if run := byKey[key]; run != nil && r.err == nil {
				run.Stages = append(run.Stages, st)
			}
			return r.err
		})
	if err != nil {
		return err
	}
	hq := `SELECT run, host, stage, attempt, tasks, sum_ms, sumsq_ms, sum_log, sumsq_log, min_ms, max_ms, bytes
		FROM history_host_stages WHERE ` + current
	if host != "" {
		hq += " AND host = " + clickhttp.Quote(host)
	}
	err = s.query(ctx, hq+" ORDER BY run, stage, attempt, host FORMAT RowBinary", func(d *clickhttp.RowReader) error {
		r := reader{d: d}
		var key string
		var h history.HostStage
		var stage, attempt int64
		r.str(&key)
		r.str(&h.Host)
		r.int(&stage)
		r.int(&attempt)
		r.intInt(&h.Tasks)
		for _, p := range []*float64{&h.SumMs, &h.SumSqMs, &h.SumLog, &h.SumSqLog} {
			r.float(p)
		}
		r.int(&h.MinMs)
		r.int(&h.MaxMs)
		r.int(&h.Bytes)
		h.Stage, h.Attempt = int32(stage), int32(attempt)
		if run := byKey[key]; run != nil && r.err == nil {
			run.Hosts = append(run.Hosts, h)
		}
		return r.err
	})
	if err != nil {
		return err
	}
	fq := `SELECT run, host, rack, executors, cores, memory_mb, instance_type FROM history_host_facts WHERE ` + current
	if host != "" {
		fq += " AND host = " + clickhttp.Quote(host)
	}
	err = s.query(ctx, fq+" ORDER BY run, host FORMAT RowBinary", func(d *clickhttp.RowReader) error {
		r := reader{d: d}
		var key string
		var f history.HostFact
		r.str(&key)
		r.str(&f.Host)
		r.str(&f.Rack)
		r.intInt(&f.Executors)
		r.intInt(&f.Cores)
		r.int(&f.MemoryMB)
		r.str(&f.InstanceType)
		if run := byKey[key]; run != nil && r.err == nil {
			run.HostFacts = append(run.HostFacts, f)
		}
		return r.err
	})
	if err != nil {
		return err
	}
	if err := s.explainDetail(ctx, byKey, current); err != nil {
		return err
	}
	dags, err := s.dags(ctx, jobKeys(runs))
	if err != nil {
		return err
	}
	for _, r := range runs {
		r.DAG = dags[r.JobKey].DAG
	}
	return nil
}

// explainDetail fills the stage times, driver times, configurations and
// queries of the runs in byKey, whose current generations current selects.
func (s *Store) explainDetail(ctx context.Context, byKey map[string]*history.Run, current string) error {
	type key struct {
		run            string
		stage, attempt int64
	}
	times := map[key]history.StageTimes{}
	err := s.query(ctx, `SELECT run, stage, attempt, submit_ms, complete_ms, slot_ms, wait_ms, failed_ms, task_bytes_median,
		last_host, last_ms, last_bytes, last_gc_ms, last_retry_ms FROM history_stage_times WHERE `+current+` FORMAT RowBinary`,
		func(d *clickhttp.RowReader) error {
			r := reader{d: d}
			var k key
			var t history.StageTimes
			r.str(&k.run)
			for _, p := range []*int64{&k.stage, &k.attempt, &t.SubmitMs, &t.CompleteMs, &t.SlotMs, &t.WaitMs, &t.FailedMs, &t.TaskBytesMedian} {
				r.int(p)
			}
			r.str(&t.Last.Host)
			for _, p := range []*int64{&t.Last.Ms, &t.Last.Bytes, &t.Last.GCMs, &t.Last.RetryMs} {
				r.int(p)
			}
			times[k] = t
			return r.err
		})
	if err != nil {
		return err
	}
	for k, r := range byKey {
		for i := range r.Stages {
			st := &r.Stages[i]
			st.Times = times[key{k, int64(st.ID), int64(st.Attempt)}]
		}
	}
	confOf := map[string]string{}
	err = s.query(ctx, `SELECT run, driver_ms, executor_wait_ms, config FROM history_run_context WHERE `+current+` FORMAT RowBinary`,
		func(d *clickhttp.RowReader) error {
			r := reader{d: d}
			var k, conf string
			var driver, wait int64
			r.str(&k)
			r.int(&driver)
			r.int(&wait)
			r.str(&conf)
			if run := byKey[k]; run != nil && r.err == nil {
				run.DriverMs, run.ExecutorWaitMs = driver, wait
				if conf != "" {
					confOf[k] = conf
				}
			}
			return r.err
		})
	if err != nil {
		return err
	}
	if len(confOf) > 0 {
		ids := make([]string, 0, len(confOf))
		for _, id := range confOf {
			ids = append(ids, id)
		}
		texts := map[string]string{}
		err = s.query(ctx, `SELECT id, any(config) FROM history_configs WHERE id IN `+inList(ids)+` GROUP BY id FORMAT RowBinary`,
			func(d *clickhttp.RowReader) error {
				r := reader{d: d}
				var id, text string
				r.str(&id)
				r.str(&text)
				texts[id] = text
				return r.err
			})
		if err != nil {
			return err
		}
		for k, id := range confOf {
			if byKey[k].Config, err = history.ParseConfig(texts[id]); err != nil {
				return fmt.Errorf("run %s: %w", k, err)
			}
		}
	}
	return s.query(ctx, `SELECT run, exec_id, description, wall_ms, stages, plan FROM history_queries WHERE `+current+
		` ORDER BY run, ord FORMAT RowBinary`, func(d *clickhttp.RowReader) error {
		r := reader{d: d}
		var k, stages, plan string
		var q history.Query
		r.str(&k)
		r.int(&q.ID)
		r.str(&q.Description)
		r.int(&q.WallMs)
		r.str(&stages)
		r.str(&plan)
		if r.err == nil {
			r.err = json.Unmarshal([]byte(stages), &q.Stages)
		}
		if r.err == nil {
			r.err = json.Unmarshal([]byte(plan), &q.Plan)
		}
		if run := byKey[k]; run != nil && r.err == nil {
			run.Queries = append(run.Queries, q)
		}
		return r.err
	})
}

func jobKeys(runs []*history.Run) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range runs {
		if !seen[r.JobKey] {
			seen[r.JobKey] = true
			out = append(out, r.JobKey)
		}
	}
	return out
}

// dags returns the variants' engine, name key and DAG by job key.
func (s *Store) dags(ctx context.Context, keys []string) (map[string]history.Variant, error) {
	out := map[string]history.Variant{}
	if len(keys) == 0 {
		return out, nil
	}
	err := s.query(ctx, `SELECT job_key, engine, name_key, dag FROM history_dags FINAL WHERE job_key IN `+inList(keys)+` FORMAT RowBinary`,
		func(d *clickhttp.RowReader) error {
			r := reader{d: d}
			var v history.Variant
			var dag string
			r.str(&v.JobKey)
			r.str(&v.Engine)
			r.str(&v.NameKey)
			r.str(&dag)
			if r.err == nil {
				r.err = json.Unmarshal([]byte(dag), &v.DAG)
			}
			out[v.JobKey] = v
			return r.err
		})
	return out, err
}

// Variants returns every JobKey with its DAG and number of runs.
func (s *Store) Variants(ctx context.Context) ([]history.Variant, error) {
	counts := map[string]int{}
	var keys []string
	err := s.query(ctx, `SELECT job_key, toInt64(count()) FROM history_runs FINAL WHERE deleted = 0 GROUP BY job_key ORDER BY job_key FORMAT RowBinary`,
		func(d *clickhttp.RowReader) error {
			k, err := d.String()
			if err != nil {
				return err
			}
			n, err := d.Int64()
			counts[k] = int(n)
			keys = append(keys, k)
			return err
		})
	if err != nil {
		return nil, s.err("read variants", err)
	}
	dags, err := s.dags(ctx, keys)
	if err != nil {
		return nil, s.err("read variants", err)
	}
	out := make([]history.Variant, 0, len(keys))
	for _, k := range keys {
		v := dags[k]
		v.JobKey, v.Runs = k, counts[k]
		out = append(out, v)
	}
	return out, nil
}

// reader reads columns into fields, keeping the first error.
type reader struct {
	d   *clickhttp.RowReader
	err error
}

func (r *reader) str(p *string) {
	if r.err == nil {
		*p, r.err = r.d.String()
	}
}

func (r *reader) int(p *int64) {
	if r.err == nil {
		*p, r.err = r.d.Int64()
	}
}

func (r *reader) intInt(p *int) {
	var v int64
	r.int(&v)
	*p = int(v)
}

func (r *reader) float(p *float64) {
	if r.err == nil {
		*p, r.err = r.d.Float64()
	}
}

func (r *reader) bool(p *bool) {
	if r.err == nil {
		*p, r.err = r.d.Bool()
	}
}

// severity converts a stored severity, clamping unknown values.
func severity(v int64) finding.Severity {
	return finding.Severity(max(0, min(v, int64(finding.Critical))))
}
