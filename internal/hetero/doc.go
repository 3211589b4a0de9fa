// Package hetero diagnoses nodes of heterogeneous clusters with per-node
// performance models learned from the run history: PARC (Gupta, Fritz,
// de Kleer and Witteveen, "Diagnosing heterogeneous Hadoop clusters",
// DX 2012) and a joint low-rank model that goes past it.
//
// A node is judged against what its own model expects, not against its
// peers: a node slow by design (an older generation, a smaller instance)
// is of a "slow class", not a culprit, and a fast node that degraded is
// caught even when it is no slower than the cluster's median.
//
// The input is history.Run rows with their HostStage moments (count, Σd,
// Σd², Σ ln d, Σ (ln d)² of the successful task durations per run, stage
// and host): no task is needed. A job class is a stage signature within a
// recurring job (engine, normalized name, signature); its resource class
// (cpu, io, shuffle) is history.Classify's, judged from the task metrics,
// so no special base jobs are needed, and named base jobs are accepted
// too (Params.BaseJobs).
//
// Two models share the data (cells.go) and the verdicts (verdict.go):
//
//   - Paper (paper.go): the paper's Gaussian models per node and base
//     class (eq. 1–2), the complexity coefficient α of a job relative to
//     its base class (eq. 3–4) and its leave-one-out estimate α* (eq. 5),
//     the expected μ*, σ* of a node for the job (eq. 6–7), the density of
//     the node's average task duration (eq. 8), and a node degraded when
//     it is far below the other nodes' average (§4.5).
//   - Joint (joint.go): log task time = run-stage offset + node factor ·
//     job-class factor (rank Params.Rank, fitted by alternating least
//     squares with per-cell weights from the tasks' count and spread), so
//     node speeds and job resource mixes are learned together from
//     ordinary runs, with an interval per node from its tasks (the paper's
//     §5 "simultaneous machine status and job characterization"); a
//     recurring stage's offset expected from its own history runs beside
//     the run's other nodes (prior.go), the residuals scored under the
//     history's own tail (tail.go), each run judged on its own (runs.go).
//   - Baseline (baseline.go): the plain rule every model is measured
//     beside.
//
// Equation and section numbers are the paper's (../shared/papers,
// 000_*.txt): §4.3 eq. 1–2 the node models, §4.4 eq. 3–4 α, §4.5 eq. 5 α*,
// eq. 6–7 μ* and σ*, eq. 8 the density and its test; docs/PAPERS.md walks
// the paper section by section against this package.
package hetero
