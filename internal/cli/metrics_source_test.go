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

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/sim"
	"github.com/clusterlens/clusterlens/internal/store/clickhouse"
	"github.com/clusterlens/clusterlens/internal/store/open"
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
	batch := metrics.Batch{Agent: "test", Seq: 1}
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
