// Package collector is the ingest server (HiTune's aggregation engine,
// Dai et al., USENIX ATC'11, §4.2): agents POST batches in the wire format
// of package metrics to /v1/batches; the collector authenticates them,
// validates and de-duplicates them and writes them through a store.Store.
// It also serves GET /healthz and GET /metrics (Prometheus exposition).
//
// Replies to POST /v1/batches, which the agent's retry logic relies on:
//
//	200  stored, or already stored (body {"seq":N,"samples":N,"dup":bool})
//	400  malformed batch (one-line reason): do not retry
//	401  missing or wrong bearer token
//	405  not a POST
//	413  body larger than Config.MaxBodyBytes: do not retry
//	415  Content-Encoding other than zstd or identity: do not retry
//	503  the store failed: retry later (Retry-After: 1)
package collector
