package sampler

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
)

// loadavg is /proc/loadavg: "0.50 0.40 0.30 4/134 22962". procfs's LoadAvg
// drops the fourth field, which holds sar -q's runq-sz and plist-sz.
type loadavg struct {
	load1    float64
	running  uint64 // scheduling entities running or runnable now
	entities uint64 // all scheduling entities: processes and their threads
}

// parseLoadavg parses the content of /proc/loadavg.
func parseLoadavg(b []byte) (loadavg, error) {
	f := bytes.Fields(b)
	if len(f) < 4 {
		return loadavg{}, fmt.Errorf("loadavg: %d fields, want at least 4 (load1 load5 load15 running/total)", len(f))
	}
	l1, err := strconv.ParseFloat(string(f[0]), 64)
	if err != nil || math.IsNaN(l1) || math.IsInf(l1, 0) {
		return loadavg{}, fmt.Errorf("loadavg: field 1 (load1) %q: want a finite number", f[0])
	}
	r, t, ok := bytes.Cut(f[3], []byte{'/'})
	if !ok {
		return loadavg{}, fmt.Errorf("loadavg: field 4 %q: want running/total", f[3])
	}
	running, err1 := strconv.ParseUint(string(r), 10, 64)
	total, err2 := strconv.ParseUint(string(t), 10, 64)
	if err1 != nil || err2 != nil {
		return loadavg{}, fmt.Errorf("loadavg: field 4 %q: want running/total as integers", f[3])
	}
	return loadavg{load1: l1, running: running, entities: total}, nil
}

// vmstat holds the /proc/vmstat counters the proc sampler reads. procfs
// has no /proc/vmstat reader (its VM type is /proc/sys/vm).
type vmstat struct {
	pgpgin, pgpgout uint64 // KB paged in from and out to block devices
	pgfault         uint64 // page faults, minor and major
}

// parseVmstat parses the content of /proc/vmstat ("name value" lines). It
// fails when one of the counters it needs is missing or not a number.
func parseVmstat(b []byte) (vmstat, error) {
	var v vmstat
	var seen int
	for line := 1; len(b) > 0; line++ {
		var l []byte
		l, b, _ = bytes.Cut(b, []byte{'\n'})
		name, val, ok := bytes.Cut(l, []byte{' '})
		var dst *uint64
		var bit int
		switch string(name) {
		case "pgpgin":
			dst, bit = &v.pgpgin, 1
		case "pgpgout":
			dst, bit = &v.pgpgout, 2
		case "pgfault":
			dst, bit = &v.pgfault, 4
		default:
			continue
		}
		n, err := strconv.ParseUint(string(bytes.TrimSpace(val)), 10, 64)
		if !ok || err != nil {
			return vmstat{}, fmt.Errorf("vmstat: line %d %q: want %q and an integer", line, l, name)
		}
		*dst = n
		seen |= bit
	}
	if seen != 7 {
		return vmstat{}, fmt.Errorf("vmstat: missing pgpgin, pgpgout or pgfault")
	}
	return v, nil
}
