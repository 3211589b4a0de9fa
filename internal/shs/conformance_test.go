package shs

import (
	"bufio"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/source"
)

// conformanceCase is one line of shs-expectations/index.tsv.
type conformanceCase struct {
	name, request, file string
}

// readCases reads index.tsv: name, GET path under /api/v1/, expectation file.
func readCases(t *testing.T, dir string) []conformanceCase {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "index.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []conformanceCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 {
			t.Fatalf("index.tsv: bad line %q", line)
		}
		cases = append(cases, conformanceCase{cols[0], cols[1], cols[2]})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// loadDir decodes every Spark event log that source.Find finds in dir, with
// the newest part's modification time as the attempt's last update.
func loadDir(t testing.TB, dir string) []*model.App {
	t.Helper()
	logs, _, err := source.Find([]string{dir}, source.Options{PartHeader: eventlog.PartHeader, Formats: decodelogs.Formats()})
	if err != nil {
		t.Fatal(err)
	}
	var apps []*model.App
	for _, l := range logs {
		if l.Kind != source.SparkEventLog {
			continue
		}
		d := eventlog.NewDecoder()
		for i, p := range l.Parts {
			r, err := l.Open(i)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Feed(p.Name, r); err != nil {
				t.Fatalf("read %s: %v", p.Name, err)
			}
			r.Close()
		}
		for _, a := range d.Apps() {
			a.LastUpdated = l.ModTime.UnixMilli()
			apps = append(apps, a)
		}
	}
	return apps
}

// normalize parses JSON and blanks lastUpdated and lastUpdatedEpoch, as
// the History Server's own suite does before comparing.
func normalize(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("invalid JSON: %v\n%s", err, b)
	}
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for k, v := range x {
				switch k {
				case "lastUpdated":
					x[k] = ""
				case "lastUpdatedEpoch":
					x[k] = 0.0
				default:
					walk(v)
				}
			}
		case []any:
			for _, v := range x {
				walk(v)
			}
		}
	}
	walk(v)
	return v
}

func TestConformance(t *testing.T) {
	dir := sharedtest.Dir(t, "shs-expectations")
	ix := NewIndex(loadDir(t, filepath.Join(dir, "spark-events")))
	for _, c := range readCases(t, dir) {
		t.Run(c.name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(dir, "expected", c.file))
			if err != nil {
				t.Fatal(err)
			}
			path, rawQuery, _ := strings.Cut(c.request, "?")
			q, err := url.ParseQuery(rawQuery)
			if err != nil {
				t.Fatal(err)
			}
			v, err := ix.Get(path, q)
			if err != nil {
				t.Fatalf("GET %s: %v", c.request, err)
			}
			got, err := Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(normalize(t, want), normalize(t, got)); diff != "" {
				t.Errorf("GET %s: mismatch (-want +got):\n%s", c.request, diff)
			}
		})
	}
}
