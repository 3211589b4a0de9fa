package sqlite_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/store/sqlite"
	"github.com/clusterlens/clusterlens/internal/store/storetest"
)

// opener gives each subtest its own file in dir, the same file when the
// suite opens it again.
func opener(dir string) storetest.Opener {
	var mu sync.Mutex
	return func(t *testing.T) store.Store {
		mu.Lock()
		defer mu.Unlock()
		path := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())+".db")
		s, err := sqlite.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
}

func TestConformance(t *testing.T) {
	storetest.Run(t, opener(t.TempDir()))
}

func BenchmarkStore(b *testing.B) {
	dir := b.TempDir()
	n := 0
	storetest.Bench(b, func(b *testing.B) store.Store {
		n++
		s, err := sqlite.Open(filepath.Join(dir, fmt.Sprintf("bench%d.db", n)))
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
}

// TestLoad: 200 agents at 1 Hz (set CLUSTERLENS_STORE_LOAD=5m for the
// collector's load test).
func TestLoad(t *testing.T) {
	storetest.Load(t, opener(t.TempDir()), 200)
}
