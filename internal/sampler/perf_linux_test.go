package sampler

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestPerf either measures something sane (IPC between 0.01 and 10 while
// this test burns CPU) or reports unsupported with a reason; never panics.
func TestPerf(t *testing.T) {
	s, err := Build("perf", Config{Host: "h"})
	if errors.Is(err, ErrUnsupported) {
		if len(err.Error()) < len(ErrUnsupported.Error())+10 {
			t.Fatalf("unsupported without a reason: %v", err)
		}
		t.Skipf("perf unsupported here, as reported: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer s.(*perfSampler).Close()
	now := time.Now()
	if _, err := s.Sample(now, nil); err != nil {
		t.Fatal(err)
	}
	x := 0
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
		x += x*7 + 1
	}
	out, err := s.Sample(time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	m := byKey(out)
	ipc, ok := m[key{"ipc", ""}]
	if !ok || ipc < 0.01 || ipc > 10 {
		t.Fatalf("ipc = %v (present %v), want 0.01..10; samples %v", ipc, ok, out)
	}
	t.Logf("perf: %v (x=%d)", m, x)
}

// TestPerfCountsSoftwareClock runs the sampler's open, read, scale and
// rate path on the software cpu-clock event, which every kernel has: counted
// system-wide on every online CPU it advances by one nanosecond per
// nanosecond per CPU, so its rate must be close to runtime.NumCPU() × 1e9.
func TestPerfCountsSoftwareClock(t *testing.T) {
	p, err := newPerfWith(Config{Host: "h"}, []perfEvent{{"instructions", unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_CPU_CLOCK}})
	if errors.Is(err, ErrUnsupported) {
		t.Skipf("no perf events at all here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	t0 := time.Now()
	if _, err := p.Sample(t0, nil); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	out, err := p.Sample(time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := byKey(out)[key{"instructions_per_s", ""}]
	want := float64(len(p.fds[0])) * 1e9
	if math.Abs(got-want) > 0.1*want {
		t.Fatalf("cpu-clock rate %.4g ns/s over %d CPUs, want %.4g within 10%%", got, len(p.fds[0]), want)
	}
}

func TestParseCPUList(t *testing.T) {
	got, err := parseCPUList("0-3,5,7-8")
	if err != nil || !slices.Equal(got, []int{0, 1, 2, 3, 5, 7, 8}) {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "a", "3-1", "1-", "-1", "99999999", "0,,1"} {
		if _, err := parseCPUList(bad); err == nil {
			t.Errorf("parseCPUList(%q) accepted", bad)
		}
	}
}

func FuzzParseCPUList(f *testing.F) {
	f.Add("0-3,5,7-8")
	f.Add("0")
	f.Fuzz(func(t *testing.T, s string) {
		cpus, err := parseCPUList(s)
		if err == nil && len(cpus) == 0 {
			t.Fatalf("%q: no error and no CPUs", s)
		}
	})
}
