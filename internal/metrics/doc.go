// Package metrics reads node samples (model.Sample) from every source
// clusterlens knows: the agent's batches (its versioned wire format), the
// Prometheus HTTP API, sysstat's `sadf -j` output and CSV
// (timestamp_ms,host,metric,value). Each reader maps what it reads to the
// canonical names in model.NodeMetricNames.
package metrics
