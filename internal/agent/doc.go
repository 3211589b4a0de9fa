// Package agent is the node daemon (HiTune's tracker, Dai et al., USENIX
// ATC'11, §4.1): it runs the enabled samplers each at its interval, groups
// their samples into batches (one per second, or sooner when a batch is
// full), numbers the batches (Agent id stable per node, Seq increasing
// across restarts) and POSTs them to the collector.
//
// Delivery is at least once: a batch the collector did not acknowledge
// with a 2xx goes to an on-disk spool and is replayed, oldest first, with
// exponential backoff once the collector answers again; it leaves the spool
// only after a 2xx. The collector de-duplicates by (Agent, Seq), so every
// sample is stored exactly once. The spool is bounded: when adding a batch
// would exceed Config.SpoolMaxBytes the oldest spooled batches are deleted,
// counted (Stats.Dropped) and logged. A batch the collector refuses for
// what it is (400, 413, 415 and other 4xx) is logged and dropped
// (Stats.Rejected), never retried; 401, 403, 404, 408 and 429 say the agent
// is misconfigured or the collector busy, so those batches are kept and
// retried like 5xx.
//
// Spool directory layout: agent-id (the id, created once), seq (the highest
// sequence number reserved; numbers are reserved in blocks of 1024 with one
// fsync per block, so a restart may skip numbers but never reuses one) and
// batches/<seq>.clb, each a batch in the collector's wire format.
package agent
