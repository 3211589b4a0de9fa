package sampler

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
)

// Overhead budget of the proc sampler at 1 s (the node-metrics issue).
const (
	maxCPUPercent = 1.0 // of one core
	maxRSSBytes   = 30 << 20
)

func cpuTime(t testing.TB, who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestProcOverheadFast takes 100 samples back to back and checks that the
// process CPU time per call, at one call a second, stays under 1% of a core.
func TestProcOverheadFast(t *testing.T) {
	s, err := Build("proc", Config{Host: "h"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	buf, _ := s.Sample(now, nil)
	const n = 100
	start := cpuTime(t, syscall.RUSAGE_SELF)
	for i := range n {
		if buf, err = s.Sample(now.Add(time.Duration(i+1)*time.Second), buf[:0]); err != nil {
			t.Fatal(err)
		}
	}
	perCall := (cpuTime(t, syscall.RUSAGE_SELF) - start) / n
	pct := 100 * perCall.Seconds() // at 1 Hz
	t.Logf("proc sampler: %v CPU per call = %.3f%% of a core at 1 s", perCall, pct)
	if pct > maxCPUPercent {
		t.Errorf("%v CPU per call: %.2f%% of a core at 1 s, budget %.0f%%", perCall, pct, maxCPUPercent)
	}
}

// TestProcOverhead runs the proc sampler at 1 s for CLUSTERLENS_OVERHEAD
// seconds (1 means 60) in a child process (this test binary, running
// TestOverheadChild) and checks the child's CPU time over its wall time and
// its peak resident set against the budget.
func TestProcOverhead(t *testing.T) {
	v := os.Getenv("CLUSTERLENS_OVERHEAD")
	if v == "" {
		t.Skip("CLUSTERLENS_OVERHEAD not set: set it to 1 (60 s) or a number of seconds")
	}
	secs, err := strconv.Atoi(v)
	if err != nil || secs < 1 {
		t.Fatalf("CLUSTERLENS_OVERHEAD=%q: want 1 or a number of seconds", v)
	}
	if secs == 1 {
		secs = 60
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestOverheadChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), "CLUSTERLENS_OVERHEAD_CHILD="+strconv.Itoa(secs))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	wall := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	pct := 100 * cpu.Seconds() / wall.Seconds()
	rss := ru.Maxrss << 10 // KB on Linux
	t.Logf("proc sampler at 1 s for %v: CPU %v = %.3f%% of a core, peak RSS %.1f MB (whole test binary)", wall.Round(time.Millisecond), cpu, pct, float64(rss)/(1<<20))
	if pct > maxCPUPercent || rss > maxRSSBytes {
		t.Errorf("over budget: %.2f%% of a core (max %.0f%%), %.1f MB (max %d MB)", pct, maxCPUPercent, float64(rss)/(1<<20), maxRSSBytes>>20)
	}
}

// TestOverheadChild is TestProcOverhead's child: the sampler loop at 1 s,
// reusing one sample buffer as the agent does.
func TestOverheadChild(t *testing.T) {
	v := os.Getenv("CLUSTERLENS_OVERHEAD_CHILD")
	if v == "" {
		t.Skip("runs only as TestProcOverhead's child")
	}
	secs, _ := strconv.Atoi(v)
	s, err := Build("proc", Config{Host: "h"})
	if err != nil {
		t.Fatal(err)
	}
	var buf []model.Sample
	t0 := time.Now()
	for k := 0; k <= secs; k++ {
		time.Sleep(time.Until(t0.Add(time.Duration(k) * time.Second)))
		if buf, err = s.Sample(time.Now(), buf[:0]); err != nil {
			t.Fatal(err)
		}
	}
}
