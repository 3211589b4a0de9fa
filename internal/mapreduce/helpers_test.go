package mapreduce

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// logPath returns shared/data/logs/rel, skipping when absent.
func logPath(t testing.TB, rel string) string {
	t.Helper()
	return filepath.Join(sharedtest.Dir(t, "logs"), rel)
}

// openLog opens a shared log, decompressing .gz.
func openLog(t testing.TB, rel string) io.Reader {
	t.Helper()
	p := logPath(t, rel)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	br := bufio.NewReader(f)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.Fatal(err)
		}
		return zr
	}
	return br
}

// readLog returns a shared log's (decompressed) bytes.
func readLog(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := io.ReadAll(openLog(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// expectedRow is one row of expected-counts.tsv.
type expectedRow struct {
	kind, path, version, id string
	jobs, tasks, failed     string
	hosts, complete         string
}

func expectedRows(t testing.TB, kinds ...string) []expectedRow {
	t.Helper()
	b, err := os.ReadFile(logPath(t, "expected-counts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	var rows []expectedRow
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		c := strings.Split(line, "\t")
		if len(c) < 16 {
			continue
		}
		for _, k := range kinds {
			if c[0] == k {
				rows = append(rows, expectedRow{kind: c[0], path: c[1], version: c[2], id: c[3],
					jobs: c[5], tasks: c[8], failed: c[9], hosts: c[13], complete: c[15]})
			}
		}
	}
	if len(rows) == 0 {
		t.Fatalf("no %v rows in expected-counts.tsv", kinds)
	}
	return rows
}

// tasks calls f for every task attempt of app.
func eachTask(app *model.App, f func(st *model.Stage, t *model.Task)) {
	for _, st := range app.Stages {
		for i := range st.Tasks {
			f(st, &st.Tasks[i])
		}
	}
}

// hostCount counts distinct hosts that ran attempts.
func hostCount(app *model.App) int {
	seen := map[uint32]bool{}
	eachTask(app, func(_ *model.Stage, t *model.Task) {
		if t.Host != 0 {
			seen[t.Host] = true
		}
	})
	return len(seen)
}

// locationCount counts distinct (rack, host) pairs, which is the number of
// distinct "/rack/host" or "host" strings the input wrote.
func locationCount(apps []*model.App, only func(*model.Task) bool) int {
	seen := map[string]bool{}
	for _, app := range apps {
		eachTask(app, func(_ *model.Stage, t *model.Task) {
			if t.Host != 0 && (only == nil || only(t)) {
				seen[app.Host(t.Rack)+"/"+app.Host(t.Host)] = true
			}
		})
	}
	return len(seen)
}

func failedCount(app *model.App) int {
	n := 0
	eachTask(app, func(_ *model.Stage, t *model.Task) {
		if t.Status == model.TaskFailed || t.Status == model.TaskKilled {
			n++
		}
	})
	return n
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
