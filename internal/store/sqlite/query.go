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

// Query calls fn for each sample q selects, ordered by host, type, target
// and time (the series index and the samples key give that order without
// sorting). The Sample passed to fn is reused; its strings are not.
func (s *Store) Query(ctx context.Context, q store.Query, fn func(*model.Sample) error) error {
	select {
	case <-s.quit:
		return ErrClosed
	default:
	}
	text, args := querySQL(q)
	rows, err := s.rdb.QueryContext(ctx, text, args...)
	if err != nil {
		return fmt.Errorf("sqlite store %q: query: %w", s.path, err)
	}
	defer rows.Close()
	var (
		host, typ, target, txt sql.RawBytes
		v                      sql.NullFloat64
		smp                    model.Sample
	)
	for rows.Next() {
		if err := rows.Scan(&host, &typ, &target, &smp.Time, &v, &txt); err != nil {
			return fmt.Errorf("sqlite store %q: query: %w", s.path, err)
		}
		// Rows come grouped by series: allocate its strings once.
		if string(host) != smp.Host {
			smp.Host = string(host)
		}
		if string(typ) != smp.Type {
			smp.Type = string(typ)
		}
		if string(target) != smp.Target {
			smp.Target = string(target)
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
			return err
		}
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return fmt.Errorf("sqlite store %q: query: %w", s.path, err)
	}
	return nil
}

// querySQL builds the SELECT for q and its arguments.
func querySQL(q store.Query) (string, []any) {
	var b strings.Builder
	var args []any
	b.WriteString("SELECT se.host, se.type, se.target, sa.time, sa.value, sa.text FROM series se JOIN samples sa ON sa.series = se.id")
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
	in("se.host", q.Hosts)
	in("se.type", q.Types)
	if q.From != 0 {
		b.WriteString(where + "sa.time >= ?")
		where = " AND "
		args = append(args, q.From)
	}
	if q.To != 0 {
		b.WriteString(where + "sa.time < ?")
		args = append(args, q.To)
	}
	b.WriteString(" ORDER BY se.host, se.type, se.target, sa.time")
	return b.String(), args
}
