package clickhouse

import (
	"context"
	"strconv"
	"time"

	"github.com/clusterlens/clusterlens/internal/clickhttp"
)

// SetSchemaVersion records another schema version (the refusal's test).
func (s *Store) SetSchemaVersion(ctx context.Context, v int) error {
	row := clickhttp.AppendString(nil, "schema_version")
	row = clickhttp.AppendString(row, strconv.Itoa(v))
	row = clickhttp.AppendUint64(row, s.version())
	return s.c.Exec(ctx, `INSERT INTO history_meta (key, value, version) FORMAT RowBinary`, row)
}

// BytesOnDisk sums the active parts of the history's tables.
func (s *Store) BytesOnDisk(ctx context.Context) (int64, error) {
	var n int64
	err := s.query(ctx, `SELECT toInt64(sum(bytes_on_disk)) FROM system.parts WHERE active AND database = currentDatabase()
		AND table LIKE 'history_%' FORMAT RowBinary`, func(d *clickhttp.RowReader) (err error) {
		n, err = d.Int64()
		return err
	})
	return n, err
}

// WaitMerged waits until the server's background merges have left at most
// parts active parts of history_runs, or for at most max.
func (s *Store) WaitMerged(ctx context.Context, parts int64, max time.Duration) error {
	deadline := time.Now().Add(max)
	for {
		var n int64
		err := s.query(ctx, `SELECT toInt64(count()) FROM system.parts WHERE active AND database = currentDatabase()
			AND table = 'history_runs' FORMAT RowBinary`, func(d *clickhttp.RowReader) (err error) {
			n, err = d.Int64()
			return err
		})
		if err != nil || n <= parts || time.Now().After(deadline) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Exec runs a statement (the migration's test makes a version-1 database).
func (s *Store) Exec(ctx context.Context, q string) error { return s.c.Exec(ctx, q, nil) }
