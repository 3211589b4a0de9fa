// Package dataflow implements HiTune's dataflow-driven performance analysis
// (Dai, Huang, Huang, Huang, Liu: "HiTune: Dataflow-Based Performance
// Analysis for Big Data Cloud", USENIX ATC'11) on the model that the log
// decoders build.
//
// It has four parts, each in its own files:
//
//   - Dataflow specifications (§4): the Input, Output, Vertices and Edges of
//     an application's dataflow graph, and how each vertex maps onto the
//     execution (Task Pool, Phase, Thread, Thread Pool, Thread Group Pool, with
//     cardinalities) and each edge onto data movement (type, endpoint
//     location). Parse reads the text syntax documented in docs/DATAFLOW.md;
//     Builtin returns the embedded specifications for Hadoop MapReduce (the
//     paper's Figure 8) and Spark.
//   - Reconstruction (§4–5): every vertex instance, that is every task
//     attempt's phase, with its node, start and end, rebuilt from log
//     timestamps and task metrics (Reconstruct).
//   - The timeline (§5, the pipeline space-time diagram):
//     wall time across, one line per task slot or per task, coloured by
//     activity, with the bootstrap and idle periods (BuildTimeline, and
//     Timeline.WriteText for terminals).
//   - Breakdowns (§5, §7.1 scheduling, §7.2 shuffle): per executor, node and
//     stage, busy versus idle, with idle attributed to causes
//     (BuildBreakdown). Every number adds up: per executor, busy plus the idle
//     causes equals the allocated slot time.
//
// All times are epoch milliseconds; slot time is slot-milliseconds.
package dataflow
