// Package explain answers "why was this run slower (or faster) than
// usual?" from the run history: it compares a run with its recurring job's
// usual runs (the median duration of the recent comparable runs, with
// their spread) and, when it is outside their usual variation, splits the
// difference into causes ranked by the share of the extra time each
// explains, each with its evidence; what no cause explains is said as
// such.
//
// The run's wall-clock time T is the driver's time (no stage running) plus
// each stage's share of the rest (concurrent stages split it), so the
// difference from the usual time is a sum over the driver and the stages
// (grouped by signature across runs, history.StageSignature). A stage's
// wall time W is, exactly, (S + F + I + L) / K: its successful attempts'
// time S, its failed attempts' time F, the slot time left idle while
// some of its tasks waited to be launched I, the idle slot time of its
// tail L, over K the slots it could use (executor cores alive, at most its
// task count). The three terms S+F over K, I over K and L over K are split
// into causes:
//
//   - work (S+F)/K by the additive log-mean Divisia index, LMDI-I (Ang,
//     "Decomposition analysis for policymaking in energy: which is the
//     preferred method?", Energy Policy 32(9), 2004: ΔW = Σ L(W, W₀)
//     ln(fᵢ/fᵢ₀) with L the logarithmic mean, exact, no residual) over its
//     factors:
//     more data (the stage's bytes scaled by the job's per-byte cost, an
//     elasticity fitted on the usual runs), failed attempts (S+F)/S,
//     slots (executors and, when the tasks are fewer than the cores, the
//     task count: more data for the tasks the stage's bytes explain,
//     partitioning for the rest), and the task time the data does not explain, which
//     garbage collection and spills, a slower node, a changed plan or
//     configuration claim in turn;
//   - waiting I/K to fewer executors or waiting for them (or the
//     configuration, when a scheduling setting changed);
//   - the tail L/K by the factors of the attempt the stage ended with:
//     its retries, its data (more data, partitioning, skew: its bytes
//     over the stage's median task's), its node and its garbage
//     collection.
//
// A slower node comes from a NodeModel (its tasks against what its own
// history makes expected of it; OwnHistory by default, package hetero's
// joint model as the commands use it, through package driver), changed
// settings from the usual runs' configuration
// (history.ConfigOf), changed plans from query.ComparePlans over the plans
// the history keeps. docs/EXPLAIN.md describes the method and its
// evaluation.
package explain
