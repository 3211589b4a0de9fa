package model

// Sample is HiTune's sampling record (Dai et al., USENIX ATC'11, §4.1:
// Timestamp, Type, Target, Value), the one record every metric source is
// read into, the agent ships and the stores keep.
//
//   - Time is the Unix time in milliseconds at the end of the interval the
//     value describes (a rate over the last second is stamped at its end).
//   - Host is the node the sample was taken on, as task logs name it.
//   - Type is what was measured: a node metric name (NodeMetricNames) or a
//     sampler's record type (ThreadSampleType).
//   - Target is what on the host it is about: "" for the whole node, a
//     device ("sda", "eth0"), a CPU, or a JVM thread ("pid/tid").
//   - Value is the number; Text carries a non-numeric value (a thread's
//     state and stack, a shipped log line), empty otherwise.
type Sample struct {
	Time   int64
	Host   string
	Type   string
	Target string
	Value  float64
	Text   string
}

// SampleKey identifies a sample for de-duplication: the same host, type
// and target cannot have two values at one instant.
type SampleKey struct {
	Time               int64
	Host, Type, Target string
}

// Key returns the sample's identity.
func (s *Sample) Key() SampleKey { return SampleKey{s.Time, s.Host, s.Type, s.Target} }

// Record types that are not node metrics.
const (
	// ThreadSampleType is a JVM thread sample (HiTune §4.1's task-execution
	// sampler): Target "pid/tid", Value the task attempt id the thread name
	// maps to (-1 when it maps to none), Text "executor\tthread name\tstate\tstack"
	// with the stack's frames joined by "\n".
	ThreadSampleType = "jvm_thread"
	// LogLineType is a line of a followed log file: Target the file's path,
	// Value the line's byte offset, Text the line.
	LogLineType = "log_line"
)

// NodeMetricNames are the canonical node metrics, in order: Ganesha's 14 OS
// metrics (Pan et al., 2009, Table 1) then HybridTune's system-level metrics
// (Ren et al., §3.1). Every source (agent, Prometheus, sysstat, CSV, the
// simulator) maps what it reads to these names; units are in NodeMetricUnits.
var NodeMetricNames = [...]string{
	"cpu_user_pct", "cpu_system_pct", "cpu_iowait_pct", "context_switches_per_s", "procs_runnable",
	"procs_total", "load1", "net_rx_bytes_per_s", "net_tx_bytes_per_s", "pages_in_kb_per_s",
	"pages_out_kb_per_s", "page_faults_per_s", "disk_read_bytes_per_s", "disk_write_bytes_per_s",
	"cpu_usage", "mem_usage", "ioWaitRatio", "weighted_io", "disk_read_bw", "disk_write_bw",
	"net_send_bw", "net_recv_bw",
}

// NumGaneshaMetrics is how many of NodeMetricNames are Ganesha's.
const NumGaneshaMetrics = 14

// NodeMetricUnits gives each of NodeMetricNames its unit.
var NodeMetricUnits = [len(NodeMetricNames)]string{
	"%", "%", "%", "/s", "count", "count", "", "B/s", "B/s", "KB/s", "KB/s", "/s", "B/s", "B/s",
	"%", "%", "%", "ms/s", "B/s", "B/s", "B/s", "B/s",
}

var nodeMetricIndex = func() map[string]int {
	m := make(map[string]int, len(NodeMetricNames))
	for i, n := range NodeMetricNames {
		m[n] = i
	}
	return m
}()

// NodeMetricIndex returns the position of a canonical node metric in
// NodeMetricNames, or -1.
func NodeMetricIndex(name string) int {
	if i, ok := nodeMetricIndex[name]; ok {
		return i
	}
	return -1
}

// Series is one host's values of one type and target, in time order.
type Series struct {
	Host, Type, Target string
	Times              []int64 // Unix ms
	Values             []float64
}
