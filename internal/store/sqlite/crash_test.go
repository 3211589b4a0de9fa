package sqlite_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/store/sqlite"
	"github.com/clusterlens/clusterlens/internal/store/storetest"
)

// TestKillDuringAppend: storetest.Kill on a file. SQLite writes a batch's
// samples and id in one transaction, so a kill leaves both or neither.
func TestKillDuringAppend(t *testing.T) {
	addr := os.Getenv(storetest.KillChildEnv)
	if addr == "" {
		addr = filepath.Join(t.TempDir(), "kill.db")
	}
	storetest.Kill(t, "TestKillDuringAppend", addr, func(a string) (store.Store, error) { return sqlite.Open(a) })
}
