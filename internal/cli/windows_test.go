package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/anomaly"
	"github.com/clusterlens/clusterlens/internal/driver"
)

// windowsSource writes three nodes' metrics, a minute apart for three
// days, as the project's CSV: cpu and mem noisy around a level, and on
// node b from minute 3000 to 3030 both far off. It returns the file and
// the samples per node (rows: minutes, columns: cpu, mem).
func windowsSource(t *testing.T) (string, map[string][][]float64) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	const minutes = 3 * 1440
	var b strings.Builder
	b.WriteString("timestamp_ms,host,metric,value\n")
	x := map[string][][]float64{}
	for _, h := range []string{"a", "b", "c"} {
		for m := range minutes {
			cpu, mem := 30+5*r.NormFloat64(), 60+2*r.NormFloat64()
			if h == "b" && m >= 3000 && m < 3030 {
				cpu, mem = 95+r.NormFloat64(), 90+r.NormFloat64()
			}
			ts := int64(1_700_000_000_000) + int64(m)*60_000
			fmt.Fprintf(&b, "%d,%s,cpu,%g\n%d,%s,mem,%g\n", ts, h, cpu, ts, h, mem)
			x[h] = append(x[h], []float64{cpu, mem})
		}
	}
	path := filepath.Join(t.TempDir(), "metrics.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, x
}

// TestWindowsCommand runs `clusterlens windows` on windowsSource: node b's
// half hour is its one abnormal window, with both metrics behind it; the
// JSON is what anomaly.AbnormalWindows gives on the same samples; the
// text names it; bad flags and sources fail with their exit codes.
func TestWindowsCommand(t *testing.T) {
	path, x := windowsSource(t)
	code, out, errs := run(t, "windows", path, "--format", "json")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var rep driver.WindowsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Nodes) != 3 {
		t.Fatalf("%d nodes, want 3", len(rep.Nodes))
	}
	for _, n := range rep.Nodes {
		res, err := anomaly.AbnormalWindows(x[n.Host], anomaly.DefaultWindowParams())
		if err != nil {
			t.Fatal(err)
		}
		if n.Samples != 3*1440 || n.IntervalMs != 60_000 || n.Judged != res.Judged || len(n.Windows) != len(res.Windows) {
			t.Errorf("%s: %d samples every %d ms, %d judged, %d windows; want 4320, 60000, %d, %d",
				n.Host, n.Samples, n.IntervalMs, n.Judged, len(n.Windows), res.Judged, len(res.Windows))
			continue
		}
		for i, w := range n.Windows {
			rw := res.Windows[i]
			if got, wantMs := w.StartMs, int64(1_700_000_000_000)+int64(rw.Start)*60_000; got != wantMs || math.Abs(w.Score-rw.Score) > 1e-9 {
				t.Errorf("%s window %d: start %d score %g, want %d %g", n.Host, i, got, w.Score, wantMs, rw.Score)
			}
		}
	}
	b := rep.Nodes[1]
	found := false
	for _, w := range b.Windows {
		start, end := (w.StartMs-1_700_000_000_000)/60_000, (w.EndMs-1_700_000_000_000)/60_000
		if start <= 3000 && end >= 3030 && end <= 3040 {
			found = len(w.Metrics) == 2 && w.Metrics[0].Deviation > 4 && w.Metrics[1].Deviation > 4
		}
	}
	if !found {
		t.Errorf("node b's windows %+v: want one covering minutes 3000-3030 with cpu and mem off", b.Windows)
	}
	for _, n := range []int{0, 2} {
		if len(rep.Nodes[n].Windows) > 2 {
			t.Errorf("node %s, noise only: %d abnormal windows", rep.Nodes[n].Host, len(rep.Nodes[n].Windows))
		}
	}
	code, out, _ = run(t, "windows", path, "--host", "b", "--top", "1")
	if code != ExitOK || !strings.Contains(out, "\nb: 4320 instants every 1m0s") || strings.Contains(out, "\na:") ||
		!strings.Contains(out, "(normal ") || !strings.Contains(out, "and 1 more") {
		t.Errorf("text, exit %d:\n%s", code, out)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"windows", path, "--format", "xml"}, ExitUsage, `--format "xml"`},
		{[]string{"windows", path, "--history", "1h", "--min-history", "2h"}, ExitUsage, "min-history ≤ history"},
		{[]string{"windows", path, "--d-min", "0"}, ExitError, "d_min 0"},
		{[]string{"windows", filepath.Join(t.TempDir(), "none.csv")}, ExitError, "none.csv"},
		{[]string{"windows", path, "--from", "2030-01-01T00:00:00Z"}, ExitError, "no per-node samples"},
	} {
		code, _, errs := run(t, c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) {
			t.Errorf("%v: exit %d (%q), want %d with %q", c.args, code, errs, c.code, c.msg)
		}
	}
}
