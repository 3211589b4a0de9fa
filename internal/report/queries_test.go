package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// TestQueriesInReport: a SQL application's analysis carries its queries,
// and the text, JSON and HTML reports show them: the skewed query's join
// stage with its operators' rows and skew.
func TestQueriesInReport(t *testing.T) {
	sc, err := sim.Named("sql-skew")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Simulate(sc, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := eventlog.Write(&buf, res.Apps[0]); err != nil {
		t.Fatal(err)
	}
	app, err := eventlog.Read("sim", &buf)
	if err != nil {
		t.Fatal(err)
	}
	a := analysis.Build(app, analysis.Options{Reconstruction: true})
	if len(a.Queries) != len(app.SQL) || len(a.Queries) == 0 {
		t.Fatalf("%d queries analyzed, %d executions", len(a.Queries), len(app.SQL))
	}
	skewed := -1
	for i, q := range a.Queries {
		for _, op := range q.Operators {
			if op.Skew > 2 && op.RowsOut > 0 {
				skewed = i
			}
		}
	}
	if skewed < 0 {
		t.Fatal("no operator of the sql-skew application has skewed partitions")
	}

	var text bytes.Buffer
	if err := AnalysisText(&text, a, 30); err != nil {
		t.Fatal(err)
	}
	if s := text.String(); !strings.Contains(s, "SQL queries (") || !strings.Contains(s, fmt.Sprintf("query %d ", a.Queries[skewed].ID)) ||
		!strings.Contains(s, "skew (max/median)") {
		t.Errorf("text report without the queries:\n%s", s)
	}

	var js bytes.Buffer
	if err := AnalysisJSON(&js, []*analysis.Analysis{a}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Applications []struct {
			Queries []struct {
				ID        int64 `json:"id"`
				Operators []struct {
					Name    string  `json:"name"`
					RowsOut int64   `json:"rowsOut"`
					Skew    float64 `json:"skew"`
				} `json:"operators"`
			} `json:"queries"`
		} `json:"applications"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Applications) != 1 || len(doc.Applications[0].Queries) != len(a.Queries) {
		t.Fatalf("JSON: %+v", doc)
	}

	page, p := pageData(t, []*analysis.Analysis{a}, HTMLOptions{})
	if len(p.Applications) != 1 || len(p.Applications[0].Queries) != len(a.Queries) || !strings.Contains(page, "function queries(") {
		t.Errorf("HTML page without the queries")
	}
}
