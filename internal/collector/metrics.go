package collector

import "github.com/clusterlens/clusterlens/internal/promtext"

// Reject reasons, the values of the rejected_batches_total reason label.
const (
	reasonUnauthorized = "unauthorized"
	reasonMethod       = "method"
	reasonTooLarge     = "too_large"
	reasonEncoding     = "encoding"
	reasonMalformed    = "malformed"
	reasonStore        = "store"
)

// serverMetrics are the collector's own metrics.
type serverMetrics struct {
	batches    *promtext.Counter
	samples    *promtext.Counter
	duplicates *promtext.Counter
	rejects    *promtext.CounterVec
	latency    *promtext.Histogram
}

// newServerMetrics registers the collector's metrics in reg, creating reg
// with the Go runtime's and the process's metrics when it is nil.
func newServerMetrics(reg *promtext.Registry) (*promtext.Registry, *serverMetrics) {
	if reg == nil {
		reg = promtext.NewRegistry(promtext.Runtime{})
	}
	m := &serverMetrics{
		batches:    promtext.NewCounter("clusterlens_collector_batches_ingested_total", "Batches stored for the first time."),
		samples:    promtext.NewCounter("clusterlens_collector_samples_ingested_total", "Samples stored (duplicates excluded)."),
		duplicates: promtext.NewCounter("clusterlens_collector_duplicate_batches_total", "Batches received again after they were stored (acknowledged, not stored twice)."),
		rejects:    promtext.NewCounterVec("clusterlens_collector_rejected_batches_total", "Requests to /v1/batches refused, by reason.", "reason"),
		latency: promtext.NewHistogram("clusterlens_collector_ingest_seconds",
			"Time from receiving a batch request to its reply (decode and store included), for accepted batches.",
			promtext.ExponentialBuckets(0.0005, 2, 15)), // 0.5 ms … 8 s
	}
	for _, r := range []string{reasonUnauthorized, reasonMethod, reasonTooLarge, reasonEncoding, reasonMalformed, reasonStore} {
		m.rejects.Add(r, 0) // export zeros, so rates exist from the start
	}
	reg.Register(m.batches, m.samples, m.duplicates, m.rejects, m.latency)
	return reg, m
}
