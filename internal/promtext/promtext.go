// Package promtext serves metrics in Prometheus's text exposition format
// (version 0.0.4, https://prometheus.io/docs/instrumenting/exposition_formats/):
// counters, a counter per label value, histograms, and the Go runtime's
// and the process's own metrics under the names Prometheus's Go client
// gives them. It is what the collector's /metrics needs and no more: the
// Go client links Protocol Buffers and more, 3.3 MB of the clusterlens
// binary (docs/ARCHITECTURE.md, "What the binary carries").
package promtext

import (
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Collector writes metric families.
type Collector interface {
	Collect(w *Writer)
}

// Registry is the collectors one /metrics serves, in the order they were
// registered.
type Registry struct {
	mu sync.Mutex
	cs []Collector
}

// NewRegistry returns a registry holding the collectors given.
func NewRegistry(cs ...Collector) *Registry { return &Registry{cs: cs} }

// Register adds collectors.
func (r *Registry) Register(cs ...Collector) {
	r.mu.Lock()
	r.cs = append(r.cs, cs...)
	r.mu.Unlock()
}

// ServeHTTP writes every collector's metrics.
func (r *Registry) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	r.mu.Lock()
	cs := slices.Clone(r.cs)
	r.mu.Unlock()
	var m Writer
	for _, c := range cs {
		c.Collect(&m)
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write(m.b)
}

// Writer accumulates metric families in the text format.
type Writer struct {
	b []byte
}

// Family starts a metric family: its help text and type ("counter",
// "gauge", "histogram").
func (w *Writer) Family(name, help, typ string) {
	w.b = append(w.b, "# HELP "...)
	w.b = append(w.b, name...)
	w.b = append(w.b, ' ')
	w.b = append(w.b, strings.NewReplacer(`\`, `\\`, "\n", `\n`).Replace(help)...)
	w.b = append(w.b, "\n# TYPE "...)
	w.b = append(w.b, name...)
	w.b = append(w.b, ' ')
	w.b = append(w.b, typ...)
	w.b = append(w.b, '\n')
}

// Sample writes one sample of the family last started: its name (the
// family's, or with a _bucket, _sum or _count suffix), value and label
// pairs (name, value, name, value, ...).
func (w *Writer) Sample(name string, v float64, labels ...string) {
	w.b = append(w.b, name...)
	if len(labels) > 0 {
		w.b = append(w.b, '{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			w.b = append(w.b, labels[i]...)
			w.b = append(w.b, `="`...)
			w.b = append(w.b, labelEscaper.Replace(labels[i+1])...)
			w.b = append(w.b, '"')
		}
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, ' ')
	w.b = appendFloat(w.b, v)
	w.b = append(w.b, '\n')
}

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// appendFloat formats v as the Go client does.
func appendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsNaN(v):
		return append(b, "NaN"...)
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// value is a float64 updated atomically.
type value struct{ bits atomic.Uint64 }

func (v *value) add(d float64) {
	for {
		old := v.bits.Load()
		if v.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

func (v *value) get() float64 { return math.Float64frombits(v.bits.Load()) }

// Counter is a value that only goes up.
type Counter struct {
	name, help string
	v          value
}

// NewCounter returns a counter at 0.
func NewCounter(name, help string) *Counter { return &Counter{name: name, help: help} }

// Inc adds 1.
func (c *Counter) Inc() { c.v.add(1) }

// Add adds d (not negative).
func (c *Counter) Add(d float64) { c.v.add(d) }

// Value is the count.
func (c *Counter) Value() float64 { return c.v.get() }

// Collect writes the counter.
func (c *Counter) Collect(w *Writer) {
	w.Family(c.name, c.help, "counter")
	w.Sample(c.name, c.v.get())
}

// CounterVec is a counter per value of one label.
type CounterVec struct {
	name, help, label string
	mu                sync.Mutex
	by                map[string]*value
}

// NewCounterVec returns a counter per value of label, none yet.
func NewCounterVec(name, help, label string) *CounterVec {
	return &CounterVec{name: name, help: help, label: label, by: map[string]*value{}}
}

// Add adds d to the counter of label value lv, creating it at 0.
func (c *CounterVec) Add(lv string, d float64) {
	c.mu.Lock()
	v := c.by[lv]
	if v == nil {
		v = &value{}
		c.by[lv] = v
	}
	c.mu.Unlock()
	v.add(d)
}

// Collect writes the counters, by label value.
func (c *CounterVec) Collect(w *Writer) {
	c.mu.Lock()
	keys := make([]string, 0, len(c.by))
	for k := range c.by {
		keys = append(keys, k)
	}
	c.mu.Unlock()
	slices.Sort(keys)
	w.Family(c.name, c.help, "counter")
	for _, k := range keys {
		c.mu.Lock()
		v := c.by[k]
		c.mu.Unlock()
		w.Sample(c.name, v.get(), c.label, k)
	}
}

// Histogram counts observations in buckets of upper bounds.
type Histogram struct {
	name, help string
	bounds     []float64
	counts     []atomic.Uint64 // per bucket, not cumulative; the last is +Inf
	sum        value
}

// NewHistogram returns a histogram with the given increasing upper
// bounds (+Inf is added).
func NewHistogram(name, help string, bounds []float64) *Histogram {
	return &Histogram{name: name, help: help, bounds: bounds, counts: make([]atomic.Uint64, len(bounds)+1)}
}

// ExponentialBuckets are n bounds from start, each factor times the one
// before.
func ExponentialBuckets(start, factor float64, n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = start
		start *= factor
	}
	return b
}

// Observe counts v in the first bucket whose bound is at least v.
func (h *Histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.bounds, v)
	h.counts[i].Add(1)
	h.sum.add(v)
}

// Collect writes the cumulative buckets, the sum and the count.
func (h *Histogram) Collect(w *Writer) {
	w.Family(h.name, h.help, "histogram")
	var n uint64
	for i := range h.counts {
		n += h.counts[i].Load()
		le := "+Inf"
		if i < len(h.bounds) {
			le = string(appendFloat(nil, h.bounds[i]))
		}
		w.Sample(h.name+"_bucket", float64(n), "le", le)
	}
	w.Sample(h.name+"_sum", h.sum.get())
	w.Sample(h.name+"_count", float64(n))
}
