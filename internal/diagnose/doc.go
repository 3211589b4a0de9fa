// Package diagnose turns analyses of an application into Findings: what is
// wrong, how bad (Dr. Elephant's five severities), where (application, job,
// stage, node or task), the numbers that triggered it with the thresholds
// they were compared with, and what to change.
//
// Detectors are an open set: each lives in its own file, registers itself in
// init() like a node_exporter collector, cites its source, and exposes its
// parameters as a typed Params struct whose Default…Params variable holds the
// source's values (or clusterlens's, said so, where the source has none).
// Run executes them in name order; docs/FINDINGS.md documents every detector
// and the JSON form of a Finding.
package diagnose
