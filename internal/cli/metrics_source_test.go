package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
	"github.com/clusterlens/clusterlens/internal/store/open"
)

// TestAnalyzeMetrics runs analyze --metrics on a simulator output: the
// folder (metrics.csv.zst), the same samples as a plain CSV in another
// folder and in a SQLite store (the same analysis each time), named by IP
// address and matched through --host-alias, bad sources and a bad
// tolerance.
func TestAnalyzeMetrics(t *testing.T) {
	dir := t.TempDir()
	sc, err := sim.Named("demo")
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(sc, 7, dir, encoders())
	if err != nil {
		t.Fatal(err)
	}
	logs := []string{filepath.Join(dir, "spark"), filepath.Join(dir, "mapreduce")}
	code, out, errs := run(t, append([]string{"analyze", "--metrics", dir}, logs...)...)
	if code != ExitOK || strings.Count(out, "Node metrics (HybridTune") != len(res.Truth.Apps) {
		t.Fatalf("exit %d, %d metrics sections for %d applications: %s", code, strings.Count(out, "Node metrics (HybridTune"), len(res.Truth.Apps), errs)
	}
	js := func(args ...string) string {
		t.Helper()
		code, out, errs := run(t, append(append([]string{"analyze", "--format", "json"}, args...), logs...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		return out
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
	withMetrics := js("--metrics", dir, "--clock-skew", "1500ms")
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
	f, err := os.Open(filepath.Join(dir, sim.MetricsFile))
	if err != nil {
		t.Fatal(err)
	}
	r, _, err := codec.Open(f.Name(), f)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := io.ReadAll(r)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
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

	// The same samples in a SQLite store.
	db := filepath.Join(t.TempDir(), "samples.db")
	st, err := open.Open(context.Background(), "sqlite:"+db)
	if err != nil {
		t.Fatal(err)
	}
	var batch metrics.Batch
	batch.Agent, batch.Seq = "test", 1
	err = metrics.ReadCSV(bytes.NewReader(plain), "nodes.csv", func(s *model.Sample) error {
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
	if got := js("--metrics", "sqlite:"+db, "--clock-skew", "1500ms"); got != withMetrics {
		t.Error("the SQLite store and metrics.csv.zst give different analyses")
	}

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
