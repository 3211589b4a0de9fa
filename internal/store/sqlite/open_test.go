package sqlite_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/store/sqlite"
)

// TestOpenRefuses: files that are not this store's are refused with an
// error naming the file and the problem, and are left as they were.
func TestOpenRefuses(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.db")
	if err := os.WriteFile(garbage, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA user_version = 7"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for path, want := range map[string]string{
		garbage:                      "not a database",
		other:                        "schema version 7, want 1",
		filepath.Join(dir, "a?b.db"): "without '?'",
		filepath.Join(dir, "no", "such", "dir", "x.db"): "unable to open",
	} {
		s, err := sqlite.Open(path)
		if err == nil {
			s.Close()
			t.Errorf("open %s: no error", path)
			continue
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("open %s: error %q, want it to name the file and say %q", path, err, want)
		}
	}
}
