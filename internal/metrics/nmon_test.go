package metrics

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
)

// readNmonString reads an nmon recording in UTC into samples by key.
func readNmonString(t testing.TB, text string) (map[model.SampleKey]float64, NmonInfo, error) {
	t.Helper()
	got := map[model.SampleKey]float64{}
	info, err := ReadNmon(strings.NewReader(text), "x.nmon", time.UTC, func(s *model.Sample) error {
		if model.NodeMetricIndex(s.Type) < 0 || s.Target != "" {
			t.Fatalf("sample %+v: not a node-wide canonical metric", s)
		}
		if _, dup := got[s.Key()]; dup {
			t.Fatalf("sample %+v delivered twice", s)
		}
		got[s.Key()] = s.Value
		return nil
	})
	return got, info, err
}

// nmonFixture reads testdata/nmon/NAME.
func nmonFixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/nmon/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// checkNmon compares samples with want (metric → value per snapshot time,
// aliases included), to 1e-9 relative, and that nothing else came.
func checkNmon(t *testing.T, got map[model.SampleKey]float64, host string, want map[string]map[string]float64) {
	t.Helper()
	n := 0
	for stamp, metrics := range want {
		ts, err := time.Parse(time.DateTime, stamp)
		if err != nil {
			t.Fatal(err)
		}
		for name, v := range metrics {
			n++
			k := model.SampleKey{Time: ts.UnixMilli(), Host: host, Type: name}
			g, ok := got[k]
			if !ok || math.Abs(g-v) > 1e-9*math.Max(1, math.Abs(v)) {
				t.Errorf("%s %s = %v (present %v), want %v", stamp, name, g, ok, v)
			}
		}
	}
	if len(got) != n {
		t.Errorf("%d samples, want %d", len(got), n)
		for k, v := range got {
			if want[time.UnixMilli(k.Time).UTC().Format(time.DateTime)][k.Type] == 0 && v != 0 {
				t.Logf("unexpected %s %s = %v", time.UnixMilli(k.Time).UTC().Format(time.DateTime), k.Type, v)
			}
		}
	}
}

// withAliases adds HybridTune's names for Ganesha's metrics.
func withAliases(m map[string]float64) map[string]float64 {
	for a, b := range map[string]string{"ioWaitRatio": "cpu_iowait_pct", "net_recv_bw": "net_rx_bytes_per_s",
		"net_send_bw": "net_tx_bytes_per_s", "disk_read_bw": "disk_read_bytes_per_s", "disk_write_bw": "disk_write_bytes_per_s"} {
		if v, ok := m[b]; ok {
			m[a] = v
		}
	}
	return m
}

// TestReadNmonLinux reads a hand-written nmon 16 recording of three 10 s
// snapshots, the third 25 s after the second (nmon overran), with values
// worked out by hand: disks sda, nvme0n1 and cciss/c0d0 summed, their
// partitions, dm-0 and md0 left out; lo left out of the network and the
// interface br-0a1b2c (dashes) kept; VM's deltas divided by 10 s, then by
// the 25 s the ZZZZ times span; no paging rates for the first snapshot;
// TOP, UARG (commas in the command) and BBBP lines and a mid-file
// AAA,steal skipped.
func TestReadNmonLinux(t *testing.T) {
	got, info, err := readNmonString(t, nmonFixture(t, "linux.nmon"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Host != "node07" || info.OS != "Linux" || info.Snapshots != 3 {
		t.Errorf("info %+v", info)
	}
	if strings.Join(info.Absent, ",") != "procs_total,load1,weighted_io" || len(info.Notes) != 1 ||
		!strings.Contains(info.Notes[0], "x.nmon: host node07: no procs_total, load1, weighted_io (nmon records none of them)") {
		t.Errorf("absent %v, notes %q", info.Absent, info.Notes)
	}
	checkNmon(t, got, "node07", map[string]map[string]float64{
		"2024-01-02 10:00:10": withAliases(map[string]float64{
			"cpu_user_pct": 20, "cpu_system_pct": 5, "cpu_iowait_pct": 1, "cpu_usage": 25,
			"mem_usage": 100 * (1 - (1000+3000+200)/8000.0), "procs_runnable": 3, "context_switches_per_s": 1500.5,
			"net_rx_bytes_per_s": (100 + 50) * 1024, "net_tx_bytes_per_s": (20 + 5) * 1024,
			"disk_read_bytes_per_s": (100 + 200 + 50) * 1024, "disk_write_bytes_per_s": (10 + 30.5 + 0.5) * 1024,
		}),
		"2024-01-02 10:00:20": withAliases(map[string]float64{
			"cpu_user_pct": 50, "cpu_system_pct": 10, "cpu_iowait_pct": 5.5, "cpu_usage": 100 - 34 - 5.5,
			"mem_usage": 50, "procs_runnable": 7, "context_switches_per_s": 25000,
			"pages_in_kb_per_s": 409.6, "pages_out_kb_per_s": 2048, "page_faults_per_s": 12345,
			"net_rx_bytes_per_s": 1024 * 1024, "net_tx_bytes_per_s": (512.5 + 1.5) * 1024,
			"disk_read_bytes_per_s": (1000 + 24) * 1024, "disk_write_bytes_per_s": (2048 + 2048) * 1024,
		}),
		"2024-01-02 10:00:45": withAliases(map[string]float64{
			"cpu_user_pct": 10, "cpu_system_pct": 2, "cpu_iowait_pct": 0, "cpu_usage": 12,
			"mem_usage": 12.5, "procs_runnable": 1, "context_switches_per_s": 300,
			"pages_in_kb_per_s": 100, "pages_out_kb_per_s": 0, "page_faults_per_s": 2000,
			"net_rx_bytes_per_s": 0, "net_tx_bytes_per_s": 0, "disk_read_bytes_per_s": 0, "disk_write_bytes_per_s": 1024,
		}),
	})
}

// TestReadNmonAIX reads a hand-written topas_nmon recording (AIX 7.2, over
// midnight into a new year): CPU_ALL without Steal%, memory from MEMNEW
// (100 − Free% − FScache%), paging from PAGE in 4 KB pages per second,
// PROC's Runnable (a run-queue average), lo0 left out, hdisks summed, and
// the AIX-only sections (MEMUSE, FILE, LPAR, DISKSERV, …) skipped.
func TestReadNmonAIX(t *testing.T) {
	got, info, err := readNmonString(t, nmonFixture(t, "aix.nmon"))
	if err != nil {
		t.Fatal(err)
	}
	if info.Host != "aixlpar1" || info.OS != "AIX" || info.Snapshots != 2 || strings.Join(info.Absent, ",") != "procs_total,load1,weighted_io" {
		t.Errorf("info %+v", info)
	}
	checkNmon(t, got, "aixlpar1", map[string]map[string]float64{
		"2023-12-31 23:59:59": withAliases(map[string]float64{
			"cpu_user_pct": 29.2, "cpu_system_pct": 4.8, "cpu_iowait_pct": 14, "cpu_usage": 100 - 52 - 14,
			"mem_usage": 100 - 43.2 - 4.3, "procs_runnable": 20.79, "context_switches_per_s": 24224,
			"page_faults_per_s": 19186.2, "pages_in_kb_per_s": 1700.5 * 4, "pages_out_kb_per_s": 673.6 * 4,
			"net_rx_bytes_per_s": 1569.1 * 1024, "net_tx_bytes_per_s": 21043.1 * 1024,
			"disk_read_bytes_per_s": (1136.4 + 447.6) * 1024, "disk_write_bytes_per_s": (2701 + 6.9) * 1024,
		}),
		"2024-01-01 00:00:59": withAliases(map[string]float64{
			"cpu_user_pct": 40.3, "cpu_system_pct": 2.5, "cpu_iowait_pct": 2.1, "cpu_usage": 100 - 55.1 - 2.1,
			"mem_usage": 53, "procs_runnable": 2.5, "context_switches_per_s": 5000,
			"page_faults_per_s": 100, "pages_in_kb_per_s": 0, "pages_out_kb_per_s": 100,
			"net_rx_bytes_per_s": 0, "net_tx_bytes_per_s": 1024, "disk_read_bytes_per_s": 0, "disk_write_bytes_per_s": 512 * 1024,
		}),
	})
}

// nmonMini is a small Linux recording to vary: two snapshots 5 s apart.
const nmonMini = `AAA,progname,nmon
AAA,host,h1
AAA,OS,Linux,6.1.0,#1 SMP,x86_64
AAA,interval,5
CPU_ALL,CPU Total h1,User%,Sys%,Wait%,Idle%,Steal%,Busy,CPUs
MEM,Memory MB h1,memtotal,hightotal,lowtotal,swaptotal,memfree,highfree,lowfree,swapfree,memshared,cached,active,bigfree,buffers,swapcached,inactive
PROC,Processes h1,Runnable,Blocked,pswitch,syscall,read,write,fork,exec,sem,msg
NET,Network I/O h1,lo-read-KB/s,eth0-read-KB/s,lo-write-KB/s,eth0-write-KB/s
DISKREAD,Disk Read KB/s h1,sda
DISKWRITE,Disk Write KB/s h1,sda
ZZZZ,T0001,12:00:00,15-MAR-2024
CPU_ALL,T0001,10.0,5.0,0.0,85.0,0.0,,4
MEM,T0001,1000.0,-0.0,-0.0,0.0,500.0,-0.0,-0.0,0.0,0.0,100.0,0.0,-1.0,0.0,0.0,0.0
VM,Paging and Virtual Memory,pgpgin,pgpgout,pgfault
VM,T0001,50,50,500
PROC,T0001,2,0,100.0,-1.0,-1.0,-1.0,0.0,-1.0,-1.0,-1.0
NET,T0001,1.0,2.0,1.0,4.0
DISKREAD,T0001,8.0
DISKWRITE,T0001,16.0
ZZZZ,T0002,12:00:05,15-MAR-2024
CPU_ALL,T0002,20.0,10.0,5.0,65.0,0.0,,4
MEM,T0002,1000.0,-0.0,-0.0,0.0,400.0,-0.0,-0.0,0.0,0.0,100.0,0.0,-1.0,0.0,0.0,0.0
VM,T0002,100,200,1000
PROC,T0002,4,0,200.0,-1.0,-1.0,-1.0,0.0,-1.0,-1.0,-1.0
NET,T0002,1.0,8.0,1.0,16.0
DISKREAD,T0002,32.0
DISKWRITE,T0002,64.0
`

// nmonAt is the Unix ms of 15-MAR-2024 12:00:SS UTC.
func nmonAt(sec int) int64 {
	return time.Date(2024, 3, 15, 12, 0, sec, 0, time.UTC).UnixMilli()
}

// TestReadNmonOddCases reads variations of nmonMini that real recordings
// have: missing sections, a CPU added mid-run, a truncated last line,
// CRLF line ends, more than 150 disks, nmon's zeroed CPU row, a counter
// reset, blank lines.
func TestReadNmonOddCases(t *testing.T) {
	key := func(sec int, metric string) model.SampleKey {
		return model.SampleKey{Time: nmonAt(sec), Host: "h1", Type: metric}
	}
	cases := []struct {
		name   string
		edit   func(string) string
		check  func(t *testing.T, got map[model.SampleKey]float64, info NmonInfo)
		absent string // default: what nmon never records
		notes  int    // default: 1, the absent metrics'
	}{
		{
			name: "as is",
			check: func(t *testing.T, got map[model.SampleKey]float64, info NmonInfo) {
				for k, v := range map[model.SampleKey]float64{
					key(5, "cpu_usage"): 30, key(5, "mem_usage"): 50, key(5, "pages_in_kb_per_s"): 20,
					key(5, "pages_out_kb_per_s"): 40, key(5, "page_faults_per_s"): 200, key(5, "net_rx_bytes_per_s"): 8192,
					key(5, "net_tx_bytes_per_s"): 16384, key(5, "disk_read_bw"): 32768, key(0, "disk_write_bw"): 16384,
				} {
					if got[k] != v {
						t.Errorf("%s at %d: %v, want %v", k.Type, k.Time, got[k], v)
					}
				}
				if _, ok := got[key(0, "page_faults_per_s")]; ok {
					t.Error("paging rates for the first snapshot, whose interval the file does not record")
				}
			},
		},
		{
			name: "missing sections",
			edit: func(s string) string { return dropLines(s, "NET,", "VM,") },
			check: func(t *testing.T, got map[model.SampleKey]float64, info NmonInfo) {
				if !strings.Contains(info.Notes[0], "no net_rx_bytes_per_s, net_tx_bytes_per_s, pages_in_kb_per_s, pages_out_kb_per_s, page_faults_per_s, net_send_bw, net_recv_bw either") {
					t.Errorf("note %q", info.Notes[0])
				}
				if got[key(5, "cpu_user_pct")] != 20 {
					t.Error("the other sections not read")
				}
			},
			absent: "procs_total,load1,net_rx_bytes_per_s,net_tx_bytes_per_s,pages_in_kb_per_s,pages_out_kb_per_s,page_faults_per_s,weighted_io,net_send_bw,net_recv_bw",
			notes:  1,
		},
		{
			name: "extra CPUs",
			edit: func(s string) string {
				s = strings.Replace(s, "CPU_ALL,CPU Total", "CPU001,CPU 1 h1,User%,Sys%,Wait%,Idle%,Steal%\nCPU_ALL,CPU Total", 1)
				return strings.Replace(s, "CPU_ALL,T0002", "CPU005,CPU 5 h1,User%,Sys%,Wait%,Idle%\nBBBR,0,Reconfig,action,old,new\nBBBR,001,T0002,cpuchg,4,5\nCPU001,T0002,1.0,1.0,1.0,97.0,0.0\nCPU005,T0002,9.0,9.0,9.0,73.0,0.0\nCPU_ALL,T0002", 1)
			},
			check: func(t *testing.T, got map[model.SampleKey]float64, info NmonInfo) {
				if got[key(5, "cpu_user_pct")] != 20 || got[key(5, "cpu_system_pct")] != 10 {
					t.Error("CPU_ALL not read after a CPU was added")
				}
			},
		},
		{
			name: "truncated last line",
			edit: func(s string) string { return strings.TrimSuffix(s, "4.0\n") },
			check: func(t *testing.T, got map[model.SampleKey]float64, info NmonInfo) {
				if _, ok := got[key(5, "disk_write_bytes_per_s")]; ok {
					t.Error("a value from the cut last line")
				}
				if got[key(5, "disk_read_bytes_per_s")] != 32768 || got[key(0, "disk_write_bytes_per_s")] != 16384 {
					t.Error("the complete lines before it not read")
				}
				if !strings.Contains(info.Notes[0], "x.nmon:27: last line incomplete") {
					t.Errorf("notes %q", info.Notes)
				}
			},
			notes: 2,
		},
		{
			name: "CRLF and blank lines",
			edit: func(s string) string {
				return strings.ReplaceAll(strings.ReplaceAll(s, "\n", "\r\n"), "ZZZZ", "\r\nZZZZ")
			},
			check: func(t *testing.T, got map[model.SampleKey]float64, info NmonInfo) {
				if got[key(5, "mem_usage")] != 50 || got[key(5, "page_faults_per_s")] != 200 {
					t.Error("CRLF lines not read as LF ones")
				}
			},
		},
		{
			name: "more than 150 disks",
			edit: func(s string) string {
				s = strings.Replace(s, "DISKWRITE,Disk Write KB/s h1,sda\n", "DISKWRITE,Disk Write KB/s h1,sda\nDISKREAD1,Disk Read KB/s h1,sdfa,sdfa1\nDISKWRITE1,Disk Write KB/s h1,sdfa,sdfa1\n", 1)
				s = strings.Replace(s, "DISKWRITE,T0001,16.0\n", "DISKWRITE,T0001,16.0\nDISKREAD1,T0001,1.0,1.0\nDISKWRITE1,T0001,2.0,2.0\n", 1)
				return strings.Replace(s, "DISKWRITE,T0002,64.0\n", "DISKWRITE,T0002,64.0\nDISKWRITE1,T0002,3.0,3.0\n", 1)
			},
			check: func(t *testing.T, got map[model.SampleKey]float64, info NmonInfo) {
				if got[key(0, "disk_read_bytes_per_s")] != 9*1024 || got[key(0, "disk_write_bytes_per_s")] != 18*1024 || got[key(5, "disk_write_bytes_per_s")] != 67*1024 {
					t.Error("the second group of disks not added")
				}
				if _, ok := got[key(5, "disk_read_bytes_per_s")]; ok {
					t.Error("a disk read total without DISKREAD1's disks")
				}
			},
		},
		{
			name: "zeroed CPU row and a counter reset",
			edit: func(s string) string {
				s = strings.Replace(s, "CPU_ALL,T0002,20.0,10.0,5.0,65.0,0.0", "CPU_ALL,T0002,0.0,0.0,0.0,0.0,0.0", 1)
				return strings.Replace(s, "VM,T0002,100,200,1000", "VM,T0002,-80000,200,1000", 1)
			},
			check: func(t *testing.T, got map[model.SampleKey]float64, info NmonInfo) {
				for _, m := range []string{"cpu_usage", "cpu_user_pct", "page_faults_per_s", "pages_in_kb_per_s"} {
					if _, ok := got[key(5, m)]; ok {
						t.Errorf("%s from a zeroed row or a negative delta", m)
					}
				}
				if !strings.Contains(strings.Join(info.Notes, "\n"), "1 CPU_ALL rows whose percentages do not add up to 100") ||
					!strings.Contains(strings.Join(info.Notes, "\n"), "1 VM rows with a negative delta") {
					t.Errorf("notes %q", info.Notes)
				}
			},
			absent: "procs_total,load1,pages_in_kb_per_s,pages_out_kb_per_s,page_faults_per_s,weighted_io",
			notes:  3,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			text := nmonMini
			if c.edit != nil {
				text = c.edit(text)
			}
			got, info, err := readNmonString(t, text)
			if err != nil {
				t.Fatal(err)
			}
			absent, notes := cmp.Or(c.absent, "procs_total,load1,weighted_io"), cmp.Or(c.notes, 1)
			if strings.Join(info.Absent, ",") != absent || len(info.Notes) != notes {
				t.Errorf("absent %v, notes %q", info.Absent, info.Notes)
			}
			c.check(t, got, info)
		})
	}
}

// dropLines removes the lines starting with any of prefixes.
func dropLines(s string, prefixes ...string) string {
	var out []string
	for _, l := range strings.SplitAfter(s, "\n") {
		keep := true
		for _, p := range prefixes {
			keep = keep && !strings.HasPrefix(l, p)
		}
		if keep {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// TestReadNmonErrors: input that is not an nmon recording, or that cannot
// be streamed, is an error naming the file and line; bad lines inside a
// recording are skipped, the rest delivered, and the error wraps
// ErrPartial, quoting the first bad lines.
func TestReadNmonErrors(t *testing.T) {
	fatal := []struct{ name, text, want string }{
		{"not nmon", "timestamp_ms,host,metric,value\n", `x.nmon:1: want an nmon recording (a first line AAA,progname,…), got "timestamp_ms,host,metric,value"`},
		{"sorted", "AAA,progname,nmon\nAAA,host,h1\nCPU_ALL,CPU Total h1,User%,Sys%,Wait%,Idle%\nCPU_ALL,T0001,1,1,1,97\nZZZZ,T0001,12:00:00,15-MAR-2024\n",
			"x.nmon:4: CPU_ALL,T0001 before any ZZZZ line: want nmon's own line order (a sorted nmon file cannot be streamed)"},
		{"no host", "AAA,progname,nmon\nZZZZ,T0001,12:00:00,15-MAR-2024\n", "x.nmon:2: want an AAA,host line before the first snapshot"},
		{"empty", "", "x.nmon: empty: want an nmon recording"},
	}
	for _, c := range fatal {
		_, _, err := readNmonString(t, c.text)
		if err == nil || err.Error() != c.want || errors.Is(err, ErrPartial) {
			t.Errorf("%s: error %v, want %q (not partial)", c.name, err, c.want)
		}
	}
	partial := []struct {
		name, old, new, want string
		lost                 int // samples fewer than the intact file's
	}{
		{"values unlike the header", "NET,T0002,1.0,8.0,1.0,16.0", "NET,T0002,1.0,8.0,1.0", "1 line skipped: x.nmon:25: NET: want 4 values, one per header column, got 3", 4},
		{"not a number", "MEM,T0002,1000.0", "MEM,T0002,1O00.0", `1 line skipped: x.nmon:22: MEM: column 3: want a number, got "1O00.0"`, 1},
		{"another snapshot's line", "PROC,T0002,4", "PROC,T0003,4", "1 line skipped: x.nmon:24: PROC,T0003: want the current snapshot T0002", 2},
		{"data before its header", "DISKREAD,Disk Read KB/s h1,sda\n", "", "2 lines skipped: x.nmon:17: DISKREAD: data before the section's header line; x.nmon:25: DISKREAD", 4},
		{"a section twice", "DISKREAD,T0002,32.0\n", "DISKREAD,T0002,32.0\nDISKREAD,T0002,32.0\n", "1 line skipped: x.nmon:27: DISKREAD: a second line for snapshot T0002", 0},
		{"bad date", "ZZZZ,T0002,12:00:05,15-MAR-2024", "ZZZZ,T0002,12:00:05,31-FEB-2024", `1 line skipped: x.nmon:20: ZZZZ,T0002: want hh:mm:ss,DD-MON-YYYY, got "12:00:05","31-FEB-2024": snapshot skipped`, 19},
		{"header without the columns", "CPU_ALL,CPU Total h1,User%,Sys%,Wait%,Idle%,Steal%,Busy,CPUs", "CPU_ALL,CPU Total h1,Usr%,Sys%,Wait%,Idle%,Steal%,Busy,CPUs",
			"1 line skipped: x.nmon:5: CPU_ALL header: want the columns User%, Sys%, Wait%, Idle%", 10},
		{"an over-long line", "ZZZZ,T0002", "BBBP,999," + strings.Repeat("x", nmonMaxLine) + "\nZZZZ,T0002", "1 line skipped: x.nmon:20: line of 1048585 bytes, over the 1048576 limit: skipped", 0},
	}
	intact, _, err := readNmonString(t, nmonMini)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range partial {
		got, _, err := readNmonString(t, strings.Replace(nmonMini, c.old, c.new, 1))
		if !errors.Is(err, ErrPartial) || !strings.HasPrefix(err.Error(), "x.nmon: read in part: "+c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line wrapping ErrPartial ending %q", c.name, err, c.want)
		}
		if len(intact)-len(got) != c.lost {
			t.Errorf("%s: %d samples, want %d of the intact file's %d", c.name, len(got), len(intact)-c.lost, len(intact))
		}
	}
	// After an unreadable ZZZZ line, VM's deltas span one interval (5 s),
	// not the 10 s since the last readable snapshot.
	third := "ZZZZ,T0003,12:00:10,15-MAR-2024\nVM,T0003,100,100,100\n"
	got, _, err := readNmonString(t, strings.Replace(nmonMini, "12:00:05,15-MAR", "12:00:05,15-MRZ", 1)+third)
	if !errors.Is(err, ErrPartial) || got[model.SampleKey{Time: nmonAt(10), Host: "h1", Type: "page_faults_per_s"}] != 20 {
		t.Errorf("after a bad ZZZZ line: page faults %v, error %v; want 20/s", got[model.SampleKey{Time: nmonAt(10), Host: "h1", Type: "page_faults_per_s"}], err)
	}
	_, _, err = readNmonString(t, "AAA,progname,nmon\nAAA,host,h1\n")
	if !errors.Is(err, ErrPartial) || err.Error() != "x.nmon: read in part: no snapshot (ZZZZ line) yet: nmon may still be starting" {
		t.Errorf("no snapshot: %v", err)
	}
	stop := errors.New("stop")
	_, err = ReadNmon(strings.NewReader(nmonMini), "x.nmon", time.UTC, func(*model.Sample) error { return stop })
	if err != stop {
		t.Errorf("fn's error came back as %v", err)
	}
}

// FuzzReadNmon: nothing panics; every sample is a node-wide canonical
// metric of the file's host with a finite value; every error is one line
// naming the file; and a read that succeeds gives the same samples with
// CRLF line ends.
func FuzzReadNmon(f *testing.F) {
	for _, name := range []string{"linux.nmon", "aix.nmon"} {
		b, err := os.ReadFile("testdata/nmon/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(nmonMini))
	f.Add([]byte("AAA,host,h\nNET,n,a-read-KB/s,lo-write-KB/s\nZZZZ,T1,00:00:00,01-JAN-2000\nNET,T1,1,2\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(in []byte) ([]model.Sample, NmonInfo, error) {
			var out []model.Sample
			info, err := ReadNmon(bytes.NewReader(in), "f.nmon", time.UTC, func(s *model.Sample) error {
				if model.NodeMetricIndex(s.Type) < 0 || s.Target != "" || math.IsNaN(s.Value) || math.IsInf(s.Value, 0) || s.Host == "" {
					t.Fatalf("bad sample %+v", s)
				}
				out = append(out, *s)
				return nil
			})
			return out, info, err
		}
		got, info, err := read(data)
		for _, s := range got {
			if s.Host != info.Host {
				t.Fatalf("sample of host %q in a file of %q", s.Host, info.Host)
			}
		}
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "f.nmon") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: want one line naming the file", msg)
			}
			return
		}
		if bytes.Contains(data, []byte{'\r'}) || !bytes.HasSuffix(data, []byte{'\n'}) {
			return
		}
		crlf, _, err := read(bytes.ReplaceAll(data, []byte{'\n'}, []byte("\r\n")))
		if err != nil || len(crlf) != len(got) {
			t.Fatalf("CRLF: %d samples, error %v; LF: %d samples", len(crlf), err, len(got))
		}
		for i := range got {
			if crlf[i] != got[i] && !(math.IsNaN(crlf[i].Value) && math.IsNaN(got[i].Value)) {
				t.Fatalf("CRLF sample %+v, LF %+v", crlf[i], got[i])
			}
		}
	})
}

// TestReadSourceNmon reads a folder of nmon recordings through ReadSource:
// one gzipped under a .gz name, one under a name that says nothing (both
// sniffed by content), one with a bad line, beside a metric CSV. Every
// file's samples come; the bad file's error, wrapping ErrPartial and
// naming its line, comes after them; each nmon file's absent metrics go
// to Notes.
func TestReadSourceNmon(t *testing.T) {
	dir := t.TempDir()
	writeCodec(t, dir+"/node07_240102_1000.nmon.gz", codec.Gzip, []byte(nmonFixture(t, "linux.nmon")))
	if err := os.WriteFile(dir+"/aixlpar1.data", []byte(nmonFixture(t, "aix.nmon")), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(nmonMini, "PROC,T0002,4", "PROC,T0003,4", 1)
	if err := os.WriteFile(dir+"/h1.nmon", []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/m.csv", []byte("1000,csvhost,load1,0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hosts := map[string]int{}
	var notes []string
	opt := SourceOptions{Notes: func(m string) { notes = append(notes, m) }}
	err := ReadSourceWith(context.Background(), dir, time.Time{}, time.Time{}, opt, func(s *model.Sample) error {
		hosts[s.Host]++
		return nil
	})
	if !errors.Is(err, ErrPartial) || err.Error() != dir+"/h1.nmon: read in part: 1 line skipped: "+dir+"/h1.nmon:24: PROC,T0003: want the current snapshot T0002" {
		t.Fatalf("error %v", err)
	}
	// linux.nmon: 16 + 19 + 19 samples (no paging rates in the first); aix.nmon: 2 × 19; nmonMini without T0002's PROC: 16 + 17.
	if hosts["node07"] != 54 || hosts["aixlpar1"] != 38 || hosts["h1"] != 33 || hosts["csvhost"] != 1 {
		t.Errorf("samples per host %v", hosts)
	}
	if len(notes) != 3 || !strings.Contains(strings.Join(notes, "\n"), "aixlpar1.data: host aixlpar1: no procs_total, load1, weighted_io (nmon records none of them)") {
		t.Errorf("notes %q", notes)
	}
}
