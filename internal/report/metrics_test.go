package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// simWithFrames simulates a scenario with every node sampled and returns
// the run and its node metrics as correlate frames.
func simWithFrames(t testing.TB, scenario string, seed uint64) (*sim.Result, *correlate.Frames) {
	t.Helper()
	sc, err := sim.Named(scenario)
	if err != nil {
		t.Fatal(err)
	}
	sc.Metrics.EveryNth = 1
	var buf bytes.Buffer
	res, err := sim.Simulate(sc, seed, &buf)
	if err != nil {
		t.Fatal(err)
	}
	fr := correlate.NewFrames(0, 0)
	if err := metrics.ReadCSV(&buf, "metrics.csv", func(s *model.Sample) error { fr.Add(s); return nil }); err != nil {
		t.Fatal(err)
	}
	fr.Finish()
	return res, fr
}

// simMetricAnalyses analyzes a simulator scenario's applications with its
// node metrics (every node sampled), keeping the reconstructions.
func simMetricAnalyses(t testing.TB, scenario string, seed uint64) ([]*analysis.Analysis, *correlate.Frames) {
	t.Helper()
	res, fr := simWithFrames(t, scenario, seed)
	var as []*analysis.Analysis
	for _, app := range res.Apps {
		as = append(as, analysis.Build(app, analysis.Options{Reconstruction: true, Metrics: fr}))
	}
	return as, fr
}

// TestAnalysisMetrics checks the metrics section in text, JSON and the
// HTML data: present with metrics, absent without, and the node timelines
// on the task timeline's time axis holding the samples' values.
func TestAnalysisMetrics(t *testing.T) {
	as, fr := simMetricAnalyses(t, "demo", 1)
	plain := simAnalyses(t, "demo", 1)
	var withJSON, withoutJSON bytes.Buffer
	if err := AnalysisJSON(&withJSON, as); err != nil {
		t.Fatal(err)
	}
	if err := AnalysisJSON(&withoutJSON, plain); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(withoutJSON.String(), `"metrics"`) {
		t.Error("JSON without --metrics has a metrics section")
	}
	var doc struct {
		Applications []struct {
			Metrics *correlate.Result `json:"metrics"`
		} `json:"applications"`
	}
	if err := json.Unmarshal(withJSON.Bytes(), &doc); err != nil {
		t.Fatalf("JSON with metrics: %v", err)
	}
	for i, a := range doc.Applications {
		m := a.Metrics
		if m == nil || len(m.Hosts) == 0 || len(m.Unmatched) > 0 || len(m.Stages) != len(as[i].Summary.Stages) || m.InTasks == 0 {
			t.Fatalf("application %d: metrics %+v", i, m)
		}
		for _, s := range m.Stages {
			if s.Profile.Class == correlate.Unknown || len(s.Matrix.X) == 0 {
				t.Errorf("application %d stage %d: class %s, %d matrix rows", i, s.ID, s.Profile.Class, len(s.Matrix.X))
			}
		}
	}
	var text bytes.Buffer
	if err := AnalysisText(&text, as[0], 0); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "Node metrics (HybridTune") || !strings.Contains(text.String(), "-bound") {
		t.Errorf("text has no metrics section:\n%s", text.String())
	}
	_, p := pageData(t, as, HTMLOptions{})
	for i, h := range p.Applications {
		m := h.Metrics
		if m == nil || h.Timeline == nil || m.Start != h.Timeline.Start || m.WallMs != h.Timeline.WallMs || len(m.Hosts) == 0 {
			t.Fatalf("application %d: metrics %+v", i, m)
		}
		// A bin's CPU value is the mean of the host's samples that fall in it.
		f := fr.Host(m.Hosts[0])
		cpu := model.NodeMetricIndex("cpu_usage")
		var sum float64
		n := 0
		for r, ts := range f.Times {
			if mid := ts - f.IntervalMs/2; mid >= m.Start && mid < m.Start+m.BinMs {
				sum += float64(f.Value(r, cpu))
				n++
			}
		}
		if got := m.CPU[0][0]; n > 0 && (got < sum/float64(n)-0.01 || got > sum/float64(n)+0.01) {
			t.Errorf("application %d host %s: first bin %g, samples' mean %g", i, m.Hosts[0], got, sum/float64(n))
		}
		// The heat map's cells are the stage matrices' cpu_usage means.
		if m.Matrix == nil || len(m.Matrix.CPU) != len(m.Hosts) {
			t.Fatalf("application %d: no stage matrix for the heat map", i)
		}
		cells := 0
		for _, s := range as[i].Metrics.Stages {
			col := slices.Index(m.Matrix.Stages, fmt.Sprintf("stage %d", s.ID))
			for k, host := range s.Matrix.Hosts {
				if row := slices.Index(m.Hosts, host); row >= 0 && col >= 0 {
					cells++
					if got, want := m.Matrix.CPU[row][col], s.Matrix.X[k][s.Matrix.Column("cpu_usage")]; math.Abs(got-want) > 0.05 {
						t.Errorf("application %d %s stage %d: heat map %g, matrix %g", i, host, s.ID, got, want)
					}
				}
			}
		}
		if cells == 0 {
			t.Errorf("application %d: no heat map cell checked", i)
		}
		// Every exact bar's attempt has its profile for the tooltip.
		for _, b := range h.Timeline.Bars {
			if tp, ok := m.Tasks[fmt.Sprintf("%d/%d", b[4], b[5])]; !ok || tp[0] < 0 || tp[0] >= len(m.Classes) || tp[1]+tp[2]+tp[3] > 101 {
				t.Fatalf("application %d: bar %v: profile %v (%v)", i, b, tp, ok)
			}
		}
		if len(m.CPU) != len(m.Hosts) || len(m.Disk[0]) != len(m.CPU[0]) || int64(len(m.CPU[0]))*m.BinMs < m.WallMs {
			t.Errorf("application %d: %d hosts, %d series, %d bins of %d ms for %d ms", i, len(m.Hosts), len(m.CPU), len(m.CPU[0]), m.BinMs, m.WallMs)
		}
	}
	_, p = pageData(t, plain, HTMLOptions{})
	for _, h := range p.Applications {
		if h.Metrics != nil {
			t.Error("HTML without metrics has node timelines")
		}
	}
}

// BenchmarkAnalyzeMetrics measures what node metrics add to analyze: every
// application of the simulator's clean scenario (4 applications, 12 nodes,
// every node sampled each second) analyzed without and with its samples
// (reading the samples is the metrics package's and not counted).
func BenchmarkAnalyzeMetrics(b *testing.B) {
	sc, err := sim.Named("clean")
	if err != nil {
		b.Fatal(err)
	}
	sc.Metrics.EveryNth = 1
	var buf bytes.Buffer
	res, err := sim.Simulate(sc, 1, &buf)
	if err != nil {
		b.Fatal(err)
	}
	fr := correlate.NewFrames(0, 0)
	if err := metrics.ReadCSV(&buf, "metrics.csv", func(s *model.Sample) error { fr.Add(s); return nil }); err != nil {
		b.Fatal(err)
	}
	fr.Finish()
	for _, tc := range []struct {
		name string
		fr   *correlate.Frames
	}{{"without", nil}, {"with", fr}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				for _, app := range res.Apps {
					analysis.Build(app, analysis.Options{Reconstruction: true, Metrics: tc.fr})
				}
			}
		})
	}
}
