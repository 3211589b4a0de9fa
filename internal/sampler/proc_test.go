package sampler

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// fixtureProc points dir/proc at testdata/<tree>/proc, so one sampler can
// read successive hand-made /proc snapshots.
func fixtureProc(t *testing.T, dir, tree string) {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", tree, "proc"))
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "proc")
	_ = os.Remove(link)
	if err := os.Symlink(abs, link); err != nil {
		t.Fatal(err)
	}
}

type key struct{ typ, target string }

func byKey(ss []model.Sample) map[key]float64 {
	m := map[key]float64{}
	for _, s := range ss {
		m[key{s.Type, s.Target}] = s.Value
	}
	return m
}

// TestProcFixtureRates checks every rate against values computed by hand
// from the fixture counters (testdata/t0, t1, t2): t0→t1 is 2 s of normal
// counting; t1→t2 is 1 s with a 32-bit wrap (eth0 rx), a 64-bit wrap
// (pgfault), resets (sda read sectors, ctxt) and iowait going backwards.
func TestProcFixtureRates(t *testing.T) {
	dir := t.TempDir()
	fixtureProc(t, dir, "t0")
	sys, _ := filepath.Abs(filepath.Join("testdata", "sys"))
	s, err := Build("proc", Config{Host: "n1", ProcRoot: filepath.Join(dir, "proc"), SysRoot: sys})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.UnixMilli(1_700_000_000_000)
	out, err := s.Sample(t0, nil)
	if err != nil || len(out) != 0 {
		t.Fatalf("first call: %d samples, %v; want none (counters only remembered)", len(out), err)
	}

	fixtureProc(t, dir, "t1")
	out, err = s.Sample(t0.Add(2*time.Second), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range out {
		if x.Host != "n1" || x.Time != t0.Add(2*time.Second).UnixMilli() {
			t.Fatalf("sample %+v: want host n1 and time at the interval's end", x)
		}
	}
	check(t, "t0→t1", byKey(out), map[key]float64{
		{"cpu_user_pct", ""}: 35, {"cpu_system_pct", ""}: 15, {"cpu_iowait_pct", ""}: 7.5,
		{"context_switches_per_s", ""}: 2000, {"procs_runnable", ""}: 4, {"procs_total", ""}: 312,
		{"load1", ""}: 1.5, {"net_rx_bytes_per_s", ""}: 1_010_000, {"net_tx_bytes_per_s", ""}: 201_000,
		{"pages_in_kb_per_s", ""}: 200, {"pages_out_kb_per_s", ""}: 500, {"page_faults_per_s", ""}: 15000,
		{"disk_read_bytes_per_s", ""}: 1_280_000, {"disk_write_bytes_per_s", ""}: 2_048_000,
		{"cpu_usage", ""}: 52.5, {"mem_usage", ""}: 25, {"ioWaitRatio", ""}: 7.5, {"weighted_io", ""}: 350,
		{"disk_read_bw", ""}: 1_280_000, {"disk_write_bw", ""}: 2_048_000,
		{"net_send_bw", ""}: 201_000, {"net_recv_bw", ""}: 1_010_000,
		{"disk_read_bytes_per_s", "sda"}: 1_024_000, {"disk_write_bytes_per_s", "sda"}: 2_048_000,
		{"weighted_io", "sda"}: 300, {"disk_read_bytes_per_s", "sda1"}: 1_024_000,
		{"disk_read_bytes_per_s", "nvme0n1"}: 256_000, {"weighted_io", "nvme0n1"}: 50,
		{"disk_read_bytes_per_s", "loop0"}: 512_000, {"disk_write_bytes_per_s", "dm-0"}: 2_048_000,
		{"net_rx_bytes_per_s", "lo"}: 100_000, {"net_rx_bytes_per_s", "eth0"}: 1_000_000,
		{"net_tx_bytes_per_s", "eth0"}: 200_000, {"net_rx_bytes_per_s", "eth1"}: 10_000,
	}, nil)

	fixtureProc(t, dir, "t2")
	out, err = s.Sample(t0.Add(3*time.Second), out[:0])
	if err != nil {
		t.Fatal(err)
	}
	check(t, "t1→t2", byKey(out), map[key]float64{
		{"cpu_user_pct", ""}: 50, {"cpu_system_pct", ""}: 25, {"cpu_usage", ""}: 75,
		{"procs_runnable", ""}: 0, {"procs_total", ""}: 320, {"load1", ""}: 2,
		{"net_rx_bytes_per_s", "eth0"}: 2_000_000, {"net_rx_bytes_per_s", ""}: 2_000_000,
		{"net_tx_bytes_per_s", ""}: 100_000, {"page_faults_per_s", ""}: 716,
		{"pages_in_kb_per_s", ""}: 100, {"pages_out_kb_per_s", ""}: 100, {"mem_usage", ""}: 75,
		{"disk_write_bytes_per_s", ""}: 1_024_000, {"disk_read_bytes_per_s", "nvme0n1"}: 256_000,
		{"weighted_io", ""}: 150,
	}, []key{
		{"cpu_iowait_pct", ""}, {"ioWaitRatio", ""}, {"context_switches_per_s", ""},
		{"disk_read_bytes_per_s", "sda"}, {"disk_read_bytes_per_s", ""}, {"disk_read_bw", ""},
	})
}

func check(t *testing.T, what string, got map[key]float64, want map[key]float64, absent []key) {
	t.Helper()
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s: %s[%s] missing", what, k.typ, k.target)
		} else if math.Abs(g-w) > 1e-9*math.Max(1, math.Abs(w)) {
			t.Errorf("%s: %s[%s] = %v, want %v", what, k.typ, k.target, g, w)
		}
	}
	for _, k := range absent {
		if g, ok := got[k]; ok {
			t.Errorf("%s: %s[%s] = %v, want it skipped (counter went backwards)", what, k.typ, k.target, g)
		}
	}
}

func TestCounterDelta(t *testing.T) {
	for _, c := range []struct {
		prev, cur, d uint64
		ok           bool
	}{
		{10, 15, 5, true},
		{math.MaxUint32 - 4, 5, 10, true},       // 32-bit wrap
		{math.MaxUint64 - 4, 5, 10, true},       // 64-bit wrap
		{3_000_000_000, 100, 0, false},          // 32-bit value not near the top: reset
		{1 << 40, 7, 0, false},                  // 64-bit value not near the top: reset
		{math.MaxUint32 - 4, 1 << 31, 0, false}, // lands mid-range: reset
		{math.MaxUint64 - 4, math.MaxUint32, 10 + math.MaxUint32 - 5, true},
	} {
		d, ok := counterDelta(c.prev, c.cur)
		if d != c.d || ok != c.ok {
			t.Errorf("counterDelta(%d, %d) = %d, %v; want %d, %v", c.prev, c.cur, d, ok, c.d, c.ok)
		}
	}
}

// TestProcLive samples this machine twice and checks ranges only; the
// values are checked against sysstat in TestProcAgreesWithSadc.
func TestProcLive(t *testing.T) {
	s, err := Build("proc", Config{Host: "live"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	if _, err := s.Sample(now, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	out, err := s.Sample(now.Add(200*time.Millisecond), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := byKey(out)
	for _, name := range []string{"cpu_user_pct", "cpu_system_pct", "cpu_usage", "mem_usage"} {
		if v, ok := m[key{name, ""}]; !ok || v < 0 || v > 100 {
			t.Errorf("%s = %v (present %v), want a percentage", name, v, ok)
		}
	}
	if m[key{"procs_total", ""}] < 1 {
		t.Errorf("procs_total = %v", m[key{"procs_total", ""}])
	}
}

func BenchmarkProcSample(b *testing.B) {
	s, err := Build("proc", Config{Host: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	buf, _ := s.Sample(now, nil)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		buf, err = s.Sample(now.Add(time.Duration(i+1)*time.Second), buf[:0])
		if err != nil {
			b.Fatal(err)
		}
	}
}
