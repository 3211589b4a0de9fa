package sqlite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/history/historytest"
	"github.com/clusterlens/clusterlens/internal/history/sqlite"
)

func TestConformance(t *testing.T) {
	paths := map[string]string{}
	historytest.Run(t, func(t *testing.T) history.Store {
		p, ok := paths[t.Name()]
		if !ok {
			p = filepath.Join(t.TempDir(), "history.db")
			paths[t.Name()] = p
		}
		s, err := sqlite.Open(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// A file whose history schema is newer than this build's is refused with
// a message that says so, and is left as it was.
func TestNewerSchemaRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "h.db")
	s, err := sqlite.Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec(`UPDATE history_meta SET value = '99' WHERE key = 'schema_version'`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = sqlite.Open(context.Background(), p)
	if !errors.Is(err, history.ErrNewerSchema) {
		t.Fatalf("opening a schema-99 file: %v, want ErrNewerSchema", err)
	}
	t.Log(err)
}

// TestScale: with ScaleRuns runs indexed (10,000 here, 100,000 in
// docs/PERFORMANCE.md), the listing page and the fleet view answer in under
// 200 ms; the file's size per run and per task attempt is logged.
func TestScale(t *testing.T) {
	if testing.Short() {
		t.Skip("scale test")
	}
	p := filepath.Join(t.TempDir(), "h.db")
	s, err := sqlite.Open(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	runs := historytest.FleetRuns(t, historytest.ScaleRuns())
	historytest.Scale(t, s, runs, 200*time.Millisecond, nil)
	if _, err := s.DB().Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	tasks := 0
	for _, r := range runs {
		tasks += r.Totals.Tasks
	}
	t.Logf("file %d bytes: %d bytes per run, %.1f bytes per task attempt (%d runs, %d attempts)",
		st.Size(), st.Size()/int64(len(runs)), float64(st.Size())/float64(tasks), len(runs), tasks)
}
