package model

// ExecutorMetricNames are Spark's ExecutorMetricType names in the order the
// History Server prints them (peakMemoryMetrics, peakExecutorMetrics).
var ExecutorMetricNames = [...]string{
	"JVMHeapMemory", "JVMOffHeapMemory", "OnHeapExecutionMemory", "OffHeapExecutionMemory",
	"OnHeapStorageMemory", "OffHeapStorageMemory", "OnHeapUnifiedMemory", "OffHeapUnifiedMemory",
	"DirectPoolMemory", "MappedPoolMemory", "ProcessTreeJVMVMemory", "ProcessTreeJVMRSSMemory",
	"ProcessTreePythonVMemory", "ProcessTreePythonRSSMemory", "ProcessTreeOtherVMemory",
	"ProcessTreeOtherRSSMemory", "MinorGCCount", "MinorGCTime", "MajorGCCount", "MajorGCTime",
	"TotalGCTime",
}

// NumExecutorMetrics is the number of executor metric types.
const NumExecutorMetrics = len(ExecutorMetricNames)

// ExecutorMetricIndex maps a metric name to its index, or -1.
func ExecutorMetricIndex(name string) int {
	for i, n := range ExecutorMetricNames {
		if n == name {
			return i
		}
	}
	return -1
}

// ExecutorMetrics holds peak values of the executor metric types. Set is
// false until a value was seen, so "no metrics" differs from "all zero".
type ExecutorMetrics struct {
	Values [NumExecutorMetrics]int64
	Set    bool
}

// Peak raises each value of e to at least the matching value of o.
// It reports whether anything changed.
func (e *ExecutorMetrics) Peak(o *ExecutorMetrics) bool {
	if !o.Set {
		return false
	}
	changed := !e.Set
	for i, v := range o.Values {
		if v > e.Values[i] {
			e.Values[i] = v
			changed = true
		}
	}
	e.Set = true
	return changed
}
