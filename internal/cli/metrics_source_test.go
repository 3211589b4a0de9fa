package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/sim"
	"github.com/clusterlens/clusterlens/internal/store/clickhouse"
	"github.com/clusterlens/clusterlens/internal/store/open"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// TestAnalyzeMetrics runs analyze --metrics on a simulator output: the
// folder (metrics.csv.zst), the same samples as a plain CSV in another
// folder and in a SQLite store (the same analysis each time), named by IP
// address and matched through --host-alias, with every clock 8 s ahead
// and --align-clocks, bad sources and a bad tolerance.
func TestAnalyzeMetrics(t *testing.T) {
	d := newMetricsDemo(t)
	dir, res, logs := d.dir, d.res, d.logs
	js := func(args ...string) string { t.Helper(); return d.json(t, args...) }
	code, out, errs := run(t, append([]string{"analyze", "--metrics", dir}, logs...)...)
	if code != ExitOK || strings.Count(out, "Node metrics (HybridTune") != len(res.Truth.Apps) {
		t.Fatalf("exit %d, %d metrics sections for %d applications: %s", code, strings.Count(out, "Node metrics (HybridTune"), len(res.Truth.Apps), errs)
	}
	var doc struct {
		Applications []struct {
			Metrics *struct {
				SkewMs int64
				Hosts  []struct{ Host, How string }
				Stages []struct{ Profile struct{ Class string } }
			}
		}
	}
	withMetrics := d.withMetrics
	if err := json.Unmarshal([]byte(withMetrics), &doc); err != nil {
		t.Fatal(err)
	}
	for i, a := range doc.Applications {
		if a.Metrics == nil || a.Metrics.SkewMs != 1500 || len(a.Metrics.Hosts) == 0 || len(a.Metrics.Stages) == 0 || a.Metrics.Stages[0].Profile.Class == "" {
			t.Errorf("application %d: metrics %+v", i, a.Metrics)
		}
	}
	if strings.Contains(js(), `"metrics"`) {
		t.Error("analyze without --metrics has a metrics section")
	}

	// The same samples as plain CSV in a folder of their own.
	csvDir := t.TempDir()
	plain := d.plain
	if err := os.WriteFile(filepath.Join(csvDir, "nodes.csv"), plain, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := js("--metrics", csvDir, "--clock-skew", "1500ms"); got != withMetrics {
		t.Error("plain CSV folder and metrics.csv.zst give different analyses")
	}

	// Samples named by IP address, matched through --host-alias.
	ipDir := t.TempDir()
	var aliases []string
	renamed := string(plain)
	for i, n := range res.Truth.Nodes {
		ip := fmt.Sprintf("10.0.0.%d", i+1)
		renamed = strings.ReplaceAll(renamed, ","+n.Host+",", ","+ip+",")
		aliases = append(aliases, n.Host+"="+ip)
	}
	if err := os.WriteFile(filepath.Join(ipDir, "nodes.csv"), []byte(renamed), 0o644); err != nil {
		t.Fatal(err)
	}
	var byIP struct {
		Applications []struct {
			Metrics struct {
				Hosts     []struct{ Host, SampleHost, How string }
				Unmatched []string `json:"unmatchedHosts"`
			}
		}
	}
	if err := json.Unmarshal([]byte(js("--metrics", ipDir, "--host-alias", strings.Join(aliases, ","))), &byIP); err != nil {
		t.Fatal(err)
	}
	for i, a := range byIP.Applications {
		m := a.Metrics
		if len(m.Hosts) == 0 || len(m.Unmatched) > 0 || m.Hosts[0].How != "alias" || !strings.HasPrefix(m.Hosts[0].SampleHost, "10.0.0.") {
			t.Errorf("application %d: hosts %+v, unmatched %v", i, m.Hosts, m.Unmatched)
		}
	}

	// Every node's clock 8 s ahead: --align-clocks finds and corrects it.
	skewDir := t.TempDir()
	var ahead strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(plain)), "\n") {
		ts, rest, _ := strings.Cut(line, ",")
		if v, err := strconv.ParseInt(ts, 10, 64); err == nil {
			ts = strconv.FormatInt(v+8000, 10)
		}
		ahead.WriteString(ts + "," + rest + "\n")
	}
	if err := os.WriteFile(filepath.Join(skewDir, "nodes.csv"), []byte(ahead.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var aligned struct {
		Applications []struct {
			Metrics struct{ Hosts []struct{ OffsetMs int64 } }
		}
	}
	if err := json.Unmarshal([]byte(js("--metrics", skewDir, "--align-clocks")), &aligned); err != nil {
		t.Fatal(err)
	}
	moved, hosts := 0, 0
	for _, a := range aligned.Applications {
		for _, h := range a.Metrics.Hosts {
			hosts++
			if h.OffsetMs >= 7000 && h.OffsetMs <= 9000 {
				moved++
			}
		}
	}
	if moved < hosts*3/4 {
		t.Errorf("--align-clocks: %d of %d hosts moved by 8 ± 1 s", moved, hosts)
	}

	// The same samples in a SQLite store.
	d.viaStore(t, "sqlite:"+filepath.Join(t.TempDir(), "samples.db"))

	for _, bad := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--metrics", filepath.Join(dir, "nope.csv")}, ExitError, "nope.csv"},
		{[]string{"--metrics", "sqlite:" + filepath.Join(dir, "none.db")}, ExitError, "none.db"},
		{[]string{"--metrics", t.TempDir()}, ExitError, "no metric file in the directory"},
		{[]string{"--metrics", filepath.Join(dir, "truth.json")}, ExitError, "not a metric file"},
		{[]string{"--metrics", dir, "--clock-skew", "-1s"}, ExitUsage, "--clock-skew"},
	} {
		code, _, errs := run(t, append(append([]string{"analyze"}, bad.args...), logs...)...)
		if code != bad.code || !strings.Contains(errs, bad.msg) || strings.Count(strings.TrimSpace(errs), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d naming %q on one line", bad.args, code, errs, bad.code, bad.msg)
		}
	}
}

// TestAnalyzeMetricsClickHouse reads the samples from ClickHouse
// ($CLICKHOUSE_URL): the same analysis as from the simulator's file.
func TestAnalyzeMetricsClickHouse(t *testing.T) {
	base := strings.TrimRight(sharedtest.Service(t, "CLICKHOUSE_URL"), "/")
	d := newMetricsDemo(t)
	dsn := "clickhouse+" + base + "/cltest_analyze_metrics"
	t.Cleanup(func() {
		st, err := open.Open(context.Background(), dsn)
		if err == nil {
			if ch, ok := st.(*clickhouse.Store); ok {
				ch.DropDatabase(context.Background()) //nolint:errcheck // best effort
			}
			st.Close()
		}
	})
	d.viaStore(t, dsn)
}

// metricsDemo is the demo scenario simulated into a folder, with its
// samples as plain CSV and the JSON analysis with them.
type metricsDemo struct {
	dir         string
	res         *sim.Result
	logs        []string
	plain       []byte
	withMetrics string
}

func newMetricsDemo(t *testing.T) *metricsDemo {
	t.Helper()
	d := &metricsDemo{dir: t.TempDir()}
	sc, err := sim.Named("demo")
	if err != nil {
		t.Fatal(err)
	}
	if d.res, err = sim.Run(sc, 7, d.dir, encoders()); err != nil {
		t.Fatal(err)
	}
	d.logs = []string{filepath.Join(d.dir, "spark"), filepath.Join(d.dir, "mapreduce")}
	f, err := os.Open(filepath.Join(d.dir, sim.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, _, err := codec.Open(f.Name(), f)
	if err != nil {
		t.Fatal(err)
	}
	if d.plain, err = io.ReadAll(r); err != nil {
		t.Fatal(err)
	}
	d.withMetrics = d.json(t, "--metrics", d.dir, "--clock-skew", "1500ms")
	return d
}

// json runs analyze --format json on the demo's logs with args.
func (d *metricsDemo) json(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := run(t, append(append([]string{"analyze", "--format", "json"}, args...), d.logs...)...)
	if code != ExitOK {
		t.Fatalf("%v: exit %d: %s", args, code, errs)
	}
	return out
}

// viaStore stores the demo's samples in the store dsn names and checks
// that analyze --metrics DSN gives the same analysis as the file.
func (d *metricsDemo) viaStore(t *testing.T, dsn string) {
	t.Helper()
	st, err := open.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	batch := wire.Batch{Agent: "test", Seq: 1}
	err = metrics.ReadCSV(bytes.NewReader(d.plain), "nodes.csv", func(s *model.Sample) error {
		batch.Samples = append(batch.Samples, *s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(context.Background(), &batch); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if got := d.json(t, "--metrics", dsn, "--clock-skew", "1500ms"); got != d.withMetrics {
		t.Errorf("%s and metrics.csv.zst give different analyses", dsn)
	}
}

// TestAnalyzeMetricsNmon gives analyze --metrics a folder holding an nmon
// recording of one demo node, written from the simulator's own samples of
// it in nmon's layout (local ZZZZ times, values to 0.1): the node's samples
// join the applications (its host is matched), the metrics nmon does not
// record are named on stderr, and the exit code is 0. With a bad line in
// the middle the analysis still comes, stderr names the file and line, and
// the exit code is 3. peer train on the same folder trains on the metrics
// nmon records and names the ones it lacks (load1, procs_total).
func TestAnalyzeMetricsNmon(t *testing.T) {
	d := newMetricsDemo(t)
	host := d.res.Truth.Nodes[0].Host
	dir := t.TempDir()
	path := filepath.Join(dir, host+".nmon")
	text := nmonOf(t, host, d.plain)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"analyze", "--format", "json", "--clock-skew", "1500ms", "--metrics", dir}, d.logs...)
	code, out, errs := run(t, args...)
	if code != ExitOK || !strings.Contains(errs, "clusterlens: warning: "+path+": host "+host+": no procs_total, load1, weighted_io (nmon records none of them)") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	var doc struct {
		Applications []struct {
			Metrics *struct {
				Hosts []struct{ Host, SampleHost string }
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	matched := 0
	for _, a := range doc.Applications {
		for _, h := range a.Metrics.Hosts {
			if h.SampleHost == host {
				matched++
			}
		}
	}
	if matched == 0 {
		t.Errorf("no application joined %s's nmon samples", host)
	}

	lines := strings.SplitAfter(text, "\n")
	mid := len(lines) / 2
	for !strings.HasPrefix(lines[mid], "PROC,T") {
		mid++
	}
	lines[mid] = strings.Replace(lines[mid], ",", ",T9999,", 1)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = run(t, args...)
	want := fmt.Sprintf("clusterlens: warning: --metrics: %s: read in part: 1 line skipped: %s:%d: PROC,T9999: want the current snapshot", path, path, mid+1)
	if code != ExitPartial || !strings.Contains(errs, want) || !strings.Contains(out, `"applications"`) {
		t.Errorf("exit %d, stderr %q: want 3, the analysis and %q", code, errs, want)
	}

	code, _, errs = run(t, "peer", "train", "--out", filepath.Join(t.TempDir(), "p.json"), dir)
	if code != ExitPartial || !strings.Contains(errs, "the sources record no procs_total, load1") || !strings.Contains(errs, "read in part") {
		t.Errorf("peer train: exit %d, stderr %q", code, errs)
	}
}

// nmonOf writes host's samples from the simulator's CSV as an nmon
// recording (CPU_ALL, MEM, PROC, NET, DISKREAD, DISKWRITE; times local,
// values to 0.1 as nmon prints them).
func nmonOf(t *testing.T, host string, csv []byte) string {
	t.Helper()
	bySec := map[int64]map[string]float64{}
	var secs []int64
	err := metrics.ReadCSV(bytes.NewReader(csv), "nodes.csv", func(s *model.Sample) error {
		if s.Host != host {
			return nil
		}
		sec := s.Time / 1000
		if bySec[sec] == nil {
			bySec[sec] = map[string]float64{}
			secs = append(secs, sec)
		}
		bySec[sec][s.Type] = s.Value
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "AAA,progname,nmon\nAAA,host,%s\nAAA,OS,Linux,6.1.0,#1 SMP,x86_64\nAAA,interval,1\n", host)
	b.WriteString("CPU_ALL,CPU Total h,User%,Sys%,Wait%,Idle%,Steal%,Busy,CPUs\n")
	b.WriteString("MEM,Memory MB h,memtotal,hightotal,lowtotal,swaptotal,memfree,highfree,lowfree,swapfree,memshared,cached,active,bigfree,buffers,swapcached,inactive\n")
	b.WriteString("PROC,Processes h,Runnable,Blocked,pswitch,syscall,read,write,fork,exec,sem,msg\n")
	b.WriteString("NET,Network I/O h,lo-read-KB/s,eth0-read-KB/s,lo-write-KB/s,eth0-write-KB/s\n")
	b.WriteString("DISKREAD,Disk Read KB/s h,sda\nDISKWRITE,Disk Write KB/s h,sda\n")
	for i, sec := range secs {
		m := bySec[sec]
		user, sys, wait := m["cpu_user_pct"], m["cpu_system_pct"], m["cpu_iowait_pct"]
		tag := fmt.Sprintf("T%04d", i+1)
		fmt.Fprintf(&b, "ZZZZ,%s,%s\n", tag, strings.ToUpper(time.Unix(sec, 0).Format("15:04:05,02-Jan-2006")))
		fmt.Fprintf(&b, "CPU_ALL,%s,%.1f,%.1f,%.1f,%.1f,0.0,,8\n", tag, user, sys, wait, max(0, 100-user-sys-wait))
		fmt.Fprintf(&b, "MEM,%s,1000.0,-0.0,-0.0,0.0,%.1f,-0.0,-0.0,0.0,0.0,0.0,0.0,-1.0,0.0,0.0,0.0\n", tag, 10*(100-m["mem_usage"]))
		fmt.Fprintf(&b, "PROC,%s,%.0f,0,%.1f,-1.0,-1.0,-1.0,0.0,-1.0,-1.0,-1.0\n", tag, m["procs_runnable"], m["context_switches_per_s"])
		fmt.Fprintf(&b, "NET,%s,0.0,%.1f,0.0,%.1f\n", tag, m["net_rx_bytes_per_s"]/1024, m["net_tx_bytes_per_s"]/1024)
		fmt.Fprintf(&b, "DISKREAD,%s,%.1f\nDISKWRITE,%s,%.1f\n", tag, m["disk_read_bytes_per_s"]/1024, tag, m["disk_write_bytes_per_s"]/1024)
	}
	return b.String()
}
