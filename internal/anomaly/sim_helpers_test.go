package anomaly

import (
	"bytes"
	"fmt"
	"math"
	"testing"

	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// simWindow is one simulated run's node metrics in one time window: the
// per-host series of every canonical metric and each host's mean vector.
type simWindow struct {
	truth   *sim.Truth
	apps    []*model.App
	from    int64     // ms of the window's first sample slot
	times   [][]int64 // [host] sample times (of the first metric)
	hosts   []string
	metrics []string
	series  [][][]float64 // [host][metric][t]
	means   [][]float64   // [host][metric]
}

// simulate runs the named scenario with seed and returns its metrics in
// the window returns (ms, [from, to)); homogeneous replaces the
// heterogeneous cluster by one of its classes (gen2, 8 cores), read back with metrics.ReadCSV
// from the CSV the simulator streams.
func simulate(t testing.TB, name string, seed uint64, homogeneous bool, window func(*sim.Truth) (int64, int64)) *simWindow {
	t.Helper()
	sc, err := sim.Named(name)
	if err != nil {
		t.Fatal(err)
	}
	if homogeneous {
		c := sc.Cluster.Classes[1]
		c.Share = 1
		sc.Cluster.Classes = []sim.HardwareClass{c}
	}
	return simulateScenario(t, sc, seed, window)
}

// simulateScenario is simulate on a scenario built by the caller.
func simulateScenario(t testing.TB, sc *sim.Scenario, seed uint64, window func(*sim.Truth) (int64, int64)) *simWindow {
	t.Helper()
	name := sc.Name
	var buf bytes.Buffer
	res, err := sim.Simulate(sc, seed, &buf)
	if err != nil {
		t.Fatalf("simulate %s seed %d: %v", name, seed, err)
	}
	from, to := window(res.Truth)
	w := &simWindow{truth: res.Truth, apps: res.Apps, metrics: model.NodeMetricNames[:], from: from}
	hostIdx := map[string]int{}
	for _, n := range res.Truth.Nodes {
		if n.Sampled {
			hostIdx[n.Host] = len(w.hosts)
			w.hosts = append(w.hosts, n.Host)
		}
	}
	w.series = make([][][]float64, len(w.hosts))
	w.times = make([][]int64, len(w.hosts))
	for i := range w.series {
		w.series[i] = make([][]float64, len(w.metrics))
	}
	err = metrics.ReadCSV(&buf, name+" metrics", func(s *model.Sample) error {
		if s.Time < from || s.Time >= to {
			return nil
		}
		h, ok := hostIdx[s.Host]
		m := model.NodeMetricIndex(s.Type)
		if !ok || m < 0 {
			return nil
		}
		w.series[h][m] = append(w.series[h][m], s.Value)
		if m == 0 {
			w.times[h] = append(w.times[h], s.Time)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	w.means = make([][]float64, len(w.hosts))
	for h := range w.hosts {
		w.means[h] = make([]float64, len(w.metrics))
		for m, s := range w.series[h] {
			w.means[h][m] = meanOf(s)
		}
	}
	return w
}

// faultWindow is the first injected fault's window.
func faultWindow(tr *sim.Truth) (int64, int64) {
	if len(tr.Faults) == 0 {
		return tr.StartMs, tr.EndMs
	}
	return tr.Faults[0].StartMs, tr.Faults[0].EndMs
}

// culprit is the first fault's host, "" for none.
func culprit(tr *sim.Truth) string {
	if len(tr.Faults) == 0 {
		return ""
	}
	return tr.Faults[0].Host
}

func meanOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// stageView is one stage's part of a window: the hosts that ran its tasks
// and their per-metric series while it ran.
type stageView struct {
	name   string
	hosts  []string
	series [][][]float64
	means  [][]float64
}

// stages cuts w into the stages that ran at least minMs inside it, each
// with the sampled hosts that ran one of its tasks there (at least three).
func (w *simWindow) stages(minMs int64) []stageView {
	idx := map[string]int{}
	for i, h := range w.hosts {
		idx[h] = i
	}
	var out []stageView
	for _, app := range w.apps {
		for _, st := range app.Stages {
			var lo, hi int64 = math.MaxInt64, 0
			on := map[int]bool{}
			for i := range st.Tasks {
				tk := &st.Tasks[i]
				if tk.Finish == 0 {
					continue
				}
				lo, hi = min(lo, tk.Launch), max(hi, tk.Finish)
				if h, ok := idx[app.Hosts[tk.Host]]; ok {
					on[h] = true
				}
			}
			if hi-lo < minMs || len(on) < 3 {
				continue
			}
			v := stageView{name: fmt.Sprintf("%s/%d", app.ID, st.ID)}
			for h := range w.hosts {
				if !on[h] {
					continue
				}
				ser := make([][]float64, len(w.metrics))
				for m := range w.metrics {
					for k, t := range w.times[h] {
						if t > lo && t <= hi && k < len(w.series[h][m]) {
							ser[m] = append(ser[m], w.series[h][m][k])
						}
					}
				}
				if len(ser[0]) == 0 {
					continue
				}
				mean := make([]float64, len(ser))
				for m := range ser {
					mean[m] = meanOf(ser[m])
				}
				v.hosts = append(v.hosts, w.hosts[h])
				v.series = append(v.series, ser)
				v.means = append(v.means, mean)
			}
			if len(v.hosts) >= 3 {
				out = append(out, v)
			}
		}
	}
	return out
}
