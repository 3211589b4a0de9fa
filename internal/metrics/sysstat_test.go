package metrics

import (
	"bytes"
	"context"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// collect reads every sample into a map by host, metric and time.
func collect(t testing.TB, read func(func(*model.Sample) error) error) map[model.SampleKey]float64 {
	t.Helper()
	got := map[model.SampleKey]float64{}
	if err := read(func(s *model.Sample) error {
		if model.NodeMetricIndex(s.Type) < 0 {
			t.Fatalf("sample %+v: not a canonical metric", s)
		}
		got[s.Key()] = s.Value
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestReadSysstatOldFormat reads a hand-written sysstat 11 document (sar -u
// cpu-load with system including interrupts, sectors, avgqu-sz, no
// MemAvailable, local time in CET, a device-mapper disk and lo to leave
// out, a second host, an empty record) and checks values worked out by hand.
func TestReadSysstatOldFormat(t *testing.T) {
	f, err := os.Open("testdata/sadf-11.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got := collect(t, func(fn func(*model.Sample) error) error { return ReadSysstat(f, f.Name(), fn) })
	cet := time.Date(2016, 6, 1, 8, 0, 1, 0, time.UTC).UnixMilli() // 10:00:01 CEST
	if _, err := time.LoadLocation("CET"); err != nil {
		t.Skipf("no time zone data for CET: %v", err)
	}
	want := map[string]float64{
		"cpu_user_pct": 42, "cpu_system_pct": 6, "cpu_iowait_pct": 12.25, "ioWaitRatio": 12.25, "cpu_usage": 48,
		"context_switches_per_s": 15234.5, "pages_in_kb_per_s": 2048, "pages_out_kb_per_s": 512, "page_faults_per_s": 3400.25,
		"mem_usage": 93.75, "procs_runnable": 9, "procs_total": 1210, "load1": 7.85,
		"disk_read_bytes_per_s": 4096 * 512, "disk_write_bytes_per_s": 3072 * 512, "disk_read_bw": 4096 * 512, "disk_write_bw": 3072 * 512,
		"weighted_io": 1750, "net_rx_bytes_per_s": 1250.5 * 1024, "net_tx_bytes_per_s": 64 * 1024,
		"net_recv_bw": 1250.5 * 1024, "net_send_bw": 64 * 1024,
	}
	for name, v := range want {
		k := model.SampleKey{Time: cet, Host: "node02", Type: name}
		if g, ok := got[k]; !ok || math.Abs(g-v) > 1e-9 {
			t.Errorf("%s = %v (present %v), want %v", name, g, ok, v)
		}
	}
	utc := time.Date(2016, 6, 1, 8, 0, 1, 0, time.UTC).UnixMilli()
	for name, v := range map[string]float64{"procs_runnable": 1, "procs_total": 300, "load1": 0.5} {
		if g := got[model.SampleKey{Time: utc, Host: "node03", Type: name}]; g != v {
			t.Errorf("node03 %s = %v, want %v", name, g, v)
		}
	}
	if len(got) != len(want)+3 {
		t.Errorf("%d samples, want %d", len(got), len(want)+3)
	}
}

// TestReadSysstat12 reads sadf -j output of sysstat 12.6 (testdata, made
// by this machine's sadc and sadf) and checks the first record against the
// values in the file, worked out by hand.
func TestReadSysstat12(t *testing.T) {
	b, err := os.ReadFile("testdata/sadf-12.json")
	if err != nil {
		t.Fatal(err)
	}
	got := collect(t, func(fn func(*model.Sample) error) error {
		return ReadSysstat(bytes.NewReader(b), "sadf-12.json", fn)
	})
	at := time.Date(2026, 11, 21, 7, 50, 44, 0, time.UTC).UnixMilli()
	total := 19140736.0 + 1514580 + 73968 + 3633492 + 321316 // = MemTotal in KB
	for name, v := range map[string]float64{
		"cpu_user_pct": 78.22 + 9.41, "cpu_system_pct": 10.89, "cpu_usage": 99.5, "context_switches_per_s": 6793,
		"procs_runnable": 10, "procs_total": 240, "load1": 17.72, "pages_in_kb_per_s": 168, "pages_out_kb_per_s": 12508,
		"page_faults_per_s": 59418, "disk_read_bytes_per_s": 168 * 1024, "disk_write_bytes_per_s": 12508 * 1024,
		"weighted_io": 140, "mem_usage": 100 * (1 - 22771180/total), "net_rx_bytes_per_s": 0,
	} {
		k := model.SampleKey{Time: at, Host: "node01.example", Type: name}
		if g, ok := got[k]; !ok || math.Abs(g-v) > 1e-9 {
			t.Errorf("%s = %v (present %v), want %v", name, g, ok, v)
		}
	}
	if len(got) != 2*len(model.NodeMetricNames) {
		t.Errorf("%d samples, want %d", len(got), 2*len(model.NodeMetricNames))
	}
}

func TestReadSysstatErrors(t *testing.T) {
	full, err := os.ReadFile("testdata/sadf-11.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{string(full[:len(full)/2]), "f.json: offset"},
		{`{"sysstat": {"hosts": [{"statistics": []}]}}`, "nodename before its statistics"},
		{`{"sysstat": {"hosts": [{"nodename": "a", "statistics": [{"timestamp": {"date": "2016-13-01", "time": "x"}}]}]}}`, "statistics[0] at offset"},
		{`{"sysstat": {"hosts": [{"nodename": "a", "statistics": [{"queue": {"runq-sz": 1}}]}]}}`, "want a timestamp"},
		{`{"sysstat": {"hosts": [{"nodename": "a", "statistics": [{"queue": {"runq-sz": "many"}}]}]}}`, "queue"},
		{`{"other": 1}`, `no "sysstat" object`},
		{`[1]`, "an object"},
	} {
		err := ReadSysstat(strings.NewReader(c.in), "f.json", func(*model.Sample) error { return nil })
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "f.json") {
			t.Errorf("%.60q: error %v, want one naming f.json and %q", c.in, err, c.want)
		}
	}
}

// FuzzReadSysstat checks that the reader never panics, that every error
// names the file, and that every sample it accepts is a canonical metric
// of a named host.
func FuzzReadSysstat(f *testing.F) {
	for _, p := range []string{"testdata/sadf-11.json", "testdata/sadf-12.json"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		err := ReadSysstat(bytes.NewReader(in), "fuzz.json", func(s *model.Sample) error {
			if s.Host == "" || model.NodeMetricIndex(s.Type) < 0 {
				t.Fatalf("sample %+v", s)
			}
			return nil
		})
		if err != nil && !strings.HasPrefix(err.Error(), "fuzz.json") {
			t.Fatalf("error %q does not name the file", err)
		}
	})
}

// TestReadSadcAbort checks that an error from fn stops sadf and comes back
// as it was.
func TestReadSadcAbort(t *testing.T) {
	if _, err := lookSysstat(t); err != nil {
		return
	}
	file := runSadc(t, 2)
	stop := context.Canceled
	n := 0
	err := ReadSadc(context.Background(), file, func(*model.Sample) error { n++; return stop })
	if err != stop || n != 1 {
		t.Fatalf("error %v after %d samples, want %v after 1", err, n, stop)
	}
	if err := ReadSadc(context.Background(), "testdata/sadf-11.json", func(*model.Sample) error { return nil }); err == nil || !strings.Contains(err.Error(), "sadf") {
		t.Fatalf("error %v, want sadf's complaint", err)
	}
}
