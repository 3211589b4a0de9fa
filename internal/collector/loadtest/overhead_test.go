package loadtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestAgentOverhead measures a real `clusterlens agent` process with the
// proc sampler at 1 s shipping to a real `clusterlens collect` over
// SQLite, when CLUSTERLENS_AGENT_OVERHEAD=1: its CPU (% of one core) and
// RSS over CLUSTERLENS_LOADTEST_DURATION (default 60s), printed as one
// AGENT_OVERHEAD line. CLUSTERLENS_BIN names the binary (default: built).
func TestAgentOverhead(t *testing.T) {
	if os.Getenv("CLUSTERLENS_AGENT_OVERHEAD") != "1" {
		t.Skip("set CLUSTERLENS_AGENT_OVERHEAD=1 to measure the agent process")
	}
	duration := time.Minute
	if v := os.Getenv("CLUSTERLENS_LOADTEST_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("CLUSTERLENS_LOADTEST_DURATION: %v", err)
		}
		duration = d
	}
	dir := t.TempDir()
	bin := binary(t, dir)
	tokenFile := writeToken(t, dir, "overhead")
	addr := freePort(t)
	start := func(args ...string) (*exec.Cmd, <-chan error) {
		cmd := exec.Command(bin, args...)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		t.Cleanup(func() {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
			}
		})
		return cmd, done
	}
	coll, collDone := start("collect", "--listen", addr, "--store", "sqlite:"+filepath.Join(dir, "s.db"), "--token-file", tokenFile)
	waitHealthy(t, "http://"+addr, collDone, "/dev/null")
	ag, agDone := start("agent", "--collector", "http://"+addr, "--token-file", tokenFile, "--spool", filepath.Join(dir, "spool"),
		"--samplers", "proc", "--interval", "1s", "--host", "overhead-node")
	time.Sleep(3 * time.Second) // start-up and the first rates
	cpu0 := procCPU(t, ag.Process.Pid)
	time.Sleep(duration)
	cpu := procCPU(t, ag.Process.Pid) - cpu0
	rss := procStatusKB(t, ag.Process.Pid, "VmRSS")
	hwm := procStatusKB(t, ag.Process.Pid, "VmHWM")
	ag.Process.Signal(syscall.SIGTERM)
	if err := <-agDone; err != nil {
		t.Fatalf("agent: %v", err)
	}
	coll.Process.Signal(syscall.SIGTERM)
	if err := <-collDone; err != nil {
		t.Fatalf("collector: %v", err)
	}
	fmt.Printf("AGENT_OVERHEAD samplers=proc interval=1s duration=%s cpu=%.2f%% rss=%dKiB rss_peak=%dKiB\n",
		duration, 100*cpu/duration.Seconds(), rss, hwm)
}
