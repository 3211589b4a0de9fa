package peer

import (
	"cmp"
	"slices"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// GaneshaMetrics are the 14 OS metrics Ganesha samples on every node
// (Pan et al., 2009, Table 1), as clusterlens names them.
var GaneshaMetrics = model.NodeMetricNames[:model.NumGaneshaMetrics]

// Assembler groups a stream of samples into one vector per host and
// instant over a fixed list of metrics. Each host's samples must arrive in
// time order (hosts may interleave); a vector is complete when every metric
// of its instant arrived, and a host's incomplete vector is dropped (and
// counted) when a later instant of that host starts. It is not safe for
// concurrent use.
type Assembler struct {
	index   map[string]int
	dim     int
	hosts   map[string]*partial
	dropped int64
}

type partial struct {
	time int64
	x    []float64
	have []bool
	n    int
}

// NewAssembler returns an Assembler over metrics (names as in
// model.NodeMetricNames).
func NewAssembler(metrics []string) *Assembler {
	idx := make(map[string]int, len(metrics))
	for i, m := range metrics {
		idx[m] = i
	}
	return &Assembler{index: idx, dim: len(metrics), hosts: map[string]*partial{}}
}

// Dropped returns how many incomplete vectors were dropped.
func (a *Assembler) Dropped() int64 { return a.dropped }

// Add adds one sample; emit is called with each vector it completes. The
// slice passed to emit is reused: copy it to keep it. Samples of other
// types, with a Target, or not finite are ignored.
func (a *Assembler) Add(s *model.Sample, emit func(host string, t int64, x []float64)) {
	i, ok := a.index[s.Type]
	if !ok || s.Target != "" || s.Value != s.Value || s.Value > 1e300 || s.Value < -1e300 {
		return
	}
	p := a.hosts[s.Host]
	if p == nil {
		p = &partial{time: s.Time, x: make([]float64, a.dim), have: make([]bool, a.dim)}
		a.hosts[s.Host] = p
	}
	if s.Time != p.time {
		if s.Time < p.time {
			return // late sample of an instant already passed
		}
		if p.n > 0 {
			a.dropped++
		}
		p.time, p.n = s.Time, 0
		clear(p.have)
	}
	if p.have[i] {
		return
	}
	p.have[i] = true
	p.x[i] = s.Value
	p.n++
	if p.n == a.dim {
		emit(s.Host, p.time, p.x)
		p.n = 0
		clear(p.have)
		p.time++ // a repeat of the same instant starts a new, never complete vector
	}
}

// Table gathers samples in any order into complete vectors, for sources
// that do not deliver each host's samples in time order (a Prometheus
// range query answers metric by metric). It holds every vector until
// Each: about 150 bytes per node and second.
type Table struct {
	index map[string]int
	dim   int
	rows  map[rowKey]*row
}

type rowKey struct {
	host string
	t    int64
}

type row struct {
	x    []float64
	have uint64
}

// NewTable returns a Table over metrics (at most 64).
func NewTable(metrics []string) *Table {
	idx := make(map[string]int, len(metrics))
	for i, m := range metrics {
		idx[m] = i
	}
	return &Table{index: idx, dim: min(len(metrics), 64), rows: map[rowKey]*row{}}
}

// Add records one sample; other types, samples with a Target and values
// that are not finite are ignored, and a repeated metric keeps its first value.
func (tb *Table) Add(s *model.Sample) {
	i, ok := tb.index[s.Type]
	if !ok || i >= tb.dim || s.Target != "" || s.Value != s.Value || s.Value > 1e300 || s.Value < -1e300 {
		return
	}
	k := rowKey{s.Host, s.Time}
	r := tb.rows[k]
	if r == nil {
		r = &row{x: make([]float64, tb.dim)}
		tb.rows[k] = r
	}
	if r.have&(1<<i) == 0 {
		r.have |= 1 << i
		r.x[i] = s.Value
	}
}

// Each calls fn with every complete vector in time order (hosts by name
// within an instant) and returns how many incomplete ones it skipped.
func (tb *Table) Each(fn func(host string, t int64, x []float64)) (incomplete int) {
	keys := make([]rowKey, 0, len(tb.rows))
	for k := range tb.rows {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b rowKey) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return strings.Compare(a.host, b.host)
	})
	full := uint64(1)<<tb.dim - 1
	for _, k := range keys {
		r := tb.rows[k]
		if r.have != full {
			incomplete++
			continue
		}
		fn(k.host, k.t, r.x)
	}
	return incomplete
}
