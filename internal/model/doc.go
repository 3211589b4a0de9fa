// Package model holds clusterlens's domain types: applications, jobs, stages,
// task attempts, executors and hosts, shared by every engine (Spark,
// MapReduce) and every analysis. It imports nothing of the project.
//
// The model is built for millions of task attempts: a Task is a flat struct
// of numbers, strings are interned per application, and task metrics are
// packed into a per-stage arena (see MetricSet) so that a task attempt costs
// well under 300 bytes after reading.
package model
