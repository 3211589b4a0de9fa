package sharedtest

import (
	"encoding/csv"
	"os"
	"testing"
)

// ReadCSV reads a CSV file with a header line into one map per row, by
// column name (the labeled data's tables: FlowBench's runs and tasks).
func ReadCSV(tb testing.TB, path string) []map[string]string {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	if len(recs) == 0 {
		tb.Fatalf("%s: empty, want a header line", path)
	}
	var out []map[string]string
	for _, rec := range recs[1:] {
		m := make(map[string]string, len(rec))
		for i, h := range recs[0] {
			m[h] = rec[i]
		}
		out = append(out, m)
	}
	return out
}
