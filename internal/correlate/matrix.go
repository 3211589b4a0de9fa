package correlate

import (
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Matrix holds per-host metric vectors: X[i][j] is the mean of metric
// Metrics[j] over the Samples[i] samples of host Hosts[i] that fall in the
// window (NaN, written null, when none had it). Hosts are the log's names,
// sorted.
type Matrix struct {
	Hosts   []string `json:"hosts"`
	Metrics []string `json:"metrics"`
	X       []Vector `json:"x"`
	Samples []int    `json:"samples"`
}

// Vector is a row of a Matrix.
type Vector []float64

// MarshalJSON writes NaN as null.
func (v Vector) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b = append(b, "null"...)
			continue
		}
		b = strconv.AppendFloat(b, x, 'g', 6, 64)
	}
	return append(b, ']'), nil
}

// Rows returns X as plain rows (sharing its storage), for code that takes
// [][]float64.
func (m *Matrix) Rows() [][]float64 {
	out := make([][]float64, len(m.X))
	for i, v := range m.X {
		out[i] = v
	}
	return out
}

// Column returns metric name's column index, or -1.
func (m *Matrix) Column(name string) int { return slices.Index(m.Metrics, name) }

// StageMatrix is the stage-resource correlation of one stage attempt
// (HybridTune §3.1): per host it ran on, the mean of each node metric over
// the samples in the stage's active period there. Rows are hosts, columns
// metrics, ready for abnormal-node detection by cosine similarity between
// the rows.
type StageMatrix struct {
	Stage model.StageKey `json:"stage"`
	Matrix
}

// JobMatrix is the job-resource correlation of one job: per host, the
// means over the samples in the span of the job's stages there.
type JobMatrix struct {
	Job int32 `json:"job"`
	Matrix
}

// prefix holds running sums and counts of each metric over a host's rows
// from base: entry (i, m) at i*NumMetrics+m covers rows [base, base+i).
type prefix struct {
	base int
	sum  []float64
	n    []int32
}

// build fills p for rows [lo, hi) of frame f, reusing its storage.
func (p *prefix) build(f *Frame, lo, hi int) {
	size := (hi - lo + 1) * NumMetrics
	p.base = lo
	p.sum, p.n = slices.Grow(p.sum[:0], size)[:size], slices.Grow(p.n[:0], size)[:size]
	clear(p.sum[:NumMetrics])
	clear(p.n[:NumMetrics])
	for i := range hi - lo {
		prev, next := i*NumMetrics, (i+1)*NumMetrics
		for m, v := range f.Row(lo + i) {
			p.sum[next+m], p.n[next+m] = p.sum[prev+m], p.n[prev+m]
			if !isNaN(v) {
				p.sum[next+m] += float64(v)
				p.n[next+m]++
			}
		}
	}
}

// rowRange returns the rows [lo, hi) of ascending times that belong to w
// by the membership rule (sweep's): t-iv-skew < end and start < t+skew.
func rowRange(times []int64, iv, skew int64, w window) (lo, hi int) {
	lo, _ = slices.BinarySearch(times, w.start-skew+1)
	hi, _ = slices.BinarySearch(times, w.end+iv+skew)
	return lo, hi
}

// metricColumns are the canonical metrics any matched host has a value for.
func (c *Correlation) metricColumns() []int {
	var have [NumMetrics]bool
	for _, h := range c.hosts {
		for i := range h.frame.Times {
			for m, v := range h.frame.Row(i) {
				if !isNaN(v) {
					have[m] = true
				}
			}
			if !slices.Contains(have[:], false) {
				break
			}
		}
	}
	var cols []int
	for m, ok := range have {
		if ok {
			cols = append(cols, m)
		}
	}
	return cols
}

// matrices averages each window's samples per host: ws(h) are host h's
// windows, n the number of window ids. A window's rows are a contiguous
// range of the host's sorted rows, so each mean is a difference of prefix
// sums: O(rows × metrics + windows × metrics) per host, whatever the
// windows' lengths.
func (c *Correlation) matrices(n int, ws func(h *hostIndex) []window) []Matrix {
	cols := c.metricColumns()
	names := make([]string, len(cols))
	for j, m := range cols {
		names[j] = model.NodeMetricNames[m]
	}
	out := make([]Matrix, n)
	for id := range out {
		out[id] = Matrix{Metrics: names, Hosts: []string{}, X: []Vector{}, Samples: []int{}}
	}
	var p prefix
	var ranges [][2]int
	for k := range c.hosts {
		h := &c.hosts[k]
		ranges = ranges[:0]
		first, last := len(h.times), 0
		for _, w := range ws(h) {
			lo, hi := rowRange(h.times, h.iv, c.skew, w)
			ranges = append(ranges, [2]int{lo, hi})
			if hi > lo {
				first, last = min(first, lo), max(last, hi)
			}
		}
		if last <= first {
			continue
		}
		p.build(h.frame, first, last)
		for i, w := range ws(h) {
			lo, hi := ranges[i][0], ranges[i][1]
			if hi <= lo {
				continue
			}
			a, b := (lo-p.base)*NumMetrics, (hi-p.base)*NumMetrics
			x := make(Vector, len(cols))
			for j, m := range cols {
				x[j] = math.NaN()
				if cnt := p.n[b+m] - p.n[a+m]; cnt > 0 {
					x[j] = (p.sum[b+m] - p.sum[a+m]) / float64(cnt)
				}
			}
			mx := &out[w.id]
			mx.Hosts = append(mx.Hosts, h.match.Host)
			mx.X = append(mx.X, x)
			mx.Samples = append(mx.Samples, hi-lo)
		}
	}
	for id := range out {
		sortRows(&out[id])
	}
	return out
}

// sortRows orders a matrix's rows by host.
func sortRows(m *Matrix) {
	idx := make([]int, len(m.Hosts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(m.Hosts[a], m.Hosts[b]) })
	hosts, x, n := make([]string, len(idx)), make([]Vector, len(idx)), make([]int, len(idx))
	for i, j := range idx {
		hosts[i], x[i], n[i] = m.Hosts[j], m.X[j], m.Samples[j]
	}
	m.Hosts, m.X, m.Samples = hosts, x, n
}

// StageMatrices returns the stage-resource matrix of every stage attempt,
// indexed like App.Stages (a stage with no sampled host has no rows).
func (c *Correlation) StageMatrices() []StageMatrix {
	ms := c.matrices(len(c.app.Stages), func(h *hostIndex) []window { return h.stages })
	out := make([]StageMatrix, len(ms))
	for i, m := range ms {
		out[i] = StageMatrix{Stage: c.app.Stages[i].Key(), Matrix: m}
	}
	return out
}

// JobMatrices returns the job-resource matrix of every job, indexed like
// App.Jobs.
func (c *Correlation) JobMatrices() []JobMatrix {
	ms := c.matrices(len(c.app.Jobs), func(h *hostIndex) []window { return h.jobs })
	out := make([]JobMatrix, len(ms))
	for i, m := range ms {
		out[i] = JobMatrix{Job: c.app.Jobs[i].ID, Matrix: m}
	}
	return out
}
