package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/agent"
	"github.com/clusterlens/clusterlens/internal/agentcmd"
	"github.com/clusterlens/clusterlens/internal/collector"
	"github.com/clusterlens/clusterlens/internal/collector/collectortest"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/store"
)

// TestAgentBinaryShipsToCollector builds the agent alone, runs it as a
// process against a collector for about two seconds at 5 Hz, and stops
// it with SIGTERM: it exits 0, and the collector stored this node's CPU
// samples under the --host name.
func TestAgentBinaryShipsToCollector(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skip("the proc sampler needs /proc")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "clusterlens-agent")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	st := collectortest.NewMemStore()
	srv, err := collector.New(collector.Config{Token: "tok-agent", Store: st})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()

	cmd := exec.Command(bin, "--collector", "http://"+ln.Addr().String(), "--spool", filepath.Join(dir, "spool"),
		"--host", "agent-test-node", "--samplers", "proc", "--interval", "200ms")
	cmd.Env = append(os.Environ(), agent.TokenEnv+"=tok-agent")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		n := 0
		st.Query(ctx, store.Query{Hosts: []string{"agent-test-node"}, Types: []string{"cpu_usage"}}, func(*model.Sample) error { n++; return nil })
		return n
	}
	deadline := time.Now().Add(20 * time.Second)
	for count() < 5 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("agent after SIGTERM: %v, want exit 0", err)
	}
	if n := count(); n < 5 {
		t.Errorf("%d cpu_usage samples of agent-test-node stored, want at least 5", n)
	}
	cancel()
	if err := <-served; err != nil {
		t.Errorf("collector: %v", err)
	}
}

// TestUsage: a wrong command line exits 2 with one line naming the
// fault.
func TestUsage(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(agent.TokenEnv, "")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{nil, "--collector is required"},
		{[]string{"--collector", "http://127.0.0.1:1", "--spool", dir}, "a token is required"},
		{[]string{"--bogus"}, "unknown flag: --bogus"},
		{[]string{"extra"}, "unknown command"},
	} {
		var out, errb strings.Builder
		if code := agentcmd.Main(c.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.msg) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb.String(), c.msg)
		}
	}
}
