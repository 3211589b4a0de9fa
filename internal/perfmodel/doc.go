// Package perfmodel holds clusterlens's performance models of an application:
// Sparklens's analyses (driver versus executor wall clock, the critical path,
// ideal time with perfect parallelism, core-hours available, used and wasted)
// and the what-if replay that estimates the completion time with more or fewer
// executors.
//
// Sources: Qubole's Sparklens (github.com/qubole/sparklens),
// analyzer/EfficiencyStatisticsAnalyzer.scala, analyzer/StageSkewAnalyzer.scala,
// analyzer/ExecutorWallclockAnalyzer.scala, timespan/JobTimeSpan.scala
// (computeCriticalTimeForJob), helper/JobOverlapHelper.scala,
// scheduler/CompletionEstimator.scala and scheduler/PQParallelStageScheduler.scala.
// Where clusterlens departs from Sparklens the doc comment of the function
// says so and why.
//
// Failures: every task attempt that held a core counts as work (failed,
// killed and speculative attempts included, as in Sparklens); Spark's
// repeated Resubmitted TaskEnd records and misdated (spliced) records do
// not. A stage Spark resubmitted keeps its attempts in order
// (Stage.Retries): the replay runs them one after another and the
// critical path adds each attempt's longest task, where Sparklens merges
// them into one wave; the Sparklens-parity figures keep Sparklens's view.
//
// Every function is a pure function of a Workload, which FromApp extracts
// from the model once; the workload is compact (one int64 per task) so the
// replay scales to millions of tasks.
package perfmodel
