// Package metrics reads node samples (model.Sample) from every source
// clusterlens reads from files and services (the agent's batches have their
// own package, wire): the Prometheus HTTP API over node_exporter (PromSource), sysstat's `sadf -j`
// output and sadc data files (ReadSysstat, ReadSadc), nmon recordings of
// Linux and AIX (ReadNmon, ReadNmonFile) and CSV
// (timestamp_ms,host,metric,value, plain or compressed: ReadCSV,
// ReadCSVFile). ReadSource picks the reader for a URL, a file or a
// directory. Each reader maps what it reads to the canonical names in
// model.NodeMetricNames; docs/SOURCES.md has the mapping tables.
package metrics
