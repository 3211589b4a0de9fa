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
	index   map[string]int
	metrics []string
	dim     int
	rows    map[rowKey]*row
	// dup counts, per host, samples of a metric and instant already held
	// (overlapping inputs), and of those the ones with another value.
	dup map[string]*Overlap
	// seen counts the samples of each metric.
	seen []int
}

// Overlap is what a host's inputs gave twice: Samples of a metric at an
// instant already given (kept once, the first), Conflicting of them with
// another value, between From and To (Unix ms).
type Overlap struct {
	Host        string `json:"host"`
	Samples     int    `json:"samples"`
	Conflicting int    `json:"conflicting"`
	From        int64  `json:"fromMs"`
	To          int64  `json:"toMs"`
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
	dim := min(len(metrics), 64)
	return &Table{index: idx, metrics: metrics[:dim], dim: dim, rows: map[rowKey]*row{}, dup: map[string]*Overlap{}, seen: make([]int, dim)}
}

// Add records one sample; other types, samples with a Target and values
// that are not finite are ignored, and a repeated metric keeps its first
// value and is counted (Overlaps).
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
		tb.seen[i]++
		return
	}
	o := tb.dup[s.Host]
	if o == nil {
		o = &Overlap{Host: s.Host, From: s.Time, To: s.Time}
		tb.dup[s.Host] = o
	}
	o.Samples++
	if r.x[i] != s.Value {
		o.Conflicting++
	}
	o.From, o.To = min(o.From, s.Time), max(o.To, s.Time)
}

// Overlaps returns, per host (by name), what its inputs gave more than
// once: overlapping files or sources of one host and time.
func (tb *Table) Overlaps() []Overlap {
	out := make([]Overlap, 0, len(tb.dup))
	for _, o := range tb.dup {
		out = append(out, *o)
	}
	slices.SortFunc(out, func(a, b Overlap) int { return strings.Compare(a.Host, b.Host) })
	return out
}

// Missing returns the table's metrics no sample gave (a source that does
// not record them: nmon has no load average or process count).
func (tb *Table) Missing() []string {
	var out []string
	for i, n := range tb.seen {
		if n == 0 {
			out = append(out, tb.metrics[i])
		}
	}
	return out
}

// Each calls fn with every complete vector in time order (hosts by name
// within an instant) and returns how many incomplete ones it skipped.
func (tb *Table) Each(fn func(host string, t int64, x []float64)) (incomplete int) {
	return tb.EachOf(tb.metrics, fn)
}

// EachOf is Each over metrics, a subset of the table's: a vector is
// complete when it has those, and fn gets them in that order.
func (tb *Table) EachOf(metrics []string, fn func(host string, t int64, x []float64)) (incomplete int) {
	var want uint64
	pos := make([]int, len(metrics))
	for k, m := range metrics {
		i, ok := tb.index[m]
		if !ok || i >= tb.dim {
			panic("peer: EachOf metric " + m + " not in the table")
		}
		want |= 1 << i
		pos[k] = i
	}
	x := make([]float64, len(metrics))
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
	for _, k := range keys {
		r := tb.rows[k]
		if r.have&want != want {
			incomplete++
			continue
		}
		for j, i := range pos {
			x[j] = r.x[i]
		}
		fn(k.host, k.t, x)
	}
	return incomplete
}

// Present returns the metrics of want the table has samples of, in want's
// order (a source without some of them: train on the rest).
func (tb *Table) Present(want []string) []string {
	var out []string
	for _, m := range want {
		if i, ok := tb.index[m]; ok && i < tb.dim && tb.seen[i] > 0 {
			out = append(out, m)
		}
	}
	return out
}
