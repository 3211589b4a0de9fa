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

// acc sums metric values per window and host.
type acc struct {
	sum [NumMetrics]float64
	n   [NumMetrics]int32
	row int
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

// matrices averages each window's samples per host; each(k, fn) visits
// host k's (row, window id) pairs and n is the number of window ids.
func (c *Correlation) matrices(n int, each func(k int, fn func(row int, id int32))) []Matrix {
	cols := c.metricColumns()
	names := make([]string, len(cols))
	for j, m := range cols {
		names[j] = model.NodeMetricNames[m]
	}
	type cell struct {
		host string
		a    *acc
	}
	per := make([][]cell, n)
	cur := make([]*acc, n)
	for k := range c.hosts {
		h := &c.hosts[k]
		clear(cur)
		each(k, func(row int, id int32) {
			a := cur[id]
			if a == nil {
				a = &acc{}
				cur[id] = a
				per[id] = append(per[id], cell{h.match.Host, a})
			}
			a.row++
			for m, v := range h.frame.Row(row) {
				if !isNaN(v) {
					a.sum[m] += float64(v)
					a.n[m]++
				}
			}
		})
	}
	out := make([]Matrix, n)
	for id, cells := range per {
		slices.SortFunc(cells, func(x, y cell) int { return cmp.Compare(x.host, y.host) })
		mx := Matrix{Metrics: names, Hosts: []string{}, X: []Vector{}, Samples: []int{}}
		for _, cl := range cells {
			x := make(Vector, len(cols))
			for j, m := range cols {
				x[j] = math.NaN()
				if cl.a.n[m] > 0 {
					x[j] = cl.a.sum[m] / float64(cl.a.n[m])
				}
			}
			mx.Hosts = append(mx.Hosts, cl.host)
			mx.X = append(mx.X, x)
			mx.Samples = append(mx.Samples, cl.a.row)
		}
		out[id] = mx
	}
	return out
}

// StageMatrices returns the stage-resource matrix of every stage attempt,
// indexed like App.Stages (a stage with no sampled host has no rows).
func (c *Correlation) StageMatrices() []StageMatrix {
	ms := c.matrices(len(c.app.Stages), c.EachStage)
	out := make([]StageMatrix, len(ms))
	for i, m := range ms {
		out[i] = StageMatrix{Stage: c.app.Stages[i].Key(), Matrix: m}
	}
	return out
}

// JobMatrices returns the job-resource matrix of every job, indexed like
// App.Jobs.
func (c *Correlation) JobMatrices() []JobMatrix {
	ms := c.matrices(len(c.app.Jobs), c.EachJob)
	out := make([]JobMatrix, len(ms))
	for i, m := range ms {
		out[i] = JobMatrix{Job: c.app.Jobs[i].ID, Matrix: m}
	}
	return out
}
