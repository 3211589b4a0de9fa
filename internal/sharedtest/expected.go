package sharedtest

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ExpectedRows returns shared/data/logs and the tab-separated columns of
// every row of its expected-counts.tsv whose kind (first column) is kind,
// failing the test unless there are at least min.
func ExpectedRows(t testing.TB, kind string, min int) (string, [][]string) {
	t.Helper()
	root := Dir(t, "logs")
	var rows [][]string
	for _, col := range Rows(t, filepath.Join(root, "expected-counts.tsv")) {
		if col[0] == kind {
			rows = append(rows, col)
		}
	}
	if len(rows) < min {
		t.Fatalf("expected-counts.tsv lists only %d %s rows, want at least %d", len(rows), kind, min)
	}
	return root, rows
}

// Rows returns the tab-separated columns of every row of a counts file,
// comment lines (#) and blank lines left out.
func Rows(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}
