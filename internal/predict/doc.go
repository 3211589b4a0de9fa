// Package predict estimates completion times, with lower and upper
// bounds, for new data sizes, cluster sizes and node types.
//
//   - MapReduce: Zhang, Cherkasova and Loo, "Benchmarking Approach for
//     Designing a MapReduce Performance Model" (ICPE'13): microbenchmarks
//     (Plan, WriteHadoopScript; §3), the platform model of the generic
//     phases by robust regression with a two-segment test (FitPlatform;
//     §4), compact job profiles (ProfileJob; §5) and their combination
//     (PredictMR), bounded by ARIA (Verma, Cherkasova and Campbell,
//     ICAC'11): the makespan theorem (Makespan; §3), the job's bounds
//     (JobBounds; §4.1) and the inverse question (MinSlots, MinSlotsMR;
//     §4.2).
//   - Spark: the same split for stages (ProfileSpark, PredictSpark), the
//     scaled stages replayed by perfmodel's what-if scheduler and bounded
//     per stage and over the stage DAG by ARIA's makespan theorem.
//   - For both, the estimate is by default the median of Monte Carlo
//     replays of the predicted tasks through the slots with speculative
//     execution (Speculation), each attempt's length drawn from the
//     Kaplan–Meier spread of the profiled attempts, killed ones censored,
//     mixed with the benchmarks' or other stages' by task size (Spread,
//     ReplayOptions); ARIA's T_avg and the what-if stay as estimators.
//   - Past runs alone (a recurring job's history, a CSV): Ernest
//     (Venkataraman et al., NSDI'16), Bell's kernel regression (Thamsen et
//     al., IPCCC'16), C3O's optimistic model (Will et al., IC2E'21) and a
//     power law, chosen by cross-validation as Bell and C3O choose
//     (Choose, FromRuns); C3O's gradient boosting on request (GBoost).
//   - Node types: ClassChange scales each phase by the speed ratio of the
//     resource it waits on, from any NodeSpeeds (PARC's per-node-class
//     speeds, or a SpeedTable).
//
// A question outside what a model was fitted on is answered, labelled
// extrapolated, with a widened interval. docs/PREDICT.md describes the
// models, their parameters and their measured accuracy.
package predict
