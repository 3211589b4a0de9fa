package metrics

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/jsonscan"
	"github.com/clusterlens/clusterlens/internal/model"
)

// sysstatRecord is one statistics record of sadf -j output mapped to the
// canonical metrics: val[i] is NodeMetricNames[i] when has[i].
type sysstatRecord struct {
	sc    jsonscan.Scanner
	ms    int64
	timed bool
	val   [len(model.NodeMetricNames)]float64
	has   [len(model.NodeMetricNames)]bool
}

// Positions of the canonical metrics a record sets.
var (
	sysUser    = model.NodeMetricIndex("cpu_user_pct")
	sysSystem  = model.NodeMetricIndex("cpu_system_pct")
	sysIowait  = model.NodeMetricIndex("cpu_iowait_pct")
	sysUsage   = model.NodeMetricIndex("cpu_usage")
	sysIoRatio = model.NodeMetricIndex("ioWaitRatio")
	sysCswch   = model.NodeMetricIndex("context_switches_per_s")
	sysRunq    = model.NodeMetricIndex("procs_runnable")
	sysPlist   = model.NodeMetricIndex("procs_total")
	sysLoad1   = model.NodeMetricIndex("load1")
	sysRx      = model.NodeMetricIndex("net_rx_bytes_per_s")
	sysTx      = model.NodeMetricIndex("net_tx_bytes_per_s")
	sysRecvBW  = model.NodeMetricIndex("net_recv_bw")
	sysSendBW  = model.NodeMetricIndex("net_send_bw")
	sysPgin    = model.NodeMetricIndex("pages_in_kb_per_s")
	sysPgout   = model.NodeMetricIndex("pages_out_kb_per_s")
	sysFault   = model.NodeMetricIndex("page_faults_per_s")
	sysRead    = model.NodeMetricIndex("disk_read_bytes_per_s")
	sysWrite   = model.NodeMetricIndex("disk_write_bytes_per_s")
	sysReadBW  = model.NodeMetricIndex("disk_read_bw")
	sysWriteBW = model.NodeMetricIndex("disk_write_bw")
	sysMem     = model.NodeMetricIndex("mem_usage")
	sysWIO     = model.NodeMetricIndex("weighted_io")
)

func (r *sysstatRecord) set(i int, v float64) { r.val[i], r.has[i] = v, true }

// parse reads one record from raw.
func (r *sysstatRecord) parse(raw []byte, loc *time.Location) error {
	r.ms, r.timed, r.has = 0, false, [len(model.NodeMetricNames)]bool{}
	sc := &r.sc
	sc.Reset(raw)
	if !sc.Object() {
		return wantErr(sc, "a statistics object")
	}
	for k := sc.Key(); k != nil; k = sc.Key() {
		var err error
		switch string(k) {
		case "timestamp":
			err = r.timestamp(sc, loc)
		case "cpu-load", "cpu-load-all":
			r.cpu(sc)
		case "process-and-context-switch":
			r.fields(sc, func(f []byte) {
				if string(f) == "cswch" {
					r.set(sysCswch, sc.Float())
				} else {
					sc.Skip()
				}
			})
		case "queue":
			r.fields(sc, func(f []byte) {
				switch string(f) {
				case "runq-sz":
					r.set(sysRunq, sc.Float())
				case "plist-sz":
					r.set(sysPlist, sc.Float())
				case "ldavg-1":
					r.set(sysLoad1, sc.Float())
				default:
					sc.Skip()
				}
			})
		case "paging":
			r.fields(sc, func(f []byte) {
				switch string(f) {
				case "pgpgin":
					r.set(sysPgin, sc.Float())
				case "pgpgout":
					r.set(sysPgout, sc.Float())
				case "fault":
					r.set(sysFault, sc.Float())
				default:
					sc.Skip()
				}
			})
		case "memory":
			r.memory(sc)
		case "disk":
			r.disk(sc)
		case "network":
			r.fields(sc, func(f []byte) {
				if string(f) == "net-dev" {
					r.network(sc)
				} else {
					sc.Skip()
				}
			})
		default:
			sc.Skip()
		}
		if err != nil {
			return err
		}
		if sc.Err() != nil {
			return fmt.Errorf("%s: %w", k, sc.Err())
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if err := sc.End(); err != nil {
		return err
	}
	if !r.timed {
		for _, h := range r.has {
			if h {
				return errors.New("want a timestamp in a record with statistics")
			}
		}
	}
	for _, a := range [][2]int{{sysIowait, sysIoRatio}, {sysRx, sysRecvBW}, {sysTx, sysSendBW}, {sysRead, sysReadBW}, {sysWrite, sysWriteBW}} {
		if r.has[a[0]] {
			r.set(a[1], r.val[a[0]])
		}
	}
	return nil
}

// fields walks an object's keys; each must consume its value. A null
// object is empty.
func (r *sysstatRecord) fields(sc *jsonscan.Scanner, each func(key []byte)) {
	if !sc.Object() {
		return
	}
	for k := sc.Key(); k != nil && sc.Err() == nil; k = sc.Key() {
		each(k)
	}
}

// objects walks an array of objects, calling each for every key of every
// element and done after each element.
func (r *sysstatRecord) objects(sc *jsonscan.Scanner, each func(key []byte), done func()) {
	if !sc.Array() {
		return
	}
	for sc.Next() {
		r.fields(sc, each)
		if sc.Err() != nil {
			return
		}
		done()
	}
}

// timestamp reads {"date": "2024-01-02", "time": "10:00:01", "utc": 1,
// "interval": 1}: the end of the record's interval, in UTC when utc is 1
// (sadf's default) or absent, else in the file's timezone.
func (r *sysstatRecord) timestamp(sc *jsonscan.Scanner, loc *time.Location) error {
	var stamp [19]byte // "2006-01-02 15:04:05"
	var date, clock []byte
	utc := true
	r.fields(sc, func(f []byte) {
		switch string(f) {
		case "date":
			date = append(stamp[:0], sc.Bytes()...)
		case "time":
			clock = append([]byte(nil), sc.Bytes()...)
		case "utc":
			utc = sc.Int() != 0
		default:
			sc.Skip()
		}
	})
	if sc.Err() != nil {
		return sc.Err()
	}
	if utc {
		loc = time.UTC
	}
	t, err := time.ParseInLocation("2006-01-02 15:04:05", string(append(append(date, ' '), clock...)), loc)
	if err != nil {
		return fmt.Errorf("timestamp: want date YYYY-MM-DD and time hh:mm:ss, got %q %q", date, clock)
	}
	r.ms, r.timed = t.UnixMilli(), true
	return nil
}

// cpu reads the "all" element of cpu-load (sar -u: user, nice, system,
// iowait, steal, idle, where system includes interrupts) or cpu-load-all
// (sar -u ALL: usr, nice, sys, iowait, steal, irq, soft, guest, gnice,
// idle). User is user + nice, system is system + irq + soft, usage is
// 100 - idle - iowait, as the Prometheus mapping computes them.
func (r *sysstatRecord) cpu(sc *jsonscan.Scanner) {
	var all bool
	var user, system, iowait, idle float64
	var hasIdle bool
	r.objects(sc, func(f []byte) {
		switch string(f) {
		case "cpu":
			if sc.Kind() == '"' {
				all = all || strings.EqualFold(string(sc.Bytes()), "all")
			} else {
				all = all || sc.Int() == -1 // sadf -d's spelling of "all"
			}
		case "usr", "user", "nice":
			user += sc.Float()
		case "sys", "system", "irq", "soft":
			system += sc.Float()
		case "iowait":
			iowait = sc.Float()
		case "idle":
			idle, hasIdle = sc.Float(), true
		default:
			sc.Skip()
		}
	}, func() {
		if all {
			r.set(sysUser, user)
			r.set(sysSystem, system)
			r.set(sysIowait, iowait)
			if hasIdle {
				r.set(sysUsage, 100-idle-iowait)
			}
		}
		all, hasIdle, user, system, iowait, idle = false, false, 0, 0, 0, 0
	})
}

// memory reads sar -r's fields (KB). mem_usage is 100 × (1 − avail/total)
// like MemAvailable/MemTotal in the Prometheus mapping, the total being
// memfree + memused + buffers + cached + slab (sysstat ≥ 11.6 leaves
// buffers, cache and slab out of memused); without avail (older sysstat)
// it is memused-percent.
func (r *sysstatRecord) memory(sc *jsonscan.Scanner) {
	var free, avail, used, pct, buffers, cached, slab float64
	var hasAvail, hasPct, hasSlab bool
	r.fields(sc, func(f []byte) {
		switch string(f) {
		case "memfree":
			free = sc.Float()
		case "avail":
			avail, hasAvail = sc.Float(), true
		case "memused":
			used = sc.Float()
		case "memused-percent":
			pct, hasPct = sc.Float(), true
		case "buffers":
			buffers = sc.Float()
		case "cached":
			cached = sc.Float()
		case "slab":
			slab, hasSlab = sc.Float(), true
		default:
			sc.Skip()
		}
	})
	total := free + used + buffers + cached + slab
	switch {
	case hasAvail && hasSlab && total > 0:
		r.set(sysMem, 100*(1-avail/total))
	case hasPct:
		r.set(sysMem, pct)
	}
}

// disk sums sar -d's devices (except device-mapper and md devices, which
// repeat their disks' traffic): rkB/wkB (KB/s, sysstat ≥ 12) or
// rd_sec/wr_sec (512-byte sectors/s) into bytes/s, and aqu-sz (avgqu-sz
// before 12), the average queue length, as weighted I/O time in ms/s.
func (r *sysstatRecord) disk(sc *jsonscan.Scanner) {
	var skip bool
	var rkb, wkb, rsec, wsec, aqu float64
	var hasKB, hasSec, hasAqu bool
	var read, write, wio float64
	var any, anyAqu bool
	r.objects(sc, func(f []byte) {
		switch string(f) {
		case "disk-device":
			b := sc.Bytes()
			skip = bytes.HasPrefix(b, []byte("dm-")) || bytes.HasPrefix(b, []byte("md"))
		case "rkB":
			rkb, hasKB = sc.Float(), true
		case "wkB":
			wkb = sc.Float()
		case "rd_sec":
			rsec, hasSec = sc.Float(), true
		case "wr_sec":
			wsec = sc.Float()
		case "aqu-sz", "avgqu-sz":
			aqu, hasAqu = sc.Float(), true
		default:
			sc.Skip()
		}
	}, func() {
		if !skip {
			switch {
			case hasKB:
				read, write, any = read+rkb*1024, write+wkb*1024, true
			case hasSec:
				read, write, any = read+rsec*512, write+wsec*512, true
			}
			if hasAqu {
				wio, anyAqu = wio+aqu*1000, true
			}
		}
		skip, rkb, wkb, rsec, wsec, aqu, hasKB, hasSec, hasAqu = false, 0, 0, 0, 0, 0, false, false, false
	})
	if any {
		r.set(sysRead, read)
		r.set(sysWrite, write)
	}
	if anyAqu {
		r.set(sysWIO, wio)
	}
}

// network sums sar -n DEV's interfaces except lo: rxkB/txkB (KB/s) into
// bytes/s.
func (r *sysstatRecord) network(sc *jsonscan.Scanner) {
	var lo bool
	var rx, tx, sumRx, sumTx float64
	var any bool
	r.objects(sc, func(f []byte) {
		switch string(f) {
		case "iface":
			lo = string(sc.Bytes()) == "lo"
		case "rxkB":
			rx = sc.Float()
		case "txkB":
			tx = sc.Float()
		default:
			sc.Skip()
		}
	}, func() {
		if !lo {
			sumRx, sumTx, any = sumRx+rx*1024, sumTx+tx*1024, true
		}
		lo, rx, tx = false, 0, 0
	})
	if any {
		r.set(sysRx, sumRx)
		r.set(sysTx, sumTx)
	}
}
