package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/wire"
)

const (
	// maxGroupSamples bounds how many samples one group commit writes.
	maxGroupSamples = 200_000
	// rowsPerInsert is how many samples one INSERT statement carries
	// (4 parameters each, well under SQLite's limit of 32766).
	rowsPerInsert = 128
)

// request is one Append waiting for the writer.
type request struct {
	ctx context.Context
	b   *wire.Batch
	// rollback makes the writer write the batch and then roll back, as if
	// the process died before COMMIT (storetest's crash test).
	rollback bool

	dup  bool
	err  error
	done chan struct{}
}

type seriesKey struct{ host, typ, target string }

// writer owns the write connection, its prepared statements and the
// series ids already known. Only the writer goroutine uses it.
type writer struct {
	db       *sql.DB
	series   map[seriesKey]int64
	addBatch *sql.Stmt
	addSerie *sql.Stmt
	insOne   *sql.Stmt
	insMany  *sql.Stmt
	args     []any
}

func newWriter(ctx context.Context, db *sql.DB) (*writer, error) {
	w := &writer{db: db, series: map[seriesKey]int64{}, args: make([]any, 0, 4*rowsPerInsert)}
	rows, err := db.QueryContext(ctx, "SELECT id, host, type, target FROM series")
	if err != nil {
		return nil, fmt.Errorf("load series: %w", err)
	}
	for rows.Next() {
		var id int64
		var k seriesKey
		if err := rows.Scan(&id, &k.host, &k.typ, &k.target); err != nil {
			rows.Close()
			return nil, fmt.Errorf("load series: %w", err)
		}
		w.series[k] = id
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, fmt.Errorf("load series: %w", err)
	}
	many := "INSERT OR REPLACE INTO samples (series, time, value, text) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?,?,?,?),", rowsPerInsert), ",")
	for _, p := range []struct {
		st  **sql.Stmt
		sql string
	}{
		{&w.addBatch, "INSERT INTO batches (agent, seq, samples, stored) VALUES (?,?,?,?) ON CONFLICT DO NOTHING"},
		// The no-op update makes RETURNING give the id of an existing row too.
		{&w.addSerie, "INSERT INTO series (host, type, target) VALUES (?,?,?) ON CONFLICT (host, type, target) DO UPDATE SET host = excluded.host RETURNING id"},
		{&w.insOne, "INSERT OR REPLACE INTO samples (series, time, value, text) VALUES (?,?,?,?)"},
		{&w.insMany, many},
	} {
		if *p.st, err = db.PrepareContext(ctx, p.sql); err != nil {
			w.close()
			return nil, fmt.Errorf("prepare %.40q: %w", p.sql, err)
		}
	}
	return w, nil
}

func (w *writer) close() error {
	var errs []error
	for _, st := range []*sql.Stmt{w.addBatch, w.addSerie, w.insOne, w.insMany} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(errs...)
}

// writeGroup writes the requests in one transaction and answers each. If
// the transaction fails, each request is retried alone so that one bad
// batch does not fail the others; a rollback request is always alone.
func (w *writer) writeGroup(group []*request) {
	normal := group[:0:0]
	for _, r := range group {
		if r.rollback {
			w.write([]*request{r}, false)
		} else {
			normal = append(normal, r)
		}
	}
	if len(normal) > 0 {
		if err := w.write(normal, true); err != nil && len(normal) > 1 {
			for _, r := range normal {
				w.write([]*request{r}, true)
			}
		}
	}
	for _, r := range group {
		close(r.done)
	}
}

// write stores rs in one transaction, committed when commit is set and
// rolled back otherwise. It sets each request's outcome and returns the
// transaction's error.
func (w *writer) write(rs []*request, commit bool) (err error) {
	live := rs[:0:0]
	for _, r := range rs {
		r.dup, r.err = false, r.ctx.Err()
		if r.err == nil {
			live = append(live, r)
		}
	}
	if len(live) == 0 {
		return nil
	}
	defer func() {
		if err != nil {
			for _, r := range live {
				r.dup, r.err = false, err
			}
		}
	}()
	// The group's context is not any one caller's: a caller that gives up
	// does not abort the others' transaction.
	ctx := context.Background()
	tx, err := w.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	added := map[seriesKey]int64{}
	t := txStmts{
		addBatch: tx.StmtContext(ctx, w.addBatch),
		addSerie: tx.StmtContext(ctx, w.addSerie),
		insOne:   tx.StmtContext(ctx, w.insOne),
		insMany:  tx.StmtContext(ctx, w.insMany),
	}
	now := time.Now().UnixMilli()
	for _, r := range live {
		if r.dup, err = w.writeBatch(ctx, &t, r.b, now, added); err != nil {
			tx.Rollback() //nolint:errcheck // the write error is the one to report
			return err
		}
	}
	if !commit {
		return tx.Rollback()
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	for k, id := range added {
		w.series[k] = id
	}
	return nil
}

type txStmts struct{ addBatch, addSerie, insOne, insMany *sql.Stmt }

// writeBatch records b's id and, unless it was already there, writes its
// samples. added collects series created in this transaction.
func (w *writer) writeBatch(ctx context.Context, t *txStmts, b *wire.Batch, now int64, added map[seriesKey]int64) (dup bool, err error) {
	// SQLite integers are signed: a Seq above MaxInt64 is kept as its
	// two's-complement bit pattern, which is still one key per Seq.
	res, err := t.addBatch.ExecContext(ctx, b.Agent, int64(b.Seq), len(b.Samples), now)
	if err != nil {
		return false, fmt.Errorf("record batch: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return false, fmt.Errorf("record batch: %w", err)
	} else if n == 0 {
		return true, nil
	}
	args := w.args[:0]
	rows := 0
	for i := range b.Samples {
		s := &b.Samples[i]
		id, err := w.seriesID(ctx, t, s, added)
		if err != nil {
			return false, err
		}
		var v any = s.Value
		if math.IsNaN(s.Value) {
			v = nil
		}
		args = append(args, id, s.Time, v, s.Text)
		if rows++; rows == rowsPerInsert {
			if _, err := t.insMany.ExecContext(ctx, args...); err != nil {
				return false, fmt.Errorf("insert samples: %w", err)
			}
			args, rows = args[:0], 0
		}
	}
	for i := 0; i < len(args); i += 4 {
		if _, err := t.insOne.ExecContext(ctx, args[i:i+4]...); err != nil {
			return false, fmt.Errorf("insert sample: %w", err)
		}
	}
	clear(args)
	return false, nil
}

func (w *writer) seriesID(ctx context.Context, t *txStmts, s *model.Sample, added map[seriesKey]int64) (int64, error) {
	k := seriesKey{s.Host, s.Type, s.Target}
	if id, ok := w.series[k]; ok {
		return id, nil
	}
	if id, ok := added[k]; ok {
		return id, nil
	}
	var id int64
	if err := t.addSerie.QueryRowContext(ctx, s.Host, s.Type, s.Target).Scan(&id); err != nil {
		return 0, fmt.Errorf("add series %q %q %q: %w", s.Host, s.Type, s.Target, err)
	}
	added[k] = id
	return id, nil
}
