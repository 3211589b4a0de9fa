package model

import "strings"

// SQLExecution is one Spark SQL (DataFrame) query execution, as Spark's
// SQLAppStatusListener keeps it: its text, its final physical plan as a
// graph of operators, the jobs it ran and its operators' metrics
// aggregated over its tasks and the driver. Times are epoch milliseconds.
type SQLExecution struct {
	ID int64
	// RootID is the execution that started this one (a command's sub-query),
	// or ID itself; Spark 3.4+ logs it.
	RootID      int64
	Description string
	// Details is the call site (a stack trace), packed.
	Details Text
	// PlanDescription is the physical plan's text ("== Physical Plan =="),
	// the adaptive plan's latest one, packed.
	PlanDescription Text
	Start           int64
	End             int64 // 0 while running
	// Error is the failure message of SQLExecutionEnd; HasError tells an
	// empty message (Spark 3.4+: success) from none logged (older Spark).
	Error    string
	HasError bool
	// ModifiedConfigs are the session's SQL settings that differ from the
	// defaults (Spark 3.4+), in log order.
	ModifiedConfigs [][2]string
	// Jobs are the ids of the jobs that ran with spark.sql.execution.id set
	// to this execution, in start order.
	Jobs []int32
	// Plan is the plan graph as of the latest plan the log gave (adaptive
	// execution replaces it); InitialPlan is the plan at the start when
	// adaptive execution changed it, nil otherwise.
	Plan        *SQLPlan
	InitialPlan *SQLPlan
	// AdaptiveUpdates counts SparkListenerSQLAdaptiveExecutionUpdate events.
	AdaptiveUpdates int32
	// Metrics are the values of the plans' metrics (every plan's, adaptive
	// ones included), keyed by accumulator id, sorted by it; a metric no
	// task or driver update reached is absent. Nil while the execution has
	// not ended and the log was read to its end (in-progress logs aggregate
	// what they hold).
	Metrics []SQLMetricValue
	// StreamQueryID and StreamBatch are a Structured Streaming micro-batch's
	// query id and batch id from its jobs' properties ("" and -1 otherwise).
	StreamQueryID string
	StreamBatch   int64
	// DriverUpdates are the driver's metric updates
	// (SparkListenerDriverAccumUpdates) for the encoder to write; the
	// decoder folds them into Metrics instead of keeping them.
	DriverUpdates []SQLUpdate
}

// SQLUpdate is one update of a SQL metric's accumulator.
type SQLUpdate struct{ AccumID, Value int64 }

// Running reports whether the log has no end for the execution.
func (x *SQLExecution) Running() bool { return x.End == 0 }

// Duration is End-Start, or 0 while running or when unknown.
func (x *SQLExecution) Duration() int64 {
	if x.Start > 0 && x.End >= x.Start {
		return x.End - x.Start
	}
	return 0
}

// Metric returns the aggregated value of accumulator id.
func (x *SQLExecution) Metric(id int64) (SQLMetricValue, bool) {
	lo, hi := 0, len(x.Metrics)
	for lo < hi {
		m := (lo + hi) / 2
		if x.Metrics[m].AccumID < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(x.Metrics) && x.Metrics[lo].AccumID == id {
		return x.Metrics[lo], true
	}
	return SQLMetricValue{}, false
}

// SQLPlan is a physical plan as Spark's SparkPlanGraph draws it: operators
// (WholeStageCodegen stages are clusters holding the operators they fused,
// InputAdapter and query-stage wrappers are left out, a reused exchange or
// subquery is one node with several consumers) and edges from child to
// parent.
type SQLPlan struct {
	// Nodes are in SparkPlanGraph's id order (depth first from the root).
	Nodes []SQLNode
	Edges []SQLEdge
}

// SQLNode is one operator of a plan graph.
type SQLNode struct {
	ID   int32
	Name string // nodeName, as logged (may end in a space)
	// Desc is the operator's one-line description (simpleString).
	Desc string
	// Cluster is the ID of the WholeStageCodegen node that fused this
	// operator, -1 for none; IsCluster marks the WholeStageCodegen nodes.
	Cluster   int32
	IsCluster bool
	Metrics   []SQLPlanMetric
}

// SQLEdge is a child (From) feeding a parent (To).
type SQLEdge struct{ From, To int32 }

// SQLPlanMetric is a metric an operator declares: its accumulator, name and
// kind.
type SQLPlanMetric struct {
	AccumID int64
	Name    string
	Type    SQLMetricType
}

// SQLMetricType is how Spark aggregates and prints a plan metric
// (SQLMetrics' metric types).
type SQLMetricType uint8

// SQL metric types.
const (
	MetricOther    SQLMetricType = iota // a type this version does not know
	MetricSum                           // "sum": a count, summed
	MetricSize                          // "size": bytes
	MetricTiming                        // "timing": milliseconds
	MetricNsTiming                      // "nsTiming": nanoseconds
	MetricAverage                       // "average": tenths of a unit, averaged per task
	MetricCount                         // "count": Databricks's counts, summed
	MetricCustom                        // "v2Custom_<class>": a data source v2 custom metric
)

var metricTypeNames = [...]string{"", "sum", "size", "timing", "nsTiming", "average", "count", "v2Custom"}

// ParseSQLMetricType maps Spark's metricType string to a type.
func ParseSQLMetricType(s string) SQLMetricType {
	if strings.HasPrefix(s, "v2Custom_") {
		return MetricCustom
	}
	for i, n := range metricTypeNames {
		if i > 0 && n == s {
			return SQLMetricType(i)
		}
	}
	return MetricOther
}

func (t SQLMetricType) String() string {
	if int(t) < len(metricTypeNames) && t != MetricOther {
		return metricTypeNames[t]
	}
	return "other"
}

// SQLMetricValue is one plan metric aggregated as Spark's
// SQLAppStatusListener.aggregateMetrics does: the values of the tasks of
// the execution's stages (one per task index and stage, zero for an index
// that reported nothing while another did) and the driver's updates. For
// MetricSum and MetricCount, Sum is the total of all values; for the other
// types N, Sum, Min, Med and Max are over the valid values (average: > 0;
// others: >= 0), Med being the element at N/2 of the sorted values. When
// MaxTask is true the largest task value came from task MaxTaskID of stage
// MaxStage attempt MaxAttempt; otherwise it came from the driver.
type SQLMetricValue struct {
	AccumID            int64
	Type               SQLMetricType
	N                  int64
	Sum, Min, Med, Max int64
	MaxStage           int32
	MaxAttempt         int32
	MaxTaskID          int64
	MaxTask            bool
}
