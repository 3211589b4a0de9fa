package collector

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Reject reasons, the values of the rejected_batches_total reason label.
const (
	reasonUnauthorized = "unauthorized"
	reasonMethod       = "method"
	reasonTooLarge     = "too_large"
	reasonEncoding     = "encoding"
	reasonMalformed    = "malformed"
	reasonStore        = "store"
)

// serverMetrics are the collector's own Prometheus metrics.
type serverMetrics struct {
	batches    prometheus.Counter
	samples    prometheus.Counter
	duplicates prometheus.Counter
	rejects    *prometheus.CounterVec
	latency    prometheus.Histogram
}

// newServerMetrics registers the collector's metrics in reg, creating reg
// with the Go and process collectors when it is nil.
func newServerMetrics(reg *prometheus.Registry) (*prometheus.Registry, *serverMetrics, error) {
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	m := &serverMetrics{
		batches: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "clusterlens_collector_batches_ingested_total",
			Help: "Batches stored for the first time.",
		}),
		samples: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "clusterlens_collector_samples_ingested_total",
			Help: "Samples stored (duplicates excluded).",
		}),
		duplicates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "clusterlens_collector_duplicate_batches_total",
			Help: "Batches received again after they were stored (acknowledged, not stored twice).",
		}),
		rejects: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "clusterlens_collector_rejected_batches_total",
			Help: "Requests to /v1/batches refused, by reason.",
		}, []string{"reason"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "clusterlens_collector_ingest_seconds",
			Help:    "Time from receiving a batch request to its reply (decode and store included), for accepted batches.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 15), // 0.5 ms … 8 s
		}),
	}
	for _, r := range []string{reasonUnauthorized, reasonMethod, reasonTooLarge, reasonEncoding, reasonMalformed, reasonStore} {
		m.rejects.WithLabelValues(r) // export zeros, so rates exist from the start
	}
	for _, c := range []prometheus.Collector{m.batches, m.samples, m.duplicates, m.rejects, m.latency} {
		if err := reg.Register(c); err != nil {
			return nil, nil, err
		}
	}
	return reg, m, nil
}
