package sampler

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"golang.org/x/sys/unix"
)

func init() { Register("perf", false, newPerfSampler) }

// perfEvent is one generic hardware event the perf sampler counts.
type perfEvent struct {
	name   string
	typ    uint32
	config uint64
}

// cacheMiss is the perf config of a read miss in a generic cache.
func cacheMiss(cache uint64) uint64 {
	return cache | unix.PERF_COUNT_HW_CACHE_OP_READ<<8 | unix.PERF_COUNT_HW_CACHE_RESULT_MISS<<16
}

// perfEvents are the events counted, instructions first (every other
// metric is per instruction). The kernel's generic events have no L2 and
// no instruction mix; the last-level cache stands for L2 misses, and the
// mix is not measured (it needs model-specific raw events).
var perfEvents = []perfEvent{
	{"instructions", unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_INSTRUCTIONS},
	{"cycles", unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_CPU_CYCLES},
	{"branches", unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch_misses", unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_BRANCH_MISSES},
	{"l1i_misses", unix.PERF_TYPE_HW_CACHE, cacheMiss(unix.PERF_COUNT_HW_CACHE_L1I)},
	{"llc_misses", unix.PERF_TYPE_HW_CACHE, cacheMiss(unix.PERF_COUNT_HW_CACHE_LL)},
	{"itlb_misses", unix.PERF_TYPE_HW_CACHE, cacheMiss(unix.PERF_COUNT_HW_CACHE_ITLB)},
	{"dtlb_misses", unix.PERF_TYPE_HW_CACHE, cacheMiss(unix.PERF_COUNT_HW_CACHE_DTLB)},
}

// perfSampler counts hardware events system-wide, one counter per event
// and online CPU (perf_event_open with pid -1), and reports per interval:
// ipc, instructions_per_s, branches_per_s, branch_misses_per_s,
// branch_miss_pct, and l1i, llc, itlb and dtlb misses per kilo-instruction
// (l1i_mpki, llc_mpki, itlb_mpki, dtlb_mpki), for the node (Target "").
// Events the PMU lacks are left out; counts are scaled by
// time_enabled/time_running when the kernel multiplexes counters.
type perfSampler struct {
	host   string
	events []perfEvent
	fds    [][]int // [event][cpu], -1 where the event could not be opened
	prev   []float64
	cur    []float64
	at     time.Time
	have   bool
	buf    [24]byte
}

func newPerfSampler(cfg Config) (Sampler, error) { return newPerfWith(cfg, perfEvents) }

// newPerfWith opens events (the first one is required) on every online CPU.
func newPerfWith(cfg Config, events []perfEvent) (*perfSampler, error) {
	sys := cfg.SysRoot
	if sys == "" {
		sys = "/sys"
	}
	b, err := os.ReadFile(filepath.Join(sys, "devices/system/cpu/online"))
	if err != nil {
		return nil, fmt.Errorf("perf sampler: %w: %w", ErrUnsupported, err)
	}
	cpus, err := parseCPUList(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("perf sampler: %w", err)
	}
	p := &perfSampler{host: hostOf(cfg), events: events, fds: make([][]int, len(events))}
	for i, ev := range events {
		p.fds[i] = make([]int, len(cpus))
		for j, cpu := range cpus {
			fd, err := openCounter(ev, cpu)
			if err != nil && i == 0 {
				p.Close()
				return nil, fmt.Errorf("perf sampler: %w: open %s on cpu %d: %w (%s)", ErrUnsupported, ev.name, cpu, err, paranoia())
			}
			if err != nil && j == 0 && cfg.Logger != nil {
				cfg.Logger.Info("perf sampler: event unavailable, left out", "event", ev.name, "err", err)
			}
			p.fds[i][j] = fd
		}
	}
	p.prev, p.cur = make([]float64, len(events)), make([]float64, len(events))
	return p, nil
}

// openCounter opens a counting (not sampling) event on one CPU for all
// processes; it returns -1 and the error when the event is unavailable.
func openCounter(ev perfEvent, cpu int) (int, error) {
	attr := unix.PerfEventAttr{
		Type:        ev.typ,
		Config:      ev.config,
		Size:        uint32(binary.Size(unix.PerfEventAttr{})),
		Read_format: unix.PERF_FORMAT_TOTAL_TIME_ENABLED | unix.PERF_FORMAT_TOTAL_TIME_RUNNING,
	}
	fd, err := unix.PerfEventOpen(&attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return -1, err
	}
	return fd, nil
}

// paranoia describes why the kernel may have refused: its
// perf_event_paranoid setting and whether the PMU is exposed at all.
func paranoia() string {
	s := "kernel.perf_event_paranoid unreadable"
	if b, err := os.ReadFile("/proc/sys/kernel/perf_event_paranoid"); err == nil {
		s = "kernel.perf_event_paranoid=" + strings.TrimSpace(string(b))
	}
	if _, err := os.Stat("/sys/bus/event_source/devices/cpu"); errors.Is(err, os.ErrNotExist) {
		s += ", no CPU PMU exposed (/sys/bus/event_source/devices/cpu missing: a VM or container without perf passthrough)"
	}
	return s
}

// Close releases the counters.
func (p *perfSampler) Close() error {
	for _, row := range p.fds {
		for _, fd := range row {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}
	return nil
}

// read sums each event's scaled count over the CPUs into dst; an event
// with no open counter reads -1.
func (p *perfSampler) read(dst []float64) error {
	for i, row := range p.fds {
		dst[i] = -1
		for _, fd := range row {
			if fd < 0 {
				continue
			}
			if _, err := unix.Read(fd, p.buf[:]); err != nil {
				return fmt.Errorf("perf sampler: read %s: %w", p.events[i].name, err)
			}
			v := binary.NativeEndian.Uint64(p.buf[0:])
			enabled := binary.NativeEndian.Uint64(p.buf[8:])
			running := binary.NativeEndian.Uint64(p.buf[16:])
			if dst[i] < 0 {
				dst[i] = 0
			}
			if running > 0 {
				dst[i] += float64(v) * float64(enabled) / float64(running)
			}
		}
	}
	return nil
}

// Sample implements Sampler.
func (p *perfSampler) Sample(now time.Time, dst []model.Sample) ([]model.Sample, error) {
	if err := p.read(p.cur); err != nil {
		return dst, err
	}
	first, secs := !p.have, now.Sub(p.at).Seconds()
	d := make(map[string]float64, len(p.events))
	for i, ev := range p.events {
		if p.prev[i] >= 0 && p.cur[i] >= p.prev[i] {
			d[ev.name] = p.cur[i] - p.prev[i]
		}
	}
	p.have, p.at = true, now
	p.prev, p.cur = p.cur, p.prev
	if first || secs <= 0 {
		return dst, nil
	}
	ms := now.UnixMilli()
	add := func(typ string, v float64) {
		dst = append(dst, model.Sample{Time: ms, Host: p.host, Type: typ, Value: v})
	}
	ins, okIns := d["instructions"]
	if okIns {
		add("instructions_per_s", ins/secs)
	}
	if cyc, ok := d["cycles"]; ok && okIns && cyc > 0 {
		add("ipc", ins/cyc)
	}
	if br, ok := d["branches"]; ok {
		add("branches_per_s", br/secs)
		if bm, ok := d["branch_misses"]; ok {
			add("branch_misses_per_s", bm/secs)
			if br > 0 {
				add("branch_miss_pct", 100*bm/br)
			}
		}
	}
	for _, m := range [...]struct{ ev, typ string }{
		{"l1i_misses", "l1i_mpki"}, {"llc_misses", "llc_mpki"}, {"itlb_misses", "itlb_mpki"}, {"dtlb_misses", "dtlb_mpki"},
	} {
		if v, ok := d[m.ev]; ok && okIns && ins > 0 {
			add(m.typ, 1000*v/ins)
		}
	}
	return dst, nil
}

// parseCPUList parses a kernel CPU list such as "0-3,5,7-8".
func parseCPUList(s string) ([]int, error) {
	var cpus []int
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := parseSmallInt(lo)
		b := a
		if err == nil && isRange {
			b, err = parseSmallInt(hi)
		}
		if err != nil || b < a {
			return nil, fmt.Errorf("cpu list %q: part %q: want N or N-M with N <= M", s, part)
		}
		for c := a; c <= b; c++ {
			cpus = append(cpus, c)
		}
	}
	return cpus, nil
}

// parseSmallInt parses a CPU number (0..65535).
func parseSmallInt(s string) (int, error) {
	if s == "" || len(s) > 5 {
		return 0, fmt.Errorf("bad cpu number %q", s)
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad cpu number %q", s)
		}
		n = n*10 + int(c-'0')
	}
	if n > 65535 {
		return 0, fmt.Errorf("bad cpu number %q", s)
	}
	return n, nil
}
