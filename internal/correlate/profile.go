package correlate

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Profile says how CPU-, disk- or network-bound a task attempt (or a
// stage's attempts together) was.
//
// CPU, Disk and Network are shares of the run time. With the task's own
// metrics in the log (Source "log" or "log+metrics"): CPU is the task's
// CPU time (Spark executorCpuTime, MapReduce CPU_MILLISECONDS) over its
// run time (Spark executorRunTime, MapReduce the attempt's duration);
// Network starts with the time it waited on the shuffle (Spark
// shuffleFetchWaitTime, a MapReduce reduce's shuffle phase); the rest of
// the run time off the CPU, less GC, is I/O wait, split between disk and
// network in proportion to the time the task's own bytes would take at the
// throughput the node gave each running task during its window (the
// window's samples of disk and network bytes per second divided by the
// attempts running on the host): disk bytes are output, shuffle write,
// spills, local shuffle reads and node-local input; network bytes remote
// input (RACK_LOCAL, ANY). Without samples the bytes alone split it.
// Without the task's metrics (Source "metrics") the shares are the node's
// utilization in the window: cpu_usage/100, and disk and network
// throughput over the host's peak, scaled to sum to at most 1.
type Profile struct {
	RunMs    int64   `json:"runMs"`
	CPU      float64 `json:"cpu"`
	Disk     float64 `json:"disk"`
	Network  float64 `json:"network"`
	Dominant string  `json:"dominant,omitempty"`
	Class    Class   `json:"class"`
	Source   string  `json:"source,omitempty"`
	// Node is the node's activity in the window, apportioned among the
	// application's attempts running on the host (task-resource).
	Node NodeShare `json:"node"`
}

// NodeShare is a task's share of its node's activity: the mean over the
// samples in its window of each value divided by the attempts running on
// the host at that sample.
type NodeShare struct {
	Samples int     `json:"samples"`
	CPUPct  float64 `json:"cpuPct"`  // cpu_usage, % of the node
	DiskBps float64 `json:"diskBps"` // disk read + write bytes/s
	NetBps  float64 `json:"netBps"`  // network received + sent bytes/s
	// Running is the mean number of the application's attempts running
	// on the host at the samples.
	Running float64 `json:"running"`
	// utilization of the host's observed peak disk and network throughput
	// and its CPU, unapportioned (for the "metrics" fallback).
	uCPU, uDisk, uNet float64
}

// TaskProfile is one attempt's profile; Stage and Task index App.Stages
// and the stage's Tasks.
type TaskProfile struct {
	Stage int32 `json:"stage"`
	Task  int32 `json:"task"`
	Profile
}

// demand is a profile's time in ms per resource and its run time, the
// form in which a stage sums its attempts.
type demand struct {
	run, cpu, disk, net float64
	fromLog             bool
	node                NodeShare
}

// replication is the application's HDFS replication factor
// (dfs.replication in its Hadoop or Spark configuration), 3 by default.
func replication(app *model.App) int {
	for _, kvs := range [][][2]string{app.Conf, app.Env.Hadoop, app.Env.Spark} {
		for _, kv := range kvs {
			if kv[0] == "dfs.replication" || kv[0] == "spark.hadoop.dfs.replication" {
				if n, err := strconv.Atoi(strings.TrimSpace(kv[1])); err == nil && n >= 1 {
					return n
				}
			}
		}
	}
	return 3
}

// taskDemand computes an attempt's demand from its metrics and node share;
// replicas are the HDFS output copies sent over the network.
func taskDemand(app *model.App, st *model.Stage, ti int, ns NodeShare, o ProfileOptions, replicas float64) demand {
	t := &st.Tasks[ti]
	d := demand{node: ns}
	var m model.TaskMetrics
	st.TaskMetrics(ti, &m)
	var cpuTime, gc float64
	var b ioBytes
	remoteInput := t.Locality == model.RackLocal || t.Locality == model.AnyLocality
	switch {
	case app.Engine == model.MapReduce && t.Duration() > 0 && m[model.CPUMillis] > 0:
		d.run = float64(t.Duration())
		cpuTime, gc = float64(m[model.CPUMillis]), float64(m[model.JVMGCTime])
		if f := m[model.ShufflePhaseFinish]; f > t.Launch {
			d.net = float64(f - t.Launch)
		}
		b.disk = float64(m[model.FileBytesRead] + m[model.FileBytesWritten])
		b.output = float64(m[model.HDFSBytesWritten])
		if remoteInput {
			b.net = float64(m[model.HDFSBytesRead])
		} else {
			b.disk += float64(m[model.HDFSBytesRead])
		}
	case app.Engine != model.MapReduce && m[model.ExecutorRunTime] > 0 && m[model.ExecutorCPUNanos] > 0:
		d.run = float64(m[model.ExecutorRunTime])
		cpuTime, gc = float64(m[model.ExecutorCPUNanos])/1e6, float64(m[model.JVMGCTime])
		d.net = float64(m[model.ShuffleFetchWaitTime])
		b.disk = float64(m[model.ShuffleWriteBytes] + m[model.DiskBytesSpilled] + m[model.ShuffleLocalBytesRead])
		b.output = float64(m[model.OutputBytes])
		switch {
		case remoteInput:
			b.net = float64(m[model.InputBytes])
		case t.Locality != model.ProcessLocal:
			b.disk += float64(m[model.InputBytes])
		}
	default:
		d.run = float64(t.Duration())
		if ns.Samples == 0 || d.run <= 0 {
			return d
		}
		scale := 1 / math.Max(1, ns.uCPU+ns.uDisk+ns.uNet)
		d.cpu, d.disk, d.net = d.run*ns.uCPU*scale, d.run*ns.uDisk*scale, d.run*ns.uNet*scale
		return d
	}
	d.fromLog = true
	// The CPU time includes what I/O waits kept busy (IOCPU of a core):
	// run = C + I and cpuTime = C + IOCPU·I give the compute time C.
	busy := max(d.run-gc, 0)
	k := o.IOCPU
	d.cpu = min(max((cpuTime-k*busy)/(1-k), 0), busy, cpuTime)
	io := busy - d.cpu
	d.net = min(d.net, io)
	resid := io - d.net
	if resid <= 0 {
		return d
	}
	td, tn := b.times(replicas, ns)
	if td+tn > 0 {
		d.disk += resid * td / (td + tn)
		d.net += resid * tn / (td + tn)
	}
	return d
}

// ioBytes are a task's bytes by where they went: disk only (spills,
// shuffle files, local input), network only (remote input) and HDFS
// output (one replica on the local disk, the others over the network).
type ioBytes struct{ disk, net, output float64 }

// times converts the bytes into relative I/O times at the throughput the
// node gave each running attempt (the samples' disk and network bytes per
// second over the attempts running), or at equal rates without samples.
// HDFS output is written as a pipeline: its time is the slower of the
// local disk write and the replicas' transfer, charged to that resource.
func (b ioBytes) times(replicas float64, ns NodeShare) (disk, net float64) {
	rd, rn := 1.0, 1.0
	if ns.Samples > 0 && ns.DiskBps > 0 && ns.NetBps > 0 {
		rd, rn = ns.DiskBps, ns.NetBps
	}
	disk, net = b.disk/rd, b.net/rn
	od, on := b.output/rd, replicas*b.output/rn
	if on > od {
		net += on
	} else {
		disk += od
	}
	return disk, net
}

// profile turns a demand into shares and a class.
func (d demand) profile(o ProfileOptions) Profile {
	p := Profile{RunMs: int64(d.run), Node: d.node}
	if d.run <= 0 {
		return p
	}
	p.CPU, p.Disk, p.Network = d.cpu/d.run, d.disk/d.run, d.net/d.run
	p.Dominant, p.Class = classify(p.CPU, p.Disk, p.Network, o)
	switch {
	case d.fromLog && d.node.Samples > 0:
		p.Source = "log+metrics"
	case d.fromLog:
		p.Source = "log"
	case d.node.Samples > 0:
		p.Source = "metrics"
	}
	return p
}

// add sums another attempt's demand into a stage's.
func (d *demand) add(o demand) {
	d.run += o.run
	d.cpu += o.cpu
	d.disk += o.disk
	d.net += o.net
	d.fromLog = d.fromLog || o.fromLog
	if o.node.Samples > 0 {
		n := float64(d.node.Samples)
		w := float64(o.node.Samples)
		mix := func(a, b float64) float64 { return (a*n + b*w) / (n + w) }
		d.node.CPUPct = mix(d.node.CPUPct, o.node.CPUPct)
		d.node.DiskBps = mix(d.node.DiskBps, o.node.DiskBps)
		d.node.NetBps = mix(d.node.NetBps, o.node.NetBps)
		d.node.Running = mix(d.node.Running, o.node.Running)
		d.node.Samples += o.node.Samples
	}
}

// nodeShares computes every task's share of its node's activity on host
// k, indexed like Correlation.taskRef (only this host's tasks are set), and
// returns how many of the host's sample rows fell in a task window. Each
// task's samples are a contiguous range of rows (rowRange): the attempts
// running at each row come from a difference array over the ranges, and
// each task's means from prefix sums, O(rows + tasks × log rows).
func (c *Correlation) nodeShares(k int, out []NodeShare) (inTasks int64) {
	h := &c.hosts[k]
	f := h.frame
	ranges := make([][2]int, len(h.tasks))
	first, last := len(h.times), 0
	for i, w := range h.tasks {
		lo, hi := rowRange(h.times, h.iv, c.skew, w)
		ranges[i] = [2]int{lo, hi}
		if hi > lo {
			first, last = min(first, lo), max(last, hi)
		}
	}
	if last <= first {
		return 0
	}
	// Rows [first, last) hold every task's samples; index i is row first+i.
	rows := last - first
	diff := make([]int32, rows+1)
	for _, r := range ranges {
		if r[1] > r[0] {
			diff[r[0]-first]++
			diff[r[1]-first]--
		}
	}
	var peakDisk, peakNet float64
	for i := range f.Times {
		r := f.Row(i)
		peakDisk = maxNum(peakDisk, diskBps(r))
		peakNet = maxNum(peakNet, netBps(r))
	}
	// Running sums from row first of: running, cpu/n, disk/n, net/n,
	// cpu/100, disk/peak, net/peak (a missing value adds nothing).
	const nv = 7
	sum := make([]float64, (rows+1)*nv)
	var running int32
	for i := range rows {
		running += diff[i]
		prev, next := sum[i*nv:(i+1)*nv], sum[(i+1)*nv:(i+2)*nv]
		copy(next, prev)
		if running == 0 {
			continue
		}
		inTasks++
		r := f.Row(first + i)
		n := float64(running)
		next[0] += n
		if v := float64(r[mCPUUsage]); !math.IsNaN(v) {
			next[1] += v / n
			next[4] += v / 100
		}
		if v := diskBps(r); !math.IsNaN(v) {
			next[2] += v / n
			if peakDisk > 0 {
				next[5] += v / peakDisk
			}
		}
		if v := netBps(r); !math.IsNaN(v) {
			next[3] += v / n
			if peakNet > 0 {
				next[6] += v / peakNet
			}
		}
	}
	for i, w := range h.tasks {
		lo, hi := ranges[i][0]-first, ranges[i][1]-first
		if hi <= lo {
			continue
		}
		var d [nv]float64
		n := float64(hi - lo)
		for j := range d {
			d[j] = (sum[hi*nv+j] - sum[lo*nv+j]) / n
		}
		out[w.id] = NodeShare{Samples: hi - lo, Running: d[0], CPUPct: d[1], DiskBps: d[2], NetBps: d[3],
			uCPU: min(d[4], 1), uDisk: d[5], uNet: d[6]}
	}
	return inTasks
}

func maxNum(a, b float64) float64 {
	if math.IsNaN(b) || b <= a {
		return a
	}
	return b
}

// Profiles profiles every task attempt of the application, calling fn
// (if not nil) with each (the TaskProfile is reused: copy it to keep it),
// and returns each stage's profile (indexed like App.Stages) summed over
// its attempts. Attempts on hosts without samples are profiled from the
// log alone.
func (c *Correlation) Profiles(fn func(*TaskProfile)) []StageProfile {
	sp, _ := c.profiles(fn)
	return sp
}

// profiles is Profiles also returning the sample rows in task windows.
func (c *Correlation) profiles(fn func(*TaskProfile)) ([]StageProfile, int64) {
	shares := make([]NodeShare, len(c.taskRef))
	var inTasks int64
	for k := range c.hosts {
		inTasks += c.nodeShares(k, shares)
	}
	o := c.opts.Profile.withDefaults()
	replicas := float64(replication(c.app) - 1) // HDFS output copies sent over the network
	out := make([]StageProfile, len(c.app.Stages))
	next := 0 // taskRef is in (stage, task) order
	var tp TaskProfile
	for si, st := range c.app.Stages {
		var sum demand
		for ti := range st.Tasks {
			var ns NodeShare
			if next < len(c.taskRef) && c.taskRef[next] == [2]int32{int32(si), int32(ti)} {
				ns = shares[next]
				next++
			}
			d := taskDemand(c.app, st, ti, ns, o, replicas)
			sum.add(d)
			tp = TaskProfile{Stage: int32(si), Task: int32(ti), Profile: d.profile(o)}
			out[si].Tasks[tp.Class]++
			if fn != nil {
				fn(&tp)
			}
		}
		out[si].Profile = sum.profile(o)
	}
	return out, inTasks
}

// StageProfile is a stage's profile over all its attempts and how many of
// them fell in each class.
type StageProfile struct {
	Profile
	Tasks ClassCounts `json:"tasks"`
}

// ClassCounts counts attempts per Class; it is written as an object keyed
// by the class names.
type ClassCounts [len(classNames)]int

// UnmarshalJSON reads what MarshalJSON writes.
func (cc *ClassCounts) UnmarshalJSON(b []byte) error {
	var m map[string]int
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("class counts: %w", err)
	}
	*cc = ClassCounts{}
	for k, n := range m {
		var c Class
		if err := c.UnmarshalText([]byte(k)); err != nil {
			return err
		}
		cc[c] = n
	}
	return nil
}

// MarshalJSON writes the non-zero counts by class name.
func (cc ClassCounts) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, n := range cc {
		if n == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, classNames[i]...)
		b = append(b, '"', ':')
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return append(b, '}'), nil
}
