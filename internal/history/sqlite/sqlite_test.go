package sqlite_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

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

// TestMigrate: a file of schema version 1 (no host facts) or 2 (no stage
// times, driver times, configurations or queries) is migrated on open: the
// new tables are made, every log is marked to be read again (its time and
// fingerprint cleared, so the next index pass re-reads it and fills them),
// and the runs stay until then.
func TestMigrate(t *testing.T) {
	v3 := []string{`DROP TABLE history_stage_times`, `DROP TABLE history_run_context`, `DROP TABLE history_configs`, `DROP TABLE history_queries`}
	for _, from := range []struct {
		version int
		drop    []string
	}{{1, append([]string{`DROP TABLE history_host_facts`}, v3...)}, {2, v3}} {
		t.Run(fmt.Sprintf("from%d", from.version), func(t *testing.T) {
			ctx := context.Background()
			p := filepath.Join(t.TempDir(), "h.db")
			s, err := sqlite.Open(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			r := historytest.SampleRun(rand.New(rand.NewPCG(1, 1)), 1)
			st := history.LogState{Path: r.Log, Size: 10, ModTime: 1000, Fingerprint: "fp", IndexedAt: 2000}
			if err := s.Put(ctx, history.Entry{State: st, Runs: []*history.Run{r}}); err != nil {
				t.Fatal(err)
			}
			for _, q := range append(from.drop, fmt.Sprintf(`UPDATE history_meta SET value = '%d' WHERE key = 'schema_version'`, from.version)) {
				if _, err := s.DB().Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			if s, err = sqlite.Open(ctx, p); err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			logs, err := s.Logs(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(logs) != 1 || logs[0].Fingerprint != "" || logs[0].ModTime != -1 || logs[0].Size != 10 {
				t.Errorf("log after the migration: %+v, want its time and fingerprint cleared", logs)
			}
			got, err := s.Runs(ctx, history.Filter{Detail: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || len(got[0].Stages) != 3 || got[0].Stages[0].Times.SlotMs != 0 || got[0].Config != nil || got[0].Queries != nil {
				t.Fatalf("run after the migration: %d runs, want 1 with its stages and no times, configuration or queries yet", len(got))
			}
			if from.version == 1 && len(got[0].HostFacts) != 0 {
				t.Errorf("run after the migration from 1 has %d facts, want none yet", len(got[0].HostFacts))
			}
			if err := s.Put(ctx, history.Entry{State: st, Runs: []*history.Run{r}}); err != nil {
				t.Fatal(err)
			}
			got, _ = s.Runs(ctx, history.Filter{Detail: true})
			if diff := cmp.Diff(r, got[0]); diff != "" {
				t.Errorf("run read again differs (-put +got):\n%s", diff)
			}
			var v string
			if err := s.DB().QueryRow(`SELECT value FROM history_meta WHERE key = 'schema_version'`).Scan(&v); err != nil || v != "3" {
				t.Errorf("schema version %q (%v), want 3", v, err)
			}
		})
	}
}
