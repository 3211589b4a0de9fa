package report

import (
	"bytes"
	"io/fs"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/assets"
	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// Budgets of the report for the largest real log.
const (
	maxReportBytes = 3 << 20
	maxReportTime  = time.Second
)

// largestRealApp loads the largest stored logs in the shared data and
// returns the application with the most task attempts.
func largestRealApp(t *testing.T) *model.App {
	t.Helper()
	root := sharedtest.Dir(t, "logs")
	type file struct {
		path string
		size int64
	}
	var files []file
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if info, err := d.Info(); err == nil {
			files = append(files, file{p, info.Size()})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(files, func(a, b file) int { return int(b.size - a.size) })
	var best *model.App
	for _, f := range files[:min(len(files), 4)] {
		res, err := decodelogs.Paths([]string{f.path}, decodelogs.Options{Workers: 1})
		if err != nil {
			continue
		}
		for _, app := range res.Apps {
			if best == nil || app.NumTasks() > best.NumTasks() {
				best = app
			}
		}
	}
	if best == nil {
		t.Fatal("none of the largest shared logs loaded")
	}
	return best
}

// TestHTMLSizeAndSpeed: the report of the largest real log stays under a
// few megabytes and is written in well under a second (analysis excluded).
func TestHTMLSizeAndSpeed(t *testing.T) {
	app := largestRealApp(t)
	a := analysis.Build(app, analysis.Options{Reconstruction: true})
	var buf bytes.Buffer
	start := time.Now()
	if err := WriteHTML(&buf, []*analysis.Analysis{a}, HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("%s (%d task attempts): report %d bytes (ECharts %d) in %v", app.Source, app.NumTasks(), buf.Len(), len(assets.EChartsJS), took)
	if buf.Len() > maxReportBytes {
		t.Errorf("report is %d bytes, budget %d", buf.Len(), maxReportBytes)
	}
	if took > maxReportTime {
		t.Errorf("report took %v, budget %v", took, maxReportTime)
	}
}

// TestHTMLSizeCapped: a report of many large timelines stays bounded, since
// the exact budget is shared and binned timelines have fixed caps.
func TestHTMLSizeCapped(t *testing.T) {
	as := simAnalyses(t, "imbalance", 9)
	for len(as) < 24 {
		as = append(as, as...)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, as, HTMLOptions{TimelineBars: 100}); err != nil {
		t.Fatal(err)
	}
	per := (buf.Len() - len(assets.EChartsJS)) / len(as)
	t.Logf("%d applications: %d bytes, %d per application", len(as), buf.Len(), per)
	if per > 150<<10 {
		t.Errorf("%d bytes per application", per)
	}
}
