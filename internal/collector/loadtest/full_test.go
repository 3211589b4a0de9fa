package loadtest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/store/open"
)

// TestLoad is the full load test, run when CLUSTERLENS_LOADTEST=1:
// CLUSTERLENS_LOADTEST_AGENTS agents (default 200) at 1 Hz for
// CLUSTERLENS_LOADTEST_DURATION (default 30s; .ci/loadtest.sh uses 5m)
// against one `clusterlens collect` process on loopback, over the store
// CLUSTERLENS_LOADTEST_STORE names ("sqlite", the default, a file in a
// temporary folder; "clickhouse", a new database on $CLICKHOUSE_URL; or a
// DSN). The store must then hold exactly what the agents produced. It
// prints one LOADTEST line with throughput, latency and the collector's
// CPU and memory.
func TestLoad(t *testing.T) {
	if os.Getenv("CLUSTERLENS_LOADTEST") != "1" {
		t.Skip("set CLUSTERLENS_LOADTEST=1 to run the load test")
	}
	agents := envInt(t, "CLUSTERLENS_LOADTEST_AGENTS", 200)
	duration := 30 * time.Second
	if v := os.Getenv("CLUSTERLENS_LOADTEST_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("CLUSTERLENS_LOADTEST_DURATION: %v", err)
		}
		duration = d
	}
	dir := t.TempDir()
	kind, dsn := storeDSN(t, dir)

	bin := binary(t, dir)
	token := "load-test-token"
	tokenFile := writeToken(t, dir, token)
	addr := freePort(t)
	logFile, err := os.Create(filepath.Join(dir, "collector.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	coll := exec.Command(bin, "collect", "--listen", addr, "--store", dsn, "--token-file", tokenFile)
	coll.Stdout, coll.Stderr = logFile, logFile
	if err := coll.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- coll.Wait() }()
	defer func() {
		if coll.ProcessState == nil {
			coll.Process.Kill()
		}
	}()
	base := "http://" + addr
	waitHealthy(t, base, exited, logFile.Name())

	cpu0 := procCPU(t, coll.Process.Pid)
	var self0 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self0)
	res, err := Run(context.Background(), Config{Collector: base, Token: token, Agents: agents, Duration: duration,
		SpoolRoot: filepath.Join(dir, "spools"), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	var self1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self1)
	cpu := procCPU(t, coll.Process.Pid) - cpu0
	rss := procStatusKB(t, coll.Process.Pid, "VmHWM")
	hp50, hp99 := serverQuantiles(t, base)

	coll.Process.Signal(syscall.SIGTERM)
	if err := <-exited; err != nil {
		t.Fatalf("collector exited: %v (log %s)", err, logFile.Name())
	}
	st, err := open.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	vstart := time.Now()
	chk, err := Verify(context.Background(), st, res)
	if err != nil {
		t.Fatal(err)
	}
	agentCPU := rusageSeconds(self1) - rusageSeconds(self0)
	secs := res.Elapsed.Seconds()
	fmt.Printf("LOADTEST store=%s agents=%d duration=%s batches=%d samples=%d samples_per_s=%.0f "+
		"latency_p50=%s latency_p90=%s latency_p99=%s latency_max=%s server_p50=%s server_p99=%s "+
		"collector_cpu=%.1f%% collector_rss_peak=%dMiB agents_cpu=%.1f%% missed_ticks=%d spooled=%d dropped=%d rejected=%d verify=%s check=%q\n",
		kind, agents, res.Elapsed.Round(time.Second), res.Batches, res.Samples, float64(res.Samples)/secs,
		res.Quantile(0.5).Round(10*time.Microsecond), res.Quantile(0.9).Round(10*time.Microsecond), res.Quantile(0.99).Round(10*time.Microsecond),
		res.Quantile(1).Round(10*time.Microsecond), hp50, hp99,
		100*cpu/secs, rss>>10, 100*agentCPU/secs, res.MissedTicks(time.Second), res.Spooled, res.Dropped, res.Rejected,
		time.Since(vstart).Round(time.Millisecond), chk)
	if !chk.OK() || res.Spooled+res.Dropped+res.Rejected != 0 {
		t.Fatalf("samples lost or duplicated: %v; agents: %d spooled, %d dropped, %d rejected", chk, res.Spooled, res.Dropped, res.Rejected)
	}
}

// binary is $CLUSTERLENS_BIN, or clusterlens built into dir.
func binary(t *testing.T, dir string) string {
	t.Helper()
	if bin := os.Getenv("CLUSTERLENS_BIN"); bin != "" {
		return bin
	}
	bin := filepath.Join(dir, "clusterlens")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/clusterlens/clusterlens/cmd/clusterlens").CombinedOutput(); err != nil {
		t.Fatalf("build clusterlens: %v\n%s", err, out)
	}
	return bin
}

// writeToken writes the collector's token file in dir and returns its path.
func writeToken(t *testing.T, dir, token string) string {
	t.Helper()
	path := filepath.Join(dir, "token")
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// storeDSN returns the store kind and DSN of CLUSTERLENS_LOADTEST_STORE.
func storeDSN(t *testing.T, dir string) (kind, dsn string) {
	switch v := os.Getenv("CLUSTERLENS_LOADTEST_STORE"); v {
	case "", "sqlite":
		return "sqlite", "sqlite:" + filepath.Join(dir, "samples.db")
	case "clickhouse":
		u := strings.TrimSuffix(sharedtest.Service(t, "CLICKHOUSE_URL"), "/")
		return "clickhouse", fmt.Sprintf("clickhouse+%s/clusterlens_load_%d", u, time.Now().Unix())
	default:
		return strings.SplitN(v, ":", 2)[0], v
	}
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

func freePort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func waitHealthy(t *testing.T, base string, exited <-chan error, log string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		select {
		case err := <-exited:
			b, _ := os.ReadFile(log)
			t.Fatalf("collector exited: %v\n%s", err, b)
		default:
		}
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("collector not healthy after 10 s")
}

// procCPU returns the user+system CPU seconds process pid used so far.
func procCPU(t *testing.T, pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command (which may hold spaces) start after ")".
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ is 100 on Linux
}

// procStatusKB returns a kB field of /proc/pid/status.
func procStatusKB(t *testing.T, pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

func rusageSeconds(r syscall.Rusage) float64 {
	return float64(r.Utime.Sec+r.Stime.Sec) + float64(r.Utime.Usec+r.Stime.Usec)/1e6
}

// serverQuantiles reads the collector's ingest histogram from /metrics
// and interpolates its median and 99th percentile as Prometheus's
// histogram_quantile does.
func serverQuantiles(t *testing.T, base string) (p50, p99 time.Duration) {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	f := fams["clusterlens_collector_ingest_seconds"]
	if f == nil || len(f.Metric) == 0 {
		t.Fatal("no ingest histogram in /metrics")
	}
	h := f.Metric[0].Histogram
	q := func(q float64) time.Duration {
		rank := q * float64(h.GetSampleCount())
		var prevCount, prevBound float64
		for _, b := range h.Bucket {
			if c := float64(b.GetCumulativeCount()); c >= rank {
				frac := (rank - prevCount) / max(c-prevCount, 1)
				return time.Duration((prevBound + frac*(b.GetUpperBound()-prevBound)) * float64(time.Second)).Round(10 * time.Microsecond)
			}
			prevCount, prevBound = float64(b.GetCumulativeCount()), b.GetUpperBound()
		}
		return time.Duration(prevBound * float64(time.Second))
	}
	return q(0.5), q(0.99)
}
