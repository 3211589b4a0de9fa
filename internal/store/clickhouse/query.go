package clickhouse

import (
	"context"
	"fmt"
	"strings"

	"github.com/clusterlens/clusterlens/internal/clickhttp"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/store"
)

// Query calls fn for each sample q selects, ordered by host, type, target
// and time. It reads the table with FINAL, so that a sample written twice
// (a batch re-sent after a crash, or two batches holding one sample key)
// is read once, the last written; the answer is streamed in RowBinary and
// decoded as it arrives. The Sample passed to fn is reused.
func (s *Store) Query(ctx context.Context, q store.Query, fn func(*model.Sample) error) error {
	select {
	case <-s.quit:
		return ErrClosed
	default:
	}
	body, err := s.c.Do(ctx, querySQL(q), nil)
	if err != nil {
		return fmt.Errorf("clickhouse store: query: %w", err)
	}
	defer body.Close()
	d := clickhttp.NewRowReader(body)
	var smp model.Sample
	for {
		end, err := d.AtEOF()
		if err != nil {
			return fmt.Errorf("clickhouse store: query: %w", err)
		}
		if end {
			return nil
		}
		if err := readSample(d, &smp); err != nil {
			return fmt.Errorf("clickhouse store: query: %w", err)
		}
		if err := fn(&smp); err != nil {
			return err
		}
	}
}

// querySQL builds the SELECT for q, its strings as escaped literals (18.16
// has no query parameters).
func querySQL(q store.Query) string {
	var b strings.Builder
	b.WriteString("SELECT host, type, target, time, value, text FROM samples FINAL")
	var conds []string
	in := func(col string, vals []string) {
		if len(vals) == 0 {
			return
		}
		lits := make([]string, len(vals))
		for i, v := range vals {
			lits[i] = clickhttp.Quote(v)
		}
		conds = append(conds, col+" IN ("+strings.Join(lits, ", ")+")")
	}
	in("host", q.Hosts)
	in("type", q.Types)
	if q.From != 0 {
		conds = append(conds, fmt.Sprintf("time >= %d", q.From))
	}
	if q.To != 0 {
		conds = append(conds, fmt.Sprintf("time < %d", q.To))
	}
	if len(conds) > 0 {
		b.WriteString(" WHERE " + strings.Join(conds, " AND "))
	}
	b.WriteString(" ORDER BY host, type, target, time FORMAT RowBinary")
	return b.String()
}
