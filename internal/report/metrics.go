package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/clusterlens/clusterlens/internal/correlate"
)

// metricsText writes the correlation: how hosts were matched, and per
// stage its resource profile and the means of its (stage, host) matrix
// over the hosts.
func metricsText(w io.Writer, r *correlate.Result, maxRows int) {
	if len(r.Hosts) == 0 {
		fmt.Fprintf(w, "Node metrics: none of the %d hosts that ran tasks has samples during the run (%s)\n\n",
			len(r.Unmatched), truncate(strings.Join(r.Unmatched, ", "), 200))
		return
	}
	fmt.Fprintf(w, "Node metrics (HybridTune §3.1: samples joined with task and stage windows per host; clock-skew tolerance %s)\n", Millis(r.SkewMs))
	how := map[string]int{}
	for _, h := range r.Hosts {
		how[h.How]++
	}
	var hows []string
	for _, k := range []string{correlate.MatchExact, correlate.MatchAlias, correlate.MatchNorm, correlate.MatchShort} {
		if how[k] > 0 {
			hows = append(hows, fmt.Sprintf("%d %s", how[k], k))
		}
	}
	fmt.Fprintf(w, "  hosts: %d of %d with samples (%s); %d samples during the run, %d in task windows\n",
		len(r.Hosts), len(r.Hosts)+len(r.Unmatched), strings.Join(hows, ", "), r.Samples, r.InTasks)
	if len(r.Unmatched) > 0 {
		fmt.Fprintf(w, "  no samples for: %s\n", truncate(strings.Join(r.Unmatched, ", "), 200))
	}
	moved, largest := 0, int64(0)
	for _, h := range r.Hosts {
		if h.OffsetMs != 0 {
			moved++
			largest = max(largest, h.OffsetMs, -h.OffsetMs)
		}
	}
	if moved > 0 {
		fmt.Fprintf(w, "  clocks aligned: %d hosts' samples moved onto the logs' clock (largest offset %s)\n", moved, Millis(largest))
	}
	var all correlate.ClassCounts
	for _, s := range r.Stages {
		for c, n := range s.Profile.Tasks {
			all[c] += n
		}
	}
	fmt.Fprintf(w, "  task attempts: %d cpu-bound, %d disk-bound, %d network-bound, %d mixed, %d unknown\n",
		all[correlate.CPUBound], all[correlate.DiskBound], all[correlate.NetworkBound], all[correlate.Mixed], all[correlate.Unknown])
	tw := newTable(w)
	fmt.Fprintln(tw, "  stage\tclass\tcpu\tdisk\tnetwork\ttasks cpu/disk/net/mixed\thosts\tnode cpu\tnode disk\tnode net\tname")
	var ran []correlate.StageResult // stages with attempts
	for _, s := range r.Stages {
		if s.Profile.RunMs > 0 || len(s.Matrix.Hosts) > 0 {
			ran = append(ran, s)
		}
	}
	for i, s := range ran {
		if maxRows > 0 && i == maxRows {
			fmt.Fprintf(tw, "  … %d more stages\n", len(ran)-maxRows)
			break
		}
		p := &s.Profile
		c := p.Tasks
		cpu, disk, net := matrixMeans(&s.Matrix)
		fmt.Fprintf(tw, "  %d.%d\t%s\t%s\t%s\t%s\t%d/%d/%d/%d\t%d\t%s\t%s\t%s\t%s\n", s.ID, s.Attempt, p.Class,
			share(p.CPU), share(p.Disk), share(p.Network),
			c[correlate.CPUBound], c[correlate.DiskBound], c[correlate.NetworkBound], c[correlate.Mixed],
			len(s.Matrix.Hosts), pctValue(cpu), rate(disk), rate(net), truncate(s.Name, 40))
	}
	tw.Flush()
	fmt.Fprintln(w)
}

// matrixMeans averages over a matrix's hosts the node's CPU use (%), disk
// and network throughput (B/s); NaN when the matrix has none.
func matrixMeans(m *correlate.Matrix) (cpu, disk, net float64) {
	col := func(names ...string) float64 {
		var sum float64
		n := 0
		for _, row := range m.X {
			v, ok := 0.0, false
			for _, name := range names {
				if j := m.Column(name); j >= 0 && !math.IsNaN(row[j]) {
					v += row[j]
					ok = true
				}
			}
			if ok {
				sum += v
				n++
			}
		}
		if n == 0 {
			return math.NaN()
		}
		return sum / float64(n)
	}
	return col("cpu_usage"), col("disk_read_bw", "disk_write_bw"), col("net_recv_bw", "net_send_bw")
}

func share(f float64) string { return fmt.Sprintf("%.0f%%", 100*f) }

func pctValue(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", v)
}

// rate writes bytes per second in MB/s.
func rate(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f MB/s", v/1e6)
}
