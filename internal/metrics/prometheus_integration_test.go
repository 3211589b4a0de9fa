package metrics

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// procSnap is what the kernel says at one instant, read from /proc the way
// node_exporter reads it, but by this test's own code.
type procSnap struct {
	at                             time.Time          // when the reading started
	cpu                            map[string]float64 // jiffies by mode, all CPUs
	ctxt, pgfault, pgpgin, pgpgout float64
	running                        float64 // procs_running
	diskRead, diskWrite, weighted  float64 // bytes, bytes, ms
	netRx, netTx                   float64
	load1, memUsage                float64
	memUsedNoCache                 float64 // 100 × (1 − (MemFree + Buffers + Cached)/MemTotal)
	threads                        float64
}

// nodeExporterDiskExclude is node_exporter 1.5's default
// --collector.diskstats.device-exclude, plus the devices promDevices leaves out.
var nodeExporterDiskExclude = regexp.MustCompile(`^(ram|loop|fd|(h|s|v|xv)d[a-z]|nvme\d+n\d+p)\d+$|^dm-|^md`)

func readProc(t *testing.T) procSnap {
	t.Helper()
	s := procSnap{at: time.Now(), cpu: map[string]float64{}}
	lines := func(path string, fn func(f []string)) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fn(strings.Fields(sc.Text()))
		}
	}
	num := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	lines("/proc/stat", func(f []string) {
		switch {
		case f[0] == "cpu":
			for i, m := range []string{"user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"} {
				s.cpu[m] = num(f[i+1])
			}
		case f[0] == "ctxt":
			s.ctxt = num(f[1])
		case f[0] == "procs_running":
			s.running = num(f[1])
		}
	})
	lines("/proc/vmstat", func(f []string) {
		switch f[0] {
		case "pgfault":
			s.pgfault = num(f[1])
		case "pgpgin":
			s.pgpgin = num(f[1])
		case "pgpgout":
			s.pgpgout = num(f[1])
		}
	})
	lines("/proc/diskstats", func(f []string) {
		if len(f) < 14 || nodeExporterDiskExclude.MatchString(f[2]) {
			return
		}
		s.diskRead += num(f[5]) * 512
		s.diskWrite += num(f[9]) * 512
		s.weighted += num(f[13])
	})
	lines("/proc/net/dev", func(f []string) {
		if len(f) < 10 || !strings.HasSuffix(f[0], ":") || f[0] == "lo:" {
			return
		}
		s.netRx += num(f[1])
		s.netTx += num(f[9])
	})
	var total, avail, freeCache float64
	lines("/proc/meminfo", func(f []string) {
		switch f[0] {
		case "MemTotal:":
			total = num(f[1])
		case "MemAvailable:":
			avail = num(f[1])
		case "MemFree:", "Buffers:", "Cached:":
			freeCache += num(f[1])
		}
	})
	s.memUsage = 100 * (1 - avail/total)
	s.memUsedNoCache = 100 * (1 - freeCache/total)
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		t.Fatal(err)
	}
	s.load1 = num(strings.Fields(string(b))[0])
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err == nil {
			tasks, _ := os.ReadDir("/proc/" + d.Name() + "/task")
			s.threads += float64(len(tasks))
		}
	}
	return s
}

func (s procSnap) cpuTotal() float64 {
	var n float64
	for _, v := range s.cpu {
		n += v
	}
	return n
}

// scrapePhase returns the offset within the second of node_exporter's
// scrapes, from the timestamp of the last node_load1 sample.
func scrapePhase(t *testing.T, base string) time.Duration {
	t.Helper()
	res, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape("timestamp(node_load1)"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var ans struct {
		Data struct{ Result []struct{ Value [2]any } }
	}
	if err := json.NewDecoder(res.Body).Decode(&ans); err != nil || len(ans.Data.Result) == 0 {
		t.Fatalf("timestamp(node_load1): %v %+v", err, ans)
	}
	sec, _ := strconv.ParseFloat(ans.Data.Result[0].Value[1].(string), 64)
	return time.Duration(int64(math.Round(sec*1000))%1000) * time.Millisecond
}

// maxLate is how long after a scrape instant a test may read /proc (or
// start sadc) and still compare with that scrape; a later read is retried.
const maxLate = 150 * time.Millisecond

// nextScrape returns the next scrape instant at least 100 ms away.
func nextScrape(phase time.Duration) time.Time {
	t0 := time.Now().Truncate(time.Second).Add(phase)
	for time.Until(t0) < 100*time.Millisecond {
		t0 = t0.Add(time.Second)
	}
	return t0
}

// TestPrometheusAgainstProc reads the last minute from a real Prometheus
// scraping a real node_exporter every second (.ci/services/prometheus.sh)
// and checks the values' ranges and identities; then it reads /proc itself
// at two scrape instants D apart and checks that every metric, queried over
// exactly that window, agrees with what the kernel counted.
func TestPrometheusAgainstProc(t *testing.T) {
	base := sharedtest.Service(t, "PROMETHEUS_URL")
	ctx := context.Background()
	p := &PromSource{URL: base, Scrape: time.Second}

	// The last minute: every metric, 1 s apart, within its range.
	now := time.Now()
	type key struct {
		name string
		ms   int64
	}
	vals := map[key]float64{}
	count := map[string]int{}
	err := p.Read(ctx, now.Add(-time.Minute), now, func(s *model.Sample) error {
		if s.Host != "127.0.0.1" {
			t.Fatalf("host %q, want 127.0.0.1 (instance 127.0.0.1:9100)", s.Host)
		}
		if (s.Time-now.Add(-time.Minute).UnixMilli())%1000 != 0 {
			t.Fatalf("%s at %d: not on the 1 s grid", s.Type, s.Time)
		}
		vals[key{s.Type, s.Time}] = s.Value
		count[s.Type]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range model.NodeMetricNames {
		if count[name] < 3 {
			t.Errorf("%s: %d samples in the last minute, want at least 3", name, count[name])
		}
	}
	for k, v := range vals {
		unit := model.NodeMetricUnits[model.NodeMetricIndex(k.name)]
		if v < 0 || unit == "%" && v > 100+1e-9 {
			t.Errorf("%s at %d = %v: out of range", k.name, k.ms, v)
		}
		alias := map[string]string{"ioWaitRatio": "cpu_iowait_pct", "disk_read_bw": "disk_read_bytes_per_s",
			"disk_write_bw": "disk_write_bytes_per_s", "net_send_bw": "net_tx_bytes_per_s", "net_recv_bw": "net_rx_bytes_per_s"}
		if a, ok := alias[k.name]; ok && vals[key{a, k.ms}] != v {
			t.Errorf("%s = %v but %s = %v at %d", k.name, v, a, vals[key{a, k.ms}], k.ms)
		}
		// usage = 100 - idle - iowait covers user + system, but each mode's
		// rate() is extrapolated over its own window and per-CPU idle and
		// iowait counters may step back (a kernel quirk), so the parts can
		// exceed the whole by a little: allow one percentage point.
		if k.name == "cpu_usage" {
			if u, s := vals[key{"cpu_user_pct", k.ms}], vals[key{"cpu_system_pct", k.ms}]; u+s > v+1 {
				t.Errorf("at %d: user %v + system %v > usage %v", k.ms, u, s, v)
			}
		}
	}

	// The same settled 40 s in requests of 7 points: the real server's
	// answers to split requests join up to the single request's.
	whole, split := map[key]float64{}, map[key]float64{}
	from, to := now.Add(-50*time.Second), now.Add(-10*time.Second)
	for _, c := range []struct {
		max int
		m   map[key]float64
	}{{0, whole}, {7, split}} {
		r := &PromSource{URL: base, Scrape: time.Second, MaxPoints: c.max}
		if err := r.Read(ctx, from, to, func(s *model.Sample) error { c.m[key{s.Type, s.Time}] = s.Value; return nil }); err != nil {
			t.Fatal(err)
		}
	}
	if len(whole) == 0 || len(whole) != len(split) {
		t.Errorf("%d samples in one request per metric, %d in requests of 7 points", len(whole), len(split))
	}
	for k, v := range whole {
		if w, ok := split[k]; !ok || w != v {
			t.Errorf("%s at %d: %v in one request, %v (present %v) split", k.name, k.ms, v, w, ok)
		}
	}

	// /proc at two scrape instants D apart against one evaluation over
	// exactly that window (rate()'s extrapolation cancels: see docs/SOURCES.md).
	const D = 4 * time.Second
	phase := scrapePhase(t, base)
	var a, b, bLater procSnap
	var t0 time.Time
	for try := 1; ; try++ {
		t0 = nextScrape(phase)
		time.Sleep(time.Until(t0))
		a = readProc(t)
		lateA := time.Since(t0)
		time.Sleep(time.Until(t0.Add(D)))
		b = readProc(t)
		lateB := time.Since(t0.Add(D))
		bLater = readProc(t)
		if lateA < maxLate && lateB < maxLate || try == 3 {
			break
		}
		t.Logf("try %d: /proc read %v and %v after the scrape instants (machine busy): again", try, lateA, lateB)
	}
	time.Sleep(1500 * time.Millisecond) // let the scrape at t0+D land
	at := t0.Add(D + 300*time.Millisecond)
	q := &PromSource{URL: base, Scrape: time.Second, Window: D + 500*time.Millisecond}
	got := map[string]float64{}
	if err := q.Read(ctx, at, at, func(s *model.Sample) error { got[s.Type] = s.Value; return nil }); err != nil {
		t.Fatal(err)
	}
	secs := D.Seconds()
	jif := b.cpuTotal() - a.cpuTotal()
	pct := func(modes ...string) float64 {
		var n float64
		for _, m := range modes {
			n += b.cpu[m] - a.cpu[m]
		}
		return 100 * n / jif
	}
	rate := func(x, y float64) float64 { return (y - x) / secs }
	for _, c := range []struct {
		name      string
		want, tol float64
	}{
		{"cpu_user_pct", pct("user", "nice"), 4},
		{"cpu_system_pct", pct("system", "irq", "softirq"), 4},
		{"cpu_iowait_pct", pct("iowait"), 4},
		{"cpu_usage", 100 - pct("idle", "iowait"), 4},
		{"context_switches_per_s", rate(a.ctxt, b.ctxt), 0.1*rate(a.ctxt, b.ctxt) + 50},
		{"page_faults_per_s", rate(a.pgfault, b.pgfault), 0.1*rate(a.pgfault, b.pgfault) + 200},
		{"pages_in_kb_per_s", rate(a.pgpgin, b.pgpgin), 0.1*rate(a.pgpgin, b.pgpgin) + 64},
		{"pages_out_kb_per_s", rate(a.pgpgout, b.pgpgout), 0.1*rate(a.pgpgout, b.pgpgout) + 64},
		{"disk_read_bytes_per_s", rate(a.diskRead, b.diskRead), 0.1*rate(a.diskRead, b.diskRead) + 64<<10},
		{"disk_write_bytes_per_s", rate(a.diskWrite, b.diskWrite), 0.1*rate(a.diskWrite, b.diskWrite) + 64<<10},
		{"weighted_io", rate(a.weighted, b.weighted), 0.1*rate(a.weighted, b.weighted) + 20},
		{"net_rx_bytes_per_s", rate(a.netRx, b.netRx), 0.1*rate(a.netRx, b.netRx) + 1024},
		{"net_tx_bytes_per_s", rate(a.netTx, b.netTx), 0.1*rate(a.netTx, b.netTx) + 1024},
		{"mem_usage", b.memUsage, 1},
		{"procs_total", b.threads, 0.1*b.threads + 10},
	} {
		v, ok := got[c.name]
		if !ok || math.Abs(v-c.want) > c.tol {
			t.Errorf("%s = %v (present %v), /proc says %v ± %v over the same %v", c.name, v, ok, c.want, c.tol, D)
		} else {
			t.Logf("%s = %.4g, /proc %.4g", c.name, v, c.want)
		}
	}
	if l := got["load1"]; math.Abs(l-b.load1) > 0.011 && math.Abs(l-bLater.load1) > 0.011 {
		t.Errorf("load1 = %v, /proc/loadavg says %v then %v", l, b.load1, bLater.load1)
	}
	if r := got["procs_runnable"]; r < 1 || r > b.threads+10 {
		t.Errorf("procs_runnable = %v, want between 1 and the %v threads", r, b.threads)
	}
	t.Logf("prometheus vs /proc over %v from %s: %d metrics", D, t0.Format(time.RFC3339Nano), len(got))
}

// burstyIO are the disk and paging rates TestSysstatAgreesWithPrometheus
// does not compare (see there).
var burstyIO = map[string]bool{"disk_read_bytes_per_s": true, "disk_write_bytes_per_s": true, "disk_read_bw": true,
	"disk_write_bw": true, "pages_in_kb_per_s": true, "pages_out_kb_per_s": true, "weighted_io": true}

// TestSysstatAgreesWithPrometheus checks that the two mappings measure the
// same thing: sadc, started at a scrape instant, records one 4 s interval
// while Prometheus scrapes node_exporter every second, and every steady
// metric of sadc's record (all but the bursty disk and paging rates)
// agrees with Prometheus evaluated over exactly that window.
func TestSysstatAgreesWithPrometheus(t *testing.T) {
	base := sharedtest.Service(t, "PROMETHEUS_URL")
	lookSysstat(t)
	const D = 4 * time.Second
	phase := scrapePhase(t, base)
	var t0 time.Time
	var file string
	for try := 1; ; try++ {
		t0 = nextScrape(phase)
		file = filepath.Join(t.TempDir(), "sa.bin")
		time.Sleep(time.Until(t0))
		late := time.Since(t0)
		if out, err := exec.Command(sadcPath, "-S", "DISK", strconv.Itoa(int(D.Seconds())), "2", file).CombinedOutput(); err != nil {
			t.Fatalf("sadc: %v: %s", err, out)
		}
		took := time.Since(t0) - late
		if late < maxLate && took < D+maxLate || try == 3 {
			break
		}
		t.Logf("try %d: sadc started %v late and took %v (machine busy): again", try, late, took)
	}
	sar := map[string]float64{}
	if err := ReadSadc(context.Background(), file, func(s *model.Sample) error { sar[s.Type] = s.Value; return nil }); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(t0.Add(D + 1500*time.Millisecond)))
	at := t0.Add(D + 300*time.Millisecond)
	q := &PromSource{URL: base, Scrape: time.Second, Window: D + 500*time.Millisecond}
	prom := map[string]float64{}
	if err := q.Read(context.Background(), at, at, func(s *model.Sample) error { prom[s.Type] = s.Value; return nil }); err != nil {
		t.Fatal(err)
	}
	for _, name := range model.NodeMetricNames {
		s, okS := sar[name]
		p, okP := prom[name]
		if !okS || !okP {
			t.Errorf("%s: sysstat has it %v, Prometheus %v", name, okS, okP)
			continue
		}
		var tol float64
		switch model.NodeMetricUnits[model.NodeMetricIndex(name)] {
		case "%":
			tol = 4
		case "count":
			tol = 0.1*s + 10
		case "":
			tol = 0.1*s + 0.1 // load1 may take one 5 s kernel update between the two reads
		default:
			tol = 0.1*s + 20 // rates; network and disk may idle
		}
		if name == "procs_runnable" {
			continue // an instant count, read a few ms apart
		}
		if burstyIO[name] {
			// Disk and paging bytes come in bursts (readahead, a build's
			// writes): one landing in the few ms, or after a late start the
			// second, by which the two windows differ moves a 4 s average by
			// 100+ KB/s (CI: 0 vs 135 KB/s). TestPrometheusAgainstProc checks
			// these against /proc over one window, exactly.
			if s < 0 || p < 0 {
				t.Errorf("%s: sysstat %v, Prometheus %v: negative", name, s, p)
			}
			t.Logf("%s: sysstat %.4g, Prometheus %.4g (bursty, not compared)", name, s, p)
			continue
		}
		if math.Abs(s-p) > tol {
			t.Errorf("%s: sysstat %v, Prometheus %v (± %v)", name, s, p, tol)
		} else {
			t.Logf("%s: sysstat %.4g, Prometheus %.4g", name, s, p)
		}
	}
}
