package clickhouse_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/store/clickhouse"
	"github.com/clusterlens/clusterlens/internal/store/storetest"
)

// testDatabase names a fresh database for t on the server at
// CLICKHOUSE_URL and returns the store URL for it; the database is dropped
// when t ends.
func testDatabase(t testing.TB) string {
	base := strings.TrimRight(sharedtest.Service(t, "CLICKHOUSE_URL"), "/")
	name := fmt.Sprintf("cltest_%d_%d_%s", os.Getpid(), time.Now().UnixNano()%1e9,
		strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '_'
		}, t.Name()))
	u := base + "/" + name
	t.Cleanup(func() {
		s, err := clickhouse.Open(context.Background(), u, clickhouse.Options{})
		if err != nil {
			t.Errorf("drop test database: %v", err)
			return
		}
		if err := s.DropDatabase(context.Background()); err != nil {
			t.Errorf("drop test database: %v", err)
		}
	})
	return u
}

func TestConformance(t *testing.T) {
	sharedtest.Service(t, "CLICKHOUSE_URL")
	var mu sync.Mutex
	dbs := map[string]string{}
	storetest.Run(t, func(t *testing.T) store.Store {
		mu.Lock()
		defer mu.Unlock()
		u, ok := dbs[t.Name()]
		if !ok {
			u = testDatabase(t)
			dbs[t.Name()] = u
		}
		s, err := clickhouse.Open(context.Background(), u, clickhouse.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, func(b *testing.B) store.Store {
		s, err := clickhouse.Open(context.Background(), testDatabase(b), clickhouse.Options{})
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
}

// TestLoad: 200 agents at 1 Hz (set CLUSTERLENS_STORE_LOAD=5m for the
// collector's load test).
func TestLoad(t *testing.T) {
	if os.Getenv(storetest.LoadEnv) == "" {
		t.Skipf("%s not set", storetest.LoadEnv)
	}
	u := testDatabase(t)
	storetest.Load(t, func(t *testing.T) store.Store {
		s, err := clickhouse.Open(context.Background(), u, clickhouse.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, 200)
}

// TestKillDuringAppend: storetest.Kill on a database. A kill between the
// samples' INSERT and the batch ids' leaves samples without their id; the
// re-sent batch writes them again and FINAL reads them once.
func TestKillDuringAppend(t *testing.T) {
	addr := os.Getenv(storetest.KillChildEnv)
	if addr == "" {
		addr = testDatabase(t)
	}
	storetest.Kill(t, "TestKillDuringAppend", addr, func(a string) (store.Store, error) {
		return clickhouse.Open(context.Background(), a, clickhouse.Options{})
	})
}
