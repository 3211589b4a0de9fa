package clickhouse

import (
	"context"
	"strconv"

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
