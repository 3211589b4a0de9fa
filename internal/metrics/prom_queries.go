package metrics

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// promQuery is one PromQL expression and the canonical metrics
// (model.NodeMetricNames) its value is; several names share an expression
// where HybridTune's names alias Ganesha's. In expr, $W stands for the rate
// window, and every label matcher set ({...}, possibly empty) gets the
// source's extra selector.
type promQuery struct {
	names []string
	expr  string
}

// promDevices are the disk devices whose bytes and I/O time are left out of
// the node's sums because they repeat their underlying disks' traffic
// (device mapper, software RAID). node_exporter already leaves out
// partitions, loop and ram devices.
const promDevices = `device!~"dm-.*|md.*"`

// promCPU is the share, in percent of all CPUs, of the CPU time spent in the
// modes matched by modes: their rate over the rate of all modes, as sar
// computes it from /proc/stat.
func promCPU(modes string) string {
	return `100 * sum by (instance) (rate(node_cpu_seconds_total{mode=~"` + modes + `"}[$W])) / sum by (instance) (rate(node_cpu_seconds_total{}[$W]))`
}

// promQueries maps node_exporter's metrics to the canonical ones
// (docs/SOURCES.md has the table with the reasons). Gauges and single
// counters take max by (instance), so that extra labels (job, ...) drop
// out; per-device and per-mode counters are summed by instance.
var promQueries = []promQuery{
	{[]string{"cpu_user_pct"}, promCPU("user|nice")},
	{[]string{"cpu_system_pct"}, promCPU("system|irq|softirq")},
	{[]string{"cpu_iowait_pct", "ioWaitRatio"}, promCPU("iowait")},
	{[]string{"cpu_usage"}, `100 - ` + promCPU("idle|iowait")},
	{[]string{"context_switches_per_s"}, `max by (instance) (rate(node_context_switches_total{}[$W]))`},
	{[]string{"procs_runnable"}, `max by (instance) (node_procs_running{})`},
	{[]string{"procs_total"}, `max by (instance) (node_processes_threads{})`},
	{[]string{"load1"}, `max by (instance) (node_load1{})`},
	{[]string{"net_rx_bytes_per_s", "net_recv_bw"}, `sum by (instance) (rate(node_network_receive_bytes_total{device!="lo"}[$W]))`},
	{[]string{"net_tx_bytes_per_s", "net_send_bw"}, `sum by (instance) (rate(node_network_transmit_bytes_total{device!="lo"}[$W]))`},
	{[]string{"pages_in_kb_per_s"}, `max by (instance) (rate(node_vmstat_pgpgin{}[$W]))`},
	{[]string{"pages_out_kb_per_s"}, `max by (instance) (rate(node_vmstat_pgpgout{}[$W]))`},
	{[]string{"page_faults_per_s"}, `max by (instance) (rate(node_vmstat_pgfault{}[$W]))`},
	{[]string{"disk_read_bytes_per_s", "disk_read_bw"}, `sum by (instance) (rate(node_disk_read_bytes_total{` + promDevices + `}[$W]))`},
	{[]string{"disk_write_bytes_per_s", "disk_write_bw"}, `sum by (instance) (rate(node_disk_written_bytes_total{` + promDevices + `}[$W]))`},
	{[]string{"mem_usage"}, `100 * (1 - max by (instance) (node_memory_MemAvailable_bytes{}) / max by (instance) (node_memory_MemTotal_bytes{}))`},
	{[]string{"weighted_io"}, `1000 * sum by (instance) (rate(node_disk_io_time_weighted_seconds_total{` + promDevices + `}[$W]))`},
}

var promMatchers = regexp.MustCompile(`\{[^}]*\}`)

// promExpr instantiates q's expression with the rate window w and the extra
// label matchers sel (for example `job="node"`; "" for none).
func promExpr(q promQuery, w time.Duration, sel string) string {
	e := strings.ReplaceAll(q.expr, "$W", promDuration(w))
	return promMatchers.ReplaceAllStringFunc(e, func(m string) string {
		inner := m[1 : len(m)-1]
		switch {
		case sel == "":
			if inner == "" {
				return ""
			}
			return m
		case inner == "":
			return "{" + sel + "}"
		}
		return "{" + inner + "," + sel + "}"
	})
}

// promDuration writes d as a PromQL duration in milliseconds ("4000ms"),
// which every Prometheus 2.x accepts.
func promDuration(d time.Duration) string {
	return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
}
