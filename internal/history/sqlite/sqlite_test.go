package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

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
