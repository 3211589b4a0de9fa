// Package sim is a discrete-event simulator of a cluster running Spark
// applications and MapReduce jobs, with injected node faults (CPU and disk
// hogs, packet loss, hangs, memory pressure, slow disks) and data problems
// (skew, workload imbalance, uneven placement, stragglers, scheduling gaps).
//
// Simulate and SimulateStream produce the applications as the project's
// decoders would read them from real logs (model.App), node metric samples
// streamed as CSV, and the ground truth; Run writes them into a folder with
// the encoders it is given (Spark 3.5 event logs, Hadoop 3 .jhist and job
// configuration, metrics.csv.zst, truth.json, scenario.json). Scenarios are
// JSON files (ParseScenario) or named (Named, Names). A run is deterministic
// by seed. MapReduce tasks go through the generic phases of Zhang,
// Cherkasova and Loo (ICPE'13). docs/SIMULATOR.md describes the model, the
// formats, the calibration against real logs and the scale benchmark.
package sim
