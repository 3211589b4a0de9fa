package open_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/store/clickhouse"
	"github.com/clusterlens/clusterlens/internal/store/open"
	"github.com/clusterlens/clusterlens/internal/store/sqlite"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// roundTrip stores one sample through s and reads it back.
func roundTrip(t *testing.T, s store.Store) {
	t.Helper()
	ctx := context.Background()
	in := model.Sample{Time: 1000, Host: "h", Type: "load1", Value: 1.5}
	if _, err := s.Append(ctx, &wire.Batch{Agent: "a", Seq: 1, Samples: []model.Sample{in}}); err != nil {
		t.Fatal(err)
	}
	var got []model.Sample
	if err := s.Query(ctx, store.Query{}, func(x *model.Sample) error { got = append(got, *x); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != in {
		t.Fatalf("read back %+v, want [%+v]", got, in)
	}
}

func TestSQLite(t *testing.T) {
	dir := t.TempDir()
	for _, dsn := range []string{"sqlite:" + filepath.Join(dir, "a"), filepath.Join(dir, "b.db"), "sqlite://" + filepath.Join(dir, "c.sqlite")} {
		s, err := open.Open(context.Background(), dsn)
		if err != nil {
			t.Fatalf("%s: %v", dsn, err)
		}
		if _, ok := s.(*sqlite.Store); !ok {
			t.Fatalf("%s: opened %T, want *sqlite.Store", dsn, s)
		}
		roundTrip(t, s)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestClickHouse(t *testing.T) {
	base := strings.TrimRight(sharedtest.Service(t, "CLICKHOUSE_URL"), "/")
	dsn := "clickhouse+" + base + "/cltest_open"
	s, err := open.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	ch, ok := s.(*clickhouse.Store)
	if !ok {
		t.Fatalf("%s: opened %T, want *clickhouse.Store", dsn, s)
	}
	defer ch.DropDatabase(context.Background()) //nolint:errcheck // best effort
	roundTrip(t, s)
}

func TestBadDSN(t *testing.T) {
	for _, dsn := range []string{"", "metrics", "postgres://x/y", "clickhouse://h:9000/db", "clickhouse+http://h:8123/bad-name", "sqlite:"} {
		s, err := open.Open(context.Background(), dsn)
		if err == nil {
			s.Close()
			t.Errorf("%q: no error", dsn)
		}
	}
}
