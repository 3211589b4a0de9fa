package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHistoryWithoutStore: history (and the other readers of the run
// history) without --store, or with a SQLite file that does not exist,
// fail naming the file and how to build it, and create nothing: they used
// to print "0 runs" over a database made on the way in the home folder
// (issue 23). An empty history says so on stderr.
func TestHistoryWithoutStore(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLUSTERLENS_STORE", "")
	def := filepath.Join(home, ".local", "share", "clusterlens", "history.db")
	missing := filepath.Join(t.TempDir(), "none.db")
	for _, args := range [][]string{
		{"history"}, {"history", "jobs"}, {"nodes"},
		{"history", "--store", "sqlite:" + missing}, {"history", "jobs", "--store", missing},
	} {
		code, out, errb := run(t, args...)
		want := def
		if strings.Contains(strings.Join(args, " "), missing) {
			want = missing
		}
		if code != ExitError || !strings.Contains(errb, "no run history at "+want) || !strings.Contains(errb, "clusterlens index --store") ||
			strings.Contains(out, "0 runs") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 naming %s", args, code, out, errb, want)
		}
	}
	for _, p := range []string{def, missing} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	// index creates it; an empty history is said to be empty.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "app-1"), []byte(tinyLog("app-1")))
	if code, _, errb := run(t, "index", dir); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errb)
	}
	if code, out, _ := run(t, "history"); code != 0 || !strings.Contains(out, "1 runs") && !strings.Contains(out, "1 run") {
		t.Errorf("history after index: exit %d, %q", code, out)
	}
	empty := filepath.Join(t.TempDir(), "empty.db")
	if code, _, errb := run(t, "index", "--store", empty, t.TempDir()); code == 0 {
		t.Fatalf("index of an empty folder: exit 0, %s", errb)
	}
	if _, err := os.Stat(empty); err != nil {
		t.Skipf("index of no logs made no store (%v): the empty-history note is not reachable this way", err)
	}
	code, out, errb := run(t, "history", "--store", empty)
	if code != 0 || !strings.Contains(errb, "holds no run") || !strings.Contains(out, "0 runs") {
		t.Errorf("empty history: exit %d, stdout %q, stderr %q; want the note", code, out, errb)
	}
}
