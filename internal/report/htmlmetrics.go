package report

import (
	"fmt"
	"math"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/analysis"
	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/model"
)

// MetricBins is the most time bins of a node-metric timeline.
const MetricBins = 400

// htmlMetrics is the correlation as the page draws it: per-node CPU, disk
// and network timelines on the task timeline's time axis (HiTune, Dai et
// al., USENIX ATC'11, Figure 16) and each stage's resource profile. Times
// are milliseconds from Start, the timeline's origin.
type htmlMetrics struct {
	Start  int64    `json:"start"`
	WallMs int64    `json:"wallMs"`
	BinMs  int64    `json:"binMs"`
	SkewMs int64    `json:"skewMs"`
	Hosts  []string `json:"hosts"`
	// CPU (cpu_usage, %), Disk (read + write, B/s) and Net (received +
	// sent, B/s) per host and bin; null where no sample fell.
	CPU      []correlate.Vector `json:"cpu"`
	Disk     []correlate.Vector `json:"disk"`
	Net      []correlate.Vector `json:"net"`
	HostsAll int                `json:"hostsAll"`
	Stages   []htmlStageProfile `json:"stages"`
	// Tasks are the attempts' profiles for the exact timeline's tooltips,
	// keyed "stage id/task id": [class (index into Classes), cpu %, disk %,
	// network %].
	Tasks   map[string][4]int `json:"tasks,omitempty"`
	Classes []string          `json:"classes,omitempty"`
	// Matrix is the stage-resource correlation's CPU column: per drawn
	// host (rows, as Hosts) and stage (columns), the mean cpu_usage over
	// the samples of the stage's active period there (null: the stage
	// did not run there), and how many samples.
	Matrix *htmlStageMatrix `json:"matrix,omitempty"`
	Note   string           `json:"note"`
}

// htmlStageMatrix is the (stage, node) CPU matrix the page draws as a heat
// map.
type htmlStageMatrix struct {
	Stages  []string           `json:"stages"`
	CPU     []correlate.Vector `json:"cpu"`
	Samples [][]int            `json:"samples"`
}

// htmlStageProfile is one stage's resource profile.
type htmlStageProfile struct {
	ID      int32   `json:"id"`
	Attempt int32   `json:"attempt"`
	Name    string  `json:"name"`
	Class   string  `json:"class"`
	CPU     float64 `json:"cpu"`
	Disk    float64 `json:"disk"`
	Network float64 `json:"network"`
	Tasks   int     `json:"tasks"`
}

// buildHTMLMetrics bins each matched host's samples over [start,
// start+wallMs] (at most MaxHTMLNodes hosts, in name order); with exact
// (not binned) timeline bars it adds each attempt's profile.
func buildHTMLMetrics(a *analysis.Analysis, start, wallMs int64, exact bool) *htmlMetrics {
	c, r := a.Correlation(), a.Metrics
	wallMs = max(wallMs, 1)
	m := &htmlMetrics{Start: start, WallMs: wallMs, SkewMs: r.SkewMs, Hosts: []string{}, CPU: []correlate.Vector{},
		Disk: []correlate.Vector{}, Net: []correlate.Vector{}, HostsAll: c.Hosts(), Stages: []htmlStageProfile{}}
	var iv int64 = correlate.DefaultIntervalMs
	for k := range c.Hosts() {
		_, _, hiv := c.Host(k)
		iv = max(iv, hiv)
	}
	m.BinMs = max(iv, (wallMs+MetricBins-1)/MetricBins)
	bins := int((wallMs + m.BinMs - 1) / m.BinMs)
	for k := range min(c.Hosts(), MaxHTMLNodes) {
		hm, f, hiv := c.Host(k)
		cpu, disk, net := binSeries(f, hiv, start, m.BinMs, bins)
		m.Hosts = append(m.Hosts, hm.Host)
		m.CPU, m.Disk, m.Net = append(m.CPU, cpu), append(m.Disk, disk), append(m.Net, net)
	}
	for _, s := range r.Stages {
		n := 0
		for _, k := range s.Profile.Tasks {
			n += k
		}
		m.Stages = append(m.Stages, htmlStageProfile{ID: s.ID, Attempt: s.Attempt, Name: truncate(s.Name, 80), Class: s.Profile.Class.String(),
			CPU: s.Profile.CPU, Disk: s.Profile.Disk, Network: s.Profile.Network, Tasks: n})
	}
	if len(m.Stages) > MaxHTMLStages {
		m.Stages = m.Stages[:MaxHTMLStages]
	}
	m.Matrix = stageCPUMatrix(r, m.Hosts)
	if exact {
		m.Tasks = map[string][4]int{}
		for cl := correlate.Unknown; cl <= correlate.Mixed; cl++ {
			m.Classes = append(m.Classes, cl.String())
		}
		app := a.Correlation().App()
		pct := func(f float64) int { return int(math.Round(100 * f)) }
		c.Profiles(func(tp *correlate.TaskProfile) {
			st := app.Stages[tp.Stage]
			key := strconv.Itoa(int(st.ID)) + "/" + strconv.FormatInt(st.Tasks[tp.Task].ID, 10)
			m.Tasks[key] = [4]int{int(tp.Class), pct(tp.CPU), pct(tp.Disk), pct(tp.Network)}
		})
	}
	m.Note = fmt.Sprintf("%d hosts with samples", c.Hosts())
	if c.Hosts() > MaxHTMLNodes {
		m.Note += fmt.Sprintf(", the first %d drawn", MaxHTMLNodes)
	}
	if len(r.Unmatched) > 0 {
		m.Note += fmt.Sprintf("; %d hosts that ran tasks have none", len(r.Unmatched))
	}
	m.Note += fmt.Sprintf("; %s per point; clock-skew tolerance %s", Millis(m.BinMs), Millis(r.SkewMs))
	return m
}

var (
	mCPU    = model.NodeMetricIndex("cpu_usage")
	mDiskR  = model.NodeMetricIndex("disk_read_bw")
	mDiskW  = model.NodeMetricIndex("disk_write_bw")
	mNetIn  = model.NodeMetricIndex("net_recv_bw")
	mNetOut = model.NodeMetricIndex("net_send_bw")
)

// binSeries averages a host's CPU, disk and network samples into bins of
// binMs from start; a sample stamped t is placed at the middle of the
// interval (t-iv, t] it describes.
func binSeries(f *correlate.Frame, iv, start, binMs int64, bins int) (cpu, disk, net correlate.Vector) {
	type sum struct {
		v float64
		n int
	}
	s := make([][3]sum, bins)
	for i, t := range f.Times {
		b := (t - iv/2 - start) / binMs
		if t-iv/2 < start || b >= int64(bins) {
			continue
		}
		for j, v := range [3]float64{val(f, i, mCPU), val2(f, i, mDiskR, mDiskW), val2(f, i, mNetIn, mNetOut)} {
			if !math.IsNaN(v) {
				s[b][j].v += v
				s[b][j].n++
			}
		}
	}
	out := [3]correlate.Vector{make(correlate.Vector, bins), make(correlate.Vector, bins), make(correlate.Vector, bins)}
	for b := range s {
		for j := range 3 {
			out[j][b] = math.NaN()
			if s[b][j].n > 0 {
				out[j][b] = math.Round(s[b][j].v/float64(s[b][j].n)*100) / 100
			}
		}
	}
	return out[0], out[1], out[2]
}

func val(f *correlate.Frame, i, m int) float64 { return float64(f.Value(i, m)) }

// val2 sums two metrics, NaN when both are missing.
func val2(f *correlate.Frame, i, a, b int) float64 {
	x, y := val(f, i, a), val(f, i, b)
	switch {
	case math.IsNaN(x):
		return y
	case math.IsNaN(y):
		return x
	}
	return x + y
}

// stageCPUMatrix arranges the stages' mean cpu_usage per host (the first
// MaxHTMLStages stages that ran on a sampled host), nil when none did.
func stageCPUMatrix(r *correlate.Result, hosts []string) *htmlStageMatrix {
	row := map[string]int{}
	for i, h := range hosts {
		row[h] = i
	}
	sm := &htmlStageMatrix{Stages: []string{}, CPU: make([]correlate.Vector, len(hosts)), Samples: make([][]int, len(hosts))}
	for _, s := range r.Stages {
		j := s.Matrix.Column("cpu_usage")
		if j < 0 || len(s.Matrix.Hosts) == 0 {
			continue
		}
		if len(sm.Stages) == MaxHTMLStages {
			break
		}
		label := fmt.Sprintf("stage %d", s.ID)
		if s.Attempt > 0 {
			label += fmt.Sprintf(".%d", s.Attempt)
		}
		sm.Stages = append(sm.Stages, label)
		for i := range hosts {
			sm.CPU[i] = append(sm.CPU[i], math.NaN())
			sm.Samples[i] = append(sm.Samples[i], 0)
		}
		col := len(sm.Stages) - 1
		for k, h := range s.Matrix.Hosts {
			if i, ok := row[h]; ok {
				sm.CPU[i][col] = math.Round(s.Matrix.X[k][j]*10) / 10
				sm.Samples[i][col] = s.Matrix.Samples[k]
			}
		}
	}
	if len(sm.Stages) == 0 {
		return nil
	}
	return sm
}
