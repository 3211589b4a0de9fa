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
	f, err := os.Open(filepath.Join(root, "expected-counts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if col := strings.Split(sc.Text(), "\t"); col[0] == kind {
			rows = append(rows, col)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) < min {
		t.Fatalf("expected-counts.tsv lists only %d %s rows, want at least %d", len(rows), kind, min)
	}
	return root, rows
}
