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
