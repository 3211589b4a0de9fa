package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/store"
)

// seriesSamplesSQL reads one series' samples in a time range (inclusive at
// both ends), in time order: a range scan of the samples key.
const seriesSamplesSQL = "SELECT time, value, text FROM samples WHERE series = ? AND time BETWEEN ? AND ? ORDER BY time"

// Query calls fn for each sample q selects, ordered by host, type, target
// and time: it lists the matching series in order from the series index,
// then range-scans each one's samples, all in one read transaction (one
// WAL snapshot, so appends running beside it are wholly in or out). The
// Sample passed to fn is reused; its strings are not.
func (s *Store) Query(ctx context.Context, q store.Query, fn func(*model.Sample) error) error {
	select {
	case <-s.quit:
		return ErrClosed
	default:
	}
	if err := s.query(ctx, q, fn); err != nil {
		var fnErr callbackError
		if errors.As(err, &fnErr) {
			return fnErr.err
		}
		return fmt.Errorf("sqlite store %q: query: %w", s.path, err)
	}
	return nil
}

// callbackError carries fn's error through unwrapped.
type callbackError struct{ err error }

func (e callbackError) Error() string { return e.err.Error() }

func (s *Store) query(ctx context.Context, q store.Query, fn func(*model.Sample) error) error {
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	type series struct {
		id                int64
		host, typ, target string
	}
	var list []series
	text, args := seriesSQL(q)
	rows, err := tx.QueryContext(ctx, text, args...)
	if err != nil {
		return err
	}
	for rows.Next() {
		var x series
		if err := rows.Scan(&x.id, &x.host, &x.typ, &x.target); err != nil {
			rows.Close()
			return err
		}
		list = append(list, x)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	from, to := int64(math.MinInt64), int64(math.MaxInt64)
	if q.From != 0 {
		from = q.From
	}
	if q.To == math.MinInt64 {
		return nil // nothing is before the first instant
	}
	if q.To != 0 {
		to = q.To - 1 // BETWEEN is inclusive
	}
	st := tx.StmtContext(ctx, s.seriesSamples)
	defer st.Close()
	var (
		txt sql.RawBytes
		v   sql.NullFloat64
		smp model.Sample
	)
	for _, x := range list {
		smp.Host, smp.Type, smp.Target = x.host, x.typ, x.target
		rows, err := st.QueryContext(ctx, x.id, from, to)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := rows.Scan(&smp.Time, &v, &txt); err != nil {
				rows.Close()
				return err
			}
			smp.Value = math.NaN()
			if v.Valid {
				smp.Value = v.Float64
			}
			smp.Text = ""
			if len(txt) > 0 {
				smp.Text = string(txt)
			}
			if err := fn(&smp); err != nil {
				rows.Close()
				return callbackError{err}
			}
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
	}
	return nil
}

// seriesSQL builds the SELECT of the series q selects, in order, and its
// arguments.
func seriesSQL(q store.Query) (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString("SELECT id, host, type, target FROM series")
	where := " WHERE "
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		b.WriteString(where)
		where = " AND "
		b.WriteString(col)
		b.WriteString(" IN (")
		for i, v := range vals {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteByte('?')
			args = append(args, v)
		}
		b.WriteByte(')')
	}
	in("host", q.Hosts)
	in("type", q.Types)
	b.WriteString(" ORDER BY host, type, target")
	return b.String(), args
}
