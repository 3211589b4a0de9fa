package metrics

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// sadcPath is where Debian's sysstat package installs sadc.
const sadcPath = "/usr/lib/sysstat/sadc"

// lookSysstat finds sadc and sadf, skipping the test when sysstat is not
// installed (failing under CI, which installs it: .ci/packages-sysstat-src.txt).
func lookSysstat(t *testing.T) (string, error) {
	t.Helper()
	sadf, err := exec.LookPath("sadf")
	if err == nil {
		_, err = os.Stat(sadcPath)
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("sysstat (sadc, sadf) not installed, but CI=true: %v", err)
		}
		t.Skipf("sysstat not installed: %v", err)
	}
	return sadf, err
}

// runSadc records count samples one second apart with the real sadc into
// a fresh data file and returns its path.
func runSadc(t *testing.T, count int) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "sa.bin")
	out, err := exec.Command(sadcPath, "-S", "ALL", "1", strconv.Itoa(count), file).CombinedOutput()
	if err != nil {
		t.Fatalf("sadc: %v: %s", err, out)
	}
	return file
}

// sadfDatabase reads `sadf -d` (semicolon-separated, one header line per
// activity) of file into the canonical metrics by this test's own code:
// the same numbers rendered by another of sadf's writers.
func sadfDatabase(t *testing.T, sadf, file string) map[model.SampleKey]float64 {
	t.Helper()
	out, err := exec.Command(sadf, append([]string{"-d", file, "--"}, SadfActivities...)...).Output()
	if err != nil {
		t.Fatalf("sadf -d: %v", err)
	}
	type rowKey struct {
		host string
		ms   int64
	}
	cols := map[rowKey]map[string]float64{}
	var header []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "# ") {
			header = strings.Split(strings.TrimPrefix(line, "# "), ";")
			continue
		}
		f := strings.Split(line, ";")
		if len(f) != len(header) || len(f) < 4 {
			continue
		}
		ts, err := time.Parse("2006-01-02 15:04:05 MST", f[2])
		if err != nil {
			t.Fatalf("sadf -d timestamp %q: %v", f[2], err)
		}
		k := rowKey{f[0], ts.UnixMilli()}
		if cols[k] == nil {
			cols[k] = map[string]float64{}
		}
		c := cols[k]
		dev := ""
		for i := 3; i < len(f); i++ {
			name := header[i]
			if name == "CPU" || name == "DEV" || name == "IFACE" {
				dev = f[i]
				continue
			}
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				t.Fatalf("sadf -d %s=%q: %v", name, f[i], err)
			}
			switch {
			case dev == "lo", strings.HasPrefix(dev, "dm-"), strings.HasPrefix(dev, "md"):
			case header[3] == "DEV" || header[3] == "IFACE":
				c[name] += v // per device: summed
			case header[3] == "CPU" && dev != "-1":
			default:
				c[name] = v
			}
		}
	}
	want := map[model.SampleKey]float64{}
	for k, c := range cols {
		total := c["kbmemfree"] + c["kbmemused"] + c["kbbuffers"] + c["kbcached"] + c["kbslab"]
		for name, v := range map[string]float64{
			"cpu_user_pct": c["%usr"] + c["%nice"], "cpu_system_pct": c["%sys"] + c["%irq"] + c["%soft"],
			"cpu_iowait_pct": c["%iowait"], "cpu_usage": 100 - c["%idle"] - c["%iowait"],
			"context_switches_per_s": c["cswch/s"], "procs_runnable": c["runq-sz"], "procs_total": c["plist-sz"],
			"load1": c["ldavg-1"], "pages_in_kb_per_s": c["pgpgin/s"], "pages_out_kb_per_s": c["pgpgout/s"],
			"page_faults_per_s": c["fault/s"], "mem_usage": 100 * (1 - c["kbavail"]/total),
			"disk_read_bytes_per_s": c["rkB/s"] * 1024, "disk_write_bytes_per_s": c["wkB/s"] * 1024,
			"weighted_io": c["aqu-sz"] * 1000, "net_rx_bytes_per_s": c["rxkB/s"] * 1024, "net_tx_bytes_per_s": c["txkB/s"] * 1024,
		} {
			want[model.SampleKey{Time: k.ms, Host: k.host, Type: name}] = v
		}
	}
	return want
}

// TestReadSadcAgainstSadfDatabase records three seconds with the real sadc,
// reads the file through ReadSadc (sadf -j) and checks every metric against
// sadf -d's rendering of the same file, read by independent code, against
// sadf -j -- -A's (every activity) read through ReadSource, and the memory
// and task counts against /proc read right after.
func TestReadSadcAgainstSadfDatabase(t *testing.T) {
	sadf, _ := lookSysstat(t)
	file := runSadc(t, 3)
	got := collect(t, func(fn func(*model.Sample) error) error { return ReadSadc(context.Background(), file, fn) })
	want := sadfDatabase(t, sadf, file)
	if len(want) == 0 {
		t.Fatal("sadf -d gave nothing")
	}
	host, _ := os.Hostname()
	for k, v := range want {
		if !strings.HasPrefix(host, k.Host) {
			t.Errorf("host %q, want this machine's %q", k.Host, host)
		}
		g, ok := got[k]
		if !ok || math.Abs(g-v) > 1e-6*math.Max(1, math.Abs(v)) {
			t.Errorf("%s at %d = %v (present %v), sadf -d says %v", k.Type, k.Time, g, ok, v)
		}
	}
	// sadf -j -- -A (every activity, interrupts, PSI, ...) read back from a
	// file through ReadSource gives the same samples.
	all, err := exec.Command(sadf, "-j", file, "--", "-A").Output()
	if err != nil {
		t.Fatalf("sadf -j -- -A: %v", err)
	}
	allPath := filepath.Join(t.TempDir(), "sa.json")
	if err := os.WriteFile(allPath, all, 0o644); err != nil {
		t.Fatal(err)
	}
	fromAll := collect(t, func(fn func(*model.Sample) error) error {
		return ReadSource(context.Background(), allPath, time.Time{}, time.Time{}, fn)
	})
	if len(fromAll) != len(got) {
		t.Errorf("sadf -j -- -A: %d samples, ReadSadc %d", len(fromAll), len(got))
	}
	for k, v := range got {
		if fromAll[k] != v {
			t.Errorf("%s at %d: %v from sadf -j -- -A, %v from ReadSadc", k.Type, k.Time, fromAll[k], v)
		}
	}
	if records := len(want) / 17; len(got) != records*len(model.NodeMetricNames) { // 17 + the 5 HybridTune aliases
		t.Errorf("%d samples, want %d", len(got), records*len(model.NodeMetricNames))
	}
	// Against /proc now: memory use within 3 points, tasks within 25%.
	var last int64
	for k := range got {
		last = max(last, k.Time)
	}
	mem, threads := procMemUsage(t), procThreads(t)
	for k, v := range got {
		if k.Time != last {
			continue
		}
		switch k.Type {
		case "mem_usage":
			if math.Abs(v-mem) > 3 {
				t.Errorf("mem_usage %v, /proc/meminfo says %v", v, mem)
			}
		case "procs_total":
			if math.Abs(v-threads) > 0.25*threads {
				t.Errorf("procs_total %v, /proc/loadavg says %v tasks", v, threads)
			}
		}
	}
}

// procMemUsage is 100 × (1 − MemAvailable/MemTotal) from /proc/meminfo.
func procMemUsage(t *testing.T) float64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		t.Fatal(err)
	}
	var total, avail float64
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "MemTotal:" {
			total, _ = strconv.ParseFloat(f[1], 64)
		} else if len(f) >= 2 && f[0] == "MemAvailable:" {
			avail, _ = strconv.ParseFloat(f[1], 64)
		}
	}
	return 100 * (1 - avail/total)
}

// procThreads is the kernel's task count, the denominator of the fourth
// field of /proc/loadavg (what sar's plist-sz reports).
func procThreads(t *testing.T) float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b))
	_, n, _ := strings.Cut(f[3], "/")
	v, _ := strconv.ParseFloat(n, 64)
	return v
}
