package sampler

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

func init() { Register("proc", true, newProcSampler) }

// procSampler reads the node's OS metrics from /proc: Ganesha's 14 metrics
// (Pan et al., 2009, Table 1, the sadc counters) and HybridTune's
// system-level metrics (Ren et al., §3.1), named as model.NodeMetricNames,
// plus per-device disk and network rates (Target the device). Counters are
// turned into rates over the time between two calls (see counterDelta for
// wraps and resets); the first call only remembers the counters.
//
// Definitions (chosen to equal sar's, see docs/SAMPLERS.md):
//   - cpu_user_pct: user+nice over user+nice+system+idle+iowait+irq+softirq+steal
//     (sar -u %user+%nice; guest time is inside user already);
//   - cpu_system_pct: system+irq+softirq (sar -u %system);
//   - procs_runnable: /proc/loadavg's running count minus the reader itself
//     (sar -q runq-sz); procs_total: its task count, processes and threads
//     (sar -q plist-sz, what Ganesha's sadc counted);
//   - net totals exclude lo; per-interface samples include it;
//   - disk totals sum whole physical disks (wholeDisks);
//   - cpu_usage = 100 - idle - iowait (user, system and steal), as the
//     sysstat and Prometheus readers compute it; mem_usage =
//     (MemTotal-MemAvailable)/MemTotal; ioWaitRatio = cpu_iowait_pct;
//     weighted_io = diskstats' weighted milliseconds doing IO per second.
type procSampler struct {
	host     string
	procRoot string
	fs       procfs.FS
	block    blockdevice.FS
	disks    *wholeDisks
	buf      []byte
	devs     []devRate

	have bool
	prev procSnap
	cur  procSnap
}

// procSnap is one reading of the counters.
type procSnap struct {
	time  time.Time
	cpu   procfs.CPUStat
	ctxt  uint64
	vm    vmstat
	disks map[string]diskCounters
	nets  map[string]netCounters
}

type diskCounters struct {
	whole                 bool
	readSec, writeSec, wt uint64
}

type netCounters struct{ rx, tx uint64 }

func newProcSampler(cfg Config) (Sampler, error) {
	root, sys := cfg.ProcRoot, cfg.SysRoot
	if root == "" {
		root = "/proc"
	}
	if sys == "" {
		sys = "/sys"
	}
	fs, err := procfs.NewFS(root)
	if err != nil {
		return nil, fmt.Errorf("proc sampler: %w", err)
	}
	block, err := blockdevice.NewFS(root, sys)
	if err != nil {
		return nil, fmt.Errorf("proc sampler: %w", err)
	}
	if _, err := os.Stat(filepath.Join(root, "stat")); err != nil {
		return nil, fmt.Errorf("proc sampler: %w: %w", ErrUnsupported, err)
	}
	return &procSampler{
		host: hostOf(cfg), procRoot: root, fs: fs, block: block, disks: newWholeDisks(sys),
		prev: procSnap{disks: map[string]diskCounters{}, nets: map[string]netCounters{}},
		cur:  procSnap{disks: map[string]diskCounters{}, nets: map[string]netCounters{}},
	}, nil
}

// hostOf is cfg.Host or, when empty, os.Hostname.
func hostOf(cfg Config) string {
	if cfg.Host != "" {
		return cfg.Host
	}
	h, _ := os.Hostname()
	return h
}

// readFile reads a small /proc file into the sampler's reused buffer.
func (p *procSampler) readFile(name string) ([]byte, error) {
	f, err := os.Open(filepath.Join(p.procRoot, name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p.buf = p.buf[:0]
	for {
		if len(p.buf) == cap(p.buf) {
			p.buf = slices.Grow(p.buf, max(4096, cap(p.buf)))
		}
		n, err := f.Read(p.buf[len(p.buf):cap(p.buf)])
		p.buf = p.buf[:len(p.buf)+n]
		if err == io.EOF {
			return p.buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// read fills p.cur with the counters now; gauges go straight to emit.
func (p *procSampler) read(now time.Time) (la loadavg, mem procfs.Meminfo, err error) {
	st, err := p.fs.Stat()
	if err != nil {
		return la, mem, fmt.Errorf("proc sampler: %w", err)
	}
	c := &p.cur
	c.time, c.cpu, c.ctxt = now, st.CPUTotal, st.ContextSwitches
	b, err := p.readFile("vmstat")
	if err == nil {
		c.vm, err = parseVmstat(b)
	}
	if err != nil {
		return la, mem, fmt.Errorf("proc sampler: %w", err)
	}
	b, err = p.readFile("loadavg")
	if err == nil {
		la, err = parseLoadavg(b)
	}
	if err != nil {
		return la, mem, fmt.Errorf("proc sampler: %w", err)
	}
	if mem, err = p.fs.Meminfo(); err != nil {
		return la, mem, fmt.Errorf("proc sampler: %w", err)
	}
	ds, err := p.block.ProcDiskstats()
	if err != nil {
		return la, mem, fmt.Errorf("proc sampler: %w", err)
	}
	clear(c.disks)
	for i := range ds {
		d := &ds[i]
		c.disks[d.DeviceName] = diskCounters{p.disks.is(d.DeviceName), d.ReadSectors, d.WriteSectors, d.WeightedIOTicks}
	}
	nd, err := p.fs.NetDev()
	if err != nil {
		return la, mem, fmt.Errorf("proc sampler: %w", err)
	}
	clear(c.nets)
	for name, l := range nd {
		c.nets[name] = netCounters{l.RxBytes, l.TxBytes}
	}
	return la, mem, nil
}

// Sample implements Sampler.
func (p *procSampler) Sample(now time.Time, dst []model.Sample) ([]model.Sample, error) {
	la, mem, err := p.read(now)
	if err != nil {
		return dst, err
	}
	first := !p.have
	p.have = true
	defer func() { p.prev, p.cur = p.cur, p.prev }()
	secs := now.Sub(p.prev.time).Seconds()
	if first || secs <= 0 {
		return dst, nil
	}
	var v [len(model.NodeMetricNames)]float64
	var ok [len(model.NodeMetricNames)]bool
	set := func(name string, val float64, good bool) {
		i := model.NodeMetricIndex(name)
		v[i], ok[i] = val, good
	}
	rate := func(prev, cur uint64, scale float64) (float64, bool) {
		d, good := counterDelta(prev, cur)
		return float64(d) * scale / secs, good
	}
	setRate := func(name string, prev, cur uint64) {
		r, good := rate(prev, cur, 1)
		set(name, r, good)
	}

	user, sys, steal, iow, cpuOK, iowOK := cpuShares(p.prev.cpu, p.cur.cpu)
	set("cpu_user_pct", user, cpuOK)
	set("cpu_system_pct", sys, cpuOK)
	set("cpu_iowait_pct", iow, iowOK)
	set("cpu_usage", user+sys+steal, cpuOK)
	set("ioWaitRatio", iow, iowOK)
	setRate("context_switches_per_s", p.prev.ctxt, p.cur.ctxt)
	runnable := la.running
	if runnable > 0 {
		runnable-- // the reader itself, as sadc does
	}
	set("procs_runnable", float64(runnable), true)
	set("procs_total", float64(la.entities), true)
	set("load1", la.load1, true)
	setRate("pages_in_kb_per_s", p.prev.vm.pgpgin, p.cur.vm.pgpgin)
	setRate("pages_out_kb_per_s", p.prev.vm.pgpgout, p.cur.vm.pgpgout)
	setRate("page_faults_per_s", p.prev.vm.pgfault, p.cur.vm.pgfault)
	if mem.MemTotal != nil && mem.MemAvailable != nil && *mem.MemTotal > 0 {
		set("mem_usage", 100*float64(*mem.MemTotal-min(*mem.MemAvailable, *mem.MemTotal))/float64(*mem.MemTotal), true)
	}

	// Per-device rates, summed into the node totals over the devices that
	// count; a total is skipped when one of its devices' counters is.
	p.devs = p.devs[:0]
	var rd, wr, wt, rx, tx devRate
	rd.ok, wr.ok, wt.ok, rx.ok, tx.ok = true, true, true, true, true
	for name, c := range p.cur.disks {
		pc, seen := p.prev.disks[name]
		r, w, q := devRate{"disk_read_bytes_per_s", name, 0, seen}, devRate{"disk_write_bytes_per_s", name, 0, seen}, devRate{"weighted_io", name, 0, seen}
		r.v, r.ok = rate(pc.readSec, c.readSec, 512)
		w.v, w.ok = rate(pc.writeSec, c.writeSec, 512)
		q.v, q.ok = rate(pc.wt, c.wt, 1)
		r.ok, w.ok, q.ok = r.ok && seen, w.ok && seen, q.ok && seen
		p.devs = append(p.devs, r, w, q)
		if c.whole {
			rd.sum(r)
			wr.sum(w)
			wt.sum(q)
		}
	}
	for name, c := range p.cur.nets {
		pc, seen := p.prev.nets[name]
		r, t := devRate{"net_rx_bytes_per_s", name, 0, seen}, devRate{"net_tx_bytes_per_s", name, 0, seen}
		r.v, r.ok = rate(pc.rx, c.rx, 1)
		t.v, t.ok = rate(pc.tx, c.tx, 1)
		r.ok, t.ok = r.ok && seen, t.ok && seen
		p.devs = append(p.devs, r, t)
		if name != "lo" {
			rx.sum(r)
			tx.sum(t)
		}
	}
	set("disk_read_bytes_per_s", rd.v, rd.ok)
	set("disk_write_bytes_per_s", wr.v, wr.ok)
	set("disk_read_bw", rd.v, rd.ok)
	set("disk_write_bw", wr.v, wr.ok)
	set("weighted_io", wt.v, wt.ok)
	set("net_rx_bytes_per_s", rx.v, rx.ok)
	set("net_tx_bytes_per_s", tx.v, tx.ok)
	set("net_recv_bw", rx.v, rx.ok)
	set("net_send_bw", tx.v, tx.ok)

	// Node metrics first, in NodeMetricNames order, then per device.
	ms := now.UnixMilli()
	for i, name := range model.NodeMetricNames {
		if ok[i] {
			dst = append(dst, model.Sample{Time: ms, Host: p.host, Type: name, Value: v[i]})
		}
	}
	for _, d := range p.devs {
		if d.ok {
			dst = append(dst, model.Sample{Time: ms, Host: p.host, Type: d.typ, Target: d.target, Value: d.v})
		}
	}
	return dst, nil
}

// devRate is one device's rate of one metric; ok is false when skipped.
type devRate struct {
	typ, target string
	v           float64
	ok          bool
}

// sum adds d into a node total.
func (t *devRate) sum(d devRate) {
	t.v += d.v
	t.ok = t.ok && d.ok
}

// cpuShares returns user, system, steal and iowait as percentages of all
// CPU time between two /proc/stat readings. ok is false when a component went
// backwards (the interval is skipped); iowait alone may go backwards on
// tickless kernels, which skips only iowait (iowOK false).
func cpuShares(a, b procfs.CPUStat) (user, sys, steal, iow float64, ok, iowOK bool) {
	du := b.User - a.User + b.Nice - a.Nice
	ds := b.System - a.System + b.IRQ - a.IRQ + b.SoftIRQ - a.SoftIRQ
	di, dw, dst := b.Idle-a.Idle, b.Iowait-a.Iowait, b.Steal-a.Steal
	ok = b.User >= a.User && b.Nice >= a.Nice && b.System >= a.System && b.IRQ >= a.IRQ &&
		b.SoftIRQ >= a.SoftIRQ && b.Steal >= a.Steal && di >= 0
	iowOK = ok && dw >= 0
	total := du + ds + di + max(dw, 0) + dst
	if !ok || total <= 0 {
		return 0, 0, 0, 0, false, false
	}
	return 100 * du / total, 100 * ds / total, 100 * dst / total, 100 * max(dw, 0) / total, true, iowOK
}
