package metrics

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// NmonInfo is what ReadNmon learnt about a recording besides its samples.
type NmonInfo struct {
	Host      string // AAA,host
	OS        string // "Linux" (AAA,OS) or "AIX" (AAA,AIX), "" when the file says neither
	Snapshots int    // ZZZZ lines read
	// Absent are the canonical metrics the file gave no sample of: load1,
	// procs_total and weighted_io always (nmon records none of them), others
	// when their sections are missing.
	Absent []string
	// Notes say what was left out and why without making the read partial:
	// the absent metrics, an incomplete last line, snapshots nmon itself
	// marked invalid.
	Notes []string
}

// nmonNeverRecorded are the canonical metrics no nmon section holds: the
// load average, the task count (nmon's TOP lists only busy processes) and
// the disks' weighted I/O time (DISKBUSY is %util, not queue length).
var nmonNeverRecorded = []string{"procs_total", "load1", "weighted_io"}

// nmonMaxLine bounds one line; longer ones are skipped unread.
const nmonMaxLine = 1 << 20

// nmonMaxProblems is how many skipped lines a partial read's error quotes.
const nmonMaxProblems = 3

// ReadNmon streams the samples of one nmon recording (`nmon -f` of nmon for
// Linux, checked with 16n, or AIX's topas_nmon): one file per node, AAA lines (host,
// interval), section headers (SECTION,description,column,…) and, after each
// ZZZZ,Tnnnn,hh:mm:ss,DD-MON-YYYY line, that snapshot's data lines
// (SECTION,Tnnnn,value,…). CPU_ALL, MEM (Linux) or MEMNEW (AIX), VM (Linux)
// or PAGE (AIX), PROC, NET and DISKREAD/DISKWRITE become the canonical node
// metrics (docs/SOURCES.md has the table), stamped at the snapshot's ZZZZ
// time, read in loc (nil: time.Local; nmon writes local time without a
// zone), with the AAA,host name. Memory holds one snapshot and the headers.
//
// A line that cannot be read (a value count unlike its header's, a number
// that is not one, a snapshot tag other than the current ZZZZ's, a line
// over 1 MiB) is skipped and counted: the other samples are delivered and
// the error wraps ErrPartial, quoting the first lines with their numbers.
// A file that is not an nmon recording, or whose data precede their ZZZZ
// line (a sorted file), is an error naming the file and line. name labels
// errors; the Sample passed to fn is reused; fn's error is returned as it is.
func ReadNmon(r io.Reader, name string, loc *time.Location, fn func(*model.Sample) error) (NmonInfo, error) {
	if loc == nil {
		loc = time.Local
	}
	p := &nmonReader{name: name, loc: loc, fn: fn, lines: newLineReader(r, nmonMaxLine)}
	err := p.read()
	if err == nil {
		err = p.finish()
	}
	return p.info, err
}

// nmonKind is a section the mapping reads.
type nmonKind uint8

const (
	nmonOther  nmonKind = iota
	nmonCPU             // CPU_ALL
	nmonMem             // MEM: Linux's memtotal, memfree, … (MB); AIX's is not read
	nmonMemNew          // MEMNEW (AIX): Process%, FScache%, System%, Free%, …
	nmonVM              // VM (Linux): /proc/vmstat deltas per snapshot
	nmonPage            // PAGE (AIX): faults, pgin, pgout, … per second
	nmonProc            // PROC: Runnable, …, pswitch, …
	nmonNet             // NET: IFACE-read-KB/s …, IFACE-write-KB/s …
	nmonDisk            // DISKREAD and DISKWRITE, KB/s per disk, 150 disks a line
	nmonKinds
)

// nmonSections maps the section names read to their kinds.
var nmonSections = map[string]nmonKind{
	"CPU_ALL": nmonCPU, "MEM": nmonMem, "MEMNEW": nmonMemNew, "VM": nmonVM, "PAGE": nmonPage,
	"PROC": nmonProc, "NET": nmonNet,
}

// nmonWanted are the header columns each kind reads; a column's slot is
// 1 + its position here.
var nmonWanted = [nmonKinds][]string{
	nmonCPU:    {"User%", "Sys%", "Wait%", "Idle%", "Steal%"},
	nmonMem:    {"memtotal", "memfree", "cached", "buffers"},
	nmonMemNew: {"Free%", "FScache%"},
	nmonVM:     {"pgpgin", "pgpgout", "pgfault"},
	nmonPage:   {"faults", "pgin", "pgout"},
	nmonProc:   {"Runnable", "pswitch"},
}

// nmonDiskGroups: nmon writes 150 disks a line, the next 150 under
// DISKREAD1, … DISKREAD15, then DISKREADToo-Many-Disks.
const nmonDiskGroups = 17

// nmonLayout is one section's header: how many values its data lines
// carry and which of them the mapping reads.
type nmonLayout struct {
	header bool // a header line was read
	usable bool // it has what the mapping needs
	n      int
	// slot says where each column's value goes, 0 nowhere: for the named
	// sections 1 + its position in nmonWanted; for NET and the disks 1
	// (summed as received or read) or 2 (as sent or written). any says
	// whether a column has a slot; have marks the slots present.
	slot []uint8
	any  bool
	have uint8
}

// nmonSnap is the snapshot being read.
type nmonSnap struct {
	open  bool // a ZZZZ line opened it
	valid bool // its ZZZZ line was readable
	tag   []byte
	ms    int64
	dt    float64 // seconds since the previous snapshot, for VM's deltas; 0 unknown
	val   [len(model.NodeMetricNames)]float64
	has   [len(model.NodeMetricNames)]bool
	done  uint64 // sections read, to catch repeats: 1<<kind, disks 1<<(16+2·group+read/write)
}

type nmonReader struct {
	name    string
	loc     *time.Location
	fn      func(*model.Sample) error
	lines   *lineReader
	line    int
	started bool // the first line, an AAA one, was read

	info     NmonInfo
	interval float64 // AAA,interval, seconds; 0 unknown
	lay      [nmonKinds]nmonLayout
	disk     [2][nmonDiskGroups]nmonLayout // [0] DISKREAD, [1] DISKWRITE

	snap     nmonSnap
	prevMs   int64 // the previous snapshot's time; -1 when its ZZZZ line was unreadable
	emitted  [len(model.NodeMetricNames)]bool
	s        model.Sample
	problems int
	first    []string
	cpuBad   int // CPU_ALL rows not adding up to 100
	vmNeg    int // VM rows with a negative delta
}

func (p *nmonReader) read() error {
	for {
		b, complete, long, err := p.lines.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", p.name, p.line+1, err)
		}
		p.line++
		if !complete {
			p.info.Notes = append(p.info.Notes, fmt.Sprintf("%s:%d: last line incomplete (nmon still writing, or the file was cut): dropped", p.name, p.line))
			return nil
		}
		if long > 0 {
			p.problem("line of %d bytes, over the %d limit: skipped", long, nmonMaxLine)
			continue
		}
		if err := p.handle(bytes.TrimRight(b, "\r")); err != nil {
			return err
		}
	}
}

// handle reads one line.
func (p *nmonReader) handle(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	sec, rest, _ := bytes.Cut(b, []byte{','})
	if !p.started {
		if string(sec) != "AAA" {
			return fmt.Errorf("%s:%d: want an nmon recording (a first line AAA,progname,…), got %q", p.name, p.line, clip(b, 40))
		}
		p.started = true
	}
	switch string(sec) {
	case "AAA":
		p.aaa(rest)
		return nil
	case "ZZZZ":
		return p.zzzz(rest)
	}
	kind, write, group := nmonKindOf(sec)
	if kind == nmonOther {
		return nil
	}
	return p.section(kind, write, group, sec, rest)
}

// nmonKindOf tells a section's kind; for the disks, whether it is DISKWRITE
// and which group of 150 disks.
func nmonKindOf(sec []byte) (kind nmonKind, write, group int) {
	if k, ok := nmonSections[string(sec)]; ok {
		return k, 0, 0
	}
	for w, base := range [2]string{"DISKREAD", "DISKWRITE"} {
		suffix, ok := bytes.CutPrefix(sec, []byte(base))
		if !ok {
			continue
		}
		if g := nmonDiskGroup(suffix); g >= 0 {
			return nmonDisk, w, g
		}
	}
	return nmonOther, 0, 0
}

// nmonDiskGroup is the group a disk section's suffix names ("" is 0, "1"
// to "15", "Too-Many-Disks" 16), or -1 for other sections (DISKREADS,
// DISKREADSERV, …).
func nmonDiskGroup(suffix []byte) int {
	switch {
	case len(suffix) == 0:
		return 0
	case string(suffix) == "Too-Many-Disks":
		return nmonDiskGroups - 1
	case len(suffix) <= 2:
		n, ok := csvInt(suffix)
		if ok && suffix[0] != '-' && suffix[0] != '+' && n >= 1 && n < nmonDiskGroups-1 {
			return int(n)
		}
	}
	return -1
}

// aaa reads the header facts the mapping needs.
func (p *nmonReader) aaa(rest []byte) {
	key, val, _ := bytes.Cut(rest, []byte{','})
	switch string(key) {
	case "host":
		if p.info.Host == "" {
			p.info.Host = strings.TrimSpace(string(val))
		}
	case "interval":
		if v, ok := csvFloat(bytes.TrimSpace(val)); ok && v > 0 && v < 1e9 {
			p.interval = v
		}
	case "OS":
		os, _, _ := bytes.Cut(val, []byte{','})
		p.info.OS = string(os)
	case "AIX":
		p.info.OS = "AIX"
	}
}

// zzzz ends the current snapshot and opens the next.
func (p *nmonReader) zzzz(rest []byte) error {
	if err := p.flush(); err != nil {
		return err
	}
	if p.info.Host == "" {
		return fmt.Errorf("%s:%d: want an AAA,host line before the first snapshot", p.name, p.line)
	}
	tag, rest, _ := bytes.Cut(rest, []byte{','})
	clock, date, _ := bytes.Cut(rest, []byte{','})
	date, _, _ = bytes.Cut(date, []byte{','})
	p.snap.open, p.snap.valid, p.snap.done = true, false, 0
	p.snap.tag = append(p.snap.tag[:0], tag...)
	if !nmonTag(tag) {
		p.problem("ZZZZ: want a snapshot tag Tnnnn, got %q: its data skipped", clip(tag, 20))
		p.prevMs = -1
		return nil
	}
	t, ok := nmonTime(clock, date, p.loc)
	if !ok {
		p.problem("ZZZZ,%s: want hh:mm:ss,DD-MON-YYYY, got %q,%q: snapshot skipped", tag, clip(clock, 20), clip(date, 20))
		p.prevMs = -1
		return nil
	}
	p.snap.valid, p.snap.ms = true, t.UnixMilli()
	p.snap.dt = p.vmInterval()
	p.prevMs = p.snap.ms
	p.info.Snapshots++
	return nil
}

// vmInterval is the time VM's deltas of the snapshot just opened span: the
// AAA interval when the ZZZZ times agree with it to their 1 s resolution
// (or the previous ZZZZ line was unreadable), else their difference (nmon
// overran its interval); 0 for the first snapshot, whose span (nmon's
// start-up) the file does not record.
func (p *nmonReader) vmInterval() float64 {
	if p.info.Snapshots == 0 {
		return 0
	}
	if p.prevMs < 0 {
		return p.interval
	}
	gap := float64(p.snap.ms-p.prevMs) / 1000
	switch {
	case p.interval > 0 && math.Abs(gap-p.interval) <= 1:
		return p.interval
	case gap > 0:
		return gap
	}
	return p.interval
}

// nmonTag reports whether b is a snapshot tag: T and digits.
func nmonTag(b []byte) bool {
	if len(b) < 2 || b[0] != 'T' {
		return false
	}
	for _, c := range b[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

var nmonMonths = [12]string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}

// nmonTime parses ZZZZ's hh:mm:ss and DD-MON-YYYY in loc.
func nmonTime(clock, date []byte, loc *time.Location) (time.Time, bool) {
	num := func(b []byte, lo, hi int64) (int, bool) {
		if len(b) == 0 || len(b) > 4 || b[0] == '-' || b[0] == '+' {
			return 0, false
		}
		n, ok := csvInt(b)
		return int(n), ok && n >= lo && n <= hi
	}
	hh, rest, cut1 := bytes.Cut(clock, []byte{':'})
	mm, ss, cut2 := bytes.Cut(rest, []byte{':'})
	dd, rest, cut3 := bytes.Cut(date, []byte{'-'})
	mon3, yyyy, cut4 := bytes.Cut(rest, []byte{'-'})
	if !cut1 || !cut2 || !cut3 || !cut4 {
		return time.Time{}, false
	}
	h, okH := num(hh, 0, 23)
	mi, okM := num(mm, 0, 59)
	s, okS := num(ss, 0, 60)
	d, okD := num(dd, 1, 31)
	y, okY := num(yyyy, 1970, 9999)
	mon := 0
	for i, m := range nmonMonths {
		if bytes.EqualFold(mon3, []byte(m)) {
			mon = i + 1
		}
	}
	if !okH || !okM || !okS || !okD || !okY || mon == 0 {
		return time.Time{}, false
	}
	t := time.Date(y, time.Month(mon), d, h, mi, s, 0, loc)
	if t.Day() != d { // 31-APR
		return time.Time{}, false
	}
	return t, true
}

// section reads a header or a data line of a mapped section.
func (p *nmonReader) section(kind nmonKind, write, group int, sec, rest []byte) error {
	lay := &p.lay[kind]
	if kind == nmonDisk {
		lay = &p.disk[write][group]
	}
	tag, vals, hasVals := bytes.Cut(rest, []byte{','})
	if !nmonTag(tag) {
		p.header(kind, lay, sec, vals, hasVals)
		return nil
	}
	switch {
	case !p.snap.open:
		return fmt.Errorf("%s:%d: %s,%s before any ZZZZ line: want nmon's own line order (a sorted nmon file cannot be streamed)", p.name, p.line, sec, tag)
	case !p.snap.valid:
		return nil // its ZZZZ line was reported
	case !bytes.Equal(tag, p.snap.tag):
		p.problem("%s,%s: want the current snapshot %s", sec, tag, p.snap.tag)
		return nil
	case !lay.header:
		p.problem("%s: data before the section's header line", sec)
		return nil
	case !lay.usable:
		return nil // its header was reported, or the mapping does not read it
	}
	bit := uint64(1) << kind
	if kind == nmonDisk {
		bit = 1 << (16 + 2*group + write)
	}
	if p.snap.done&bit != 0 {
		p.problem("%s: a second line for snapshot %s", sec, tag)
		return nil
	}
	n := 0
	if hasVals {
		n = bytes.Count(vals, []byte{','}) + 1
	}
	if n != lay.n {
		p.problem("%s: want %d values, one per header column, got %d", sec, lay.n, n)
		return nil
	}
	var acc [6]float64
	for i, start, k := 0, 0, 0; hasVals && k <= len(vals); k++ {
		if k < len(vals) && vals[k] != ',' {
			continue
		}
		if s := lay.slot[i]; s != 0 {
			x, ok := csvFloat(vals[start:k])
			if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
				p.problem("%s: column %d: want a number, got %q", sec, i+3, clip(vals[start:k], 20))
				return nil
			}
			acc[s] += x
		}
		i, start = i+1, k+1
	}
	p.snap.done |= bit
	p.apply(kind, lay, write, acc)
	return nil
}

// header records a section's columns.
func (p *nmonReader) header(kind nmonKind, lay *nmonLayout, sec, cols []byte, hasCols bool) {
	*lay = nmonLayout{header: true, slot: lay.slot[:0]}
	for start, k := 0, 0; hasCols && k <= len(cols); k++ {
		if k < len(cols) && cols[k] != ',' {
			continue
		}
		c := bytes.TrimSpace(cols[start:k])
		start = k + 1
		var s uint8
		switch kind {
		case nmonNet, nmonDisk:
			s = nmonColumn(kind, c)
		default:
			for i, want := range nmonWanted[kind] {
				if string(c) == want {
					s = uint8(i + 1)
				}
			}
		}
		lay.slot = append(lay.slot, s)
		lay.any = lay.any || s != 0
		lay.have |= 1 << s
	}
	lay.n = len(lay.slot)
	need := len(nmonWanted[kind])
	if kind == nmonCPU {
		need = 4 // Steal% came with nmon 14; AIX has none
	}
	lay.usable = true
	for i := 1; i <= need; i++ {
		lay.usable = lay.usable && lay.have&(1<<i) != 0
	}
	if !lay.usable && kind != nmonMem { // AIX's MEM has other columns: MEMNEW serves
		p.problem("%s header: want the columns %s", sec, strings.Join(nmonWanted[kind][:need], ", "))
	}
}

// nmonDiskSkipped matches the devices whose traffic other devices already
// count, as node_exporter's and sysstat's mappings leave them out:
// partitions (sda1, sdaa2, hdb1, xvdb2, nvme0n1p1, mmcblk0p1,
// cciss/c0d0p1), device mapper and md, and loop and RAM disks. IDE names
// have one letter: AIX's hdisk0 is a disk.
var nmonDiskSkipped = regexp.MustCompile(`^(?:(?:sd[a-z]+|hd[a-z]|vd[a-z]+|xvd[a-z]+)\d+|nvme\d+n\d+p\d+|mmcblk\d+p\d+|.*c\d+d\d+p\d+|dm-.*|md.*|loop\d+|z?ram\d+)$`)

// nmonColumn is the role of a NET or disk header column.
func nmonColumn(kind nmonKind, c []byte) uint8 {
	if kind == nmonDisk {
		if len(c) == 0 || nmonDiskSkipped.Match(c) {
			return 0
		}
		return 1
	}
	role := uint8(1)
	iface, ok := bytes.CutSuffix(c, []byte("-read-KB/s"))
	if !ok {
		role = 2
		iface, ok = bytes.CutSuffix(c, []byte("-write-KB/s"))
	}
	if !ok || len(iface) == 0 || string(iface) == "lo" || string(iface) == "lo0" {
		return 0
	}
	return role
}

// apply maps one section's values, added up by slot (lay.slot), onto the
// snapshot: v holds nmonWanted's columns in order; sum[1] and sum[2] are
// the received and sent (or the disks' read or written) totals.
func (p *nmonReader) apply(kind nmonKind, lay *nmonLayout, write int, acc [6]float64) {
	sn := &p.snap
	set := func(i int, x float64) { sn.val[i], sn.has[i] = x, true }
	v, sum := acc[1:], acc[:3]
	switch kind {
	case nmonCPU:
		// The shares add up to 100 (Steal% is 0 where nmon has none);
		// nmon zeroes a row it cannot compute.
		if math.Abs(v[0]+v[1]+v[2]+v[3]+v[4]-100) > 1 {
			p.cpuBad++
			return
		}
		set(sysUser, v[0])
		set(sysSystem, v[1])
		set(sysIowait, v[2])
		set(sysUsage, 100-v[3]-v[2])
	case nmonMem:
		if v[0] > 0 {
			set(sysMem, 100*(1-(v[1]+v[2]+v[3])/v[0]))
		}
	case nmonMemNew:
		set(sysMem, 100-v[0]-v[1])
	case nmonVM:
		if sn.dt <= 0 {
			return
		}
		if v[0] < 0 || v[1] < 0 || v[2] < 0 {
			p.vmNeg++
			return
		}
		set(sysPgin, v[0]/sn.dt)
		set(sysPgout, v[1]/sn.dt)
		set(sysFault, v[2]/sn.dt)
	case nmonPage:
		set(sysFault, v[0])
		set(sysPgin, v[1]*4) // AIX counts 4 KB pages
		set(sysPgout, v[2]*4)
	case nmonProc:
		set(sysRunq, v[0])
		set(sysCswch, v[1])
	case nmonNet:
		if lay.any {
			set(sysRx, sum[1]*1024)
			set(sysTx, sum[2]*1024)
		}
	case nmonDisk:
		if lay.any {
			i := nmonDiskMetric[write]
			if !sn.has[i] {
				sn.val[i] = 0
			}
			set(i, sn.val[i]+sum[1]*1024)
		}
	}
}

// nmonDiskMetric is DISKREAD's and DISKWRITE's canonical metric.
var nmonDiskMetric = [2]int{sysRead, sysWrite}

// flush delivers the current snapshot's samples.
func (p *nmonReader) flush() error {
	sn := &p.snap
	if !sn.open || !sn.valid {
		return nil
	}
	for w := range p.disk { // a disk total needs every group of 150 disks
		for g := range p.disk[w] {
			if p.disk[w][g].any && sn.done&(1<<(16+2*g+w)) == 0 {
				sn.has[nmonDiskMetric[w]] = false
			}
		}
	}
	for _, a := range [][2]int{{sysIowait, sysIoRatio}, {sysRx, sysRecvBW}, {sysTx, sysSendBW}, {sysRead, sysReadBW}, {sysWrite, sysWriteBW}} {
		if sn.has[a[0]] {
			sn.val[a[1]], sn.has[a[1]] = sn.val[a[0]], true
		}
	}
	for i, name := range model.NodeMetricNames {
		if !sn.has[i] {
			continue
		}
		p.emitted[i] = true
		p.s = model.Sample{Time: sn.ms, Host: p.info.Host, Type: name, Value: sn.val[i]}
		if err := p.fn(&p.s); err != nil {
			return err
		}
	}
	sn.has = [len(model.NodeMetricNames)]bool{}
	sn.open = false
	return nil
}

// finish delivers the last snapshot and says what the file lacked.
func (p *nmonReader) finish() error {
	if err := p.flush(); err != nil {
		return err
	}
	if p.line == 0 {
		return fmt.Errorf("%s: empty: want an nmon recording", p.name)
	}
	if p.info.Snapshots == 0 && p.problems == 0 {
		return fmt.Errorf("%s: %w: no snapshot (ZZZZ line) yet: nmon may still be starting", p.name, ErrPartial)
	}
	for i, name := range model.NodeMetricNames {
		if !p.emitted[i] {
			p.info.Absent = append(p.info.Absent, name)
		}
	}
	var other []string
	for _, a := range p.info.Absent {
		if !slices.Contains(nmonNeverRecorded, a) {
			other = append(other, a)
		}
	}
	note := fmt.Sprintf("%s: host %s: no %s (nmon records none of them)", p.name, p.info.Host, strings.Join(nmonNeverRecorded, ", "))
	if len(other) > 0 {
		note += fmt.Sprintf("; no %s either (their sections are missing or unusable here)", strings.Join(other, ", "))
	}
	p.info.Notes = append(p.info.Notes, note)
	if p.cpuBad > 0 {
		p.info.Notes = append(p.info.Notes, fmt.Sprintf("%s: %d CPU_ALL rows whose percentages do not add up to 100 (nmon zeroes a row when the CPU count changes): their CPU metrics left out", p.name, p.cpuBad))
	}
	if p.vmNeg > 0 {
		p.info.Notes = append(p.info.Notes, fmt.Sprintf("%s: %d VM rows with a negative delta (a counter reset): their paging rates left out", p.name, p.vmNeg))
	}
	if p.problems > 0 {
		lines := "lines"
		if p.problems == 1 {
			lines = "line"
		}
		return fmt.Errorf("%s: %w: %d %s skipped: %s", p.name, ErrPartial, p.problems, lines, strings.Join(p.first, "; "))
	}
	return nil
}

// problem counts a skipped line, quoting the first few.
func (p *nmonReader) problem(format string, args ...any) {
	p.problems++
	if len(p.first) < nmonMaxProblems {
		p.first = append(p.first, fmt.Sprintf("%s:%d: ", p.name, p.line)+fmt.Sprintf(format, args...))
	}
}

// clip shortens b for an error message.
func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// lineReader yields a stream's lines without their '\n', holding at most
// max bytes of one line.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &lineReader{r: br, max: max}
}

// next returns the next line; complete is false for a last line without
// '\n'; long > 0 is the length of a complete line over max, whose bytes
// are not returned; io.EOF ends the stream.
func (l *lineReader) next() (line []byte, complete bool, long int, err error) {
	b, err := l.r.ReadSlice('\n')
	switch {
	case err == nil:
		return b[:len(b)-1], true, 0, nil
	case err == io.EOF && len(b) == 0:
		return nil, false, 0, io.EOF
	case err == io.EOF:
		return b, false, 0, nil
	case err != bufio.ErrBufferFull:
		return nil, false, 0, err
	}
	l.buf = append(l.buf[:0], b...)
	n := len(b)
	for {
		b, err = l.r.ReadSlice('\n')
		n += len(b)
		if len(l.buf) <= l.max {
			l.buf = append(l.buf, b...)
		}
		switch {
		case err == nil && n-1 > l.max:
			return nil, true, n - 1, nil
		case err == nil:
			return l.buf[:len(l.buf)-1], true, 0, nil
		case err == io.EOF:
			return l.buf[:min(len(l.buf), l.max)], false, 0, nil
		case err != bufio.ErrBufferFull:
			return nil, false, 0, err
		}
	}
}
