package loadtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/store/open"
)

// TestCollectorKill9 is the fault test with a real process, run with the
// load test (CLUSTERLENS_LOADTEST=1): 20 agents at 10 Hz ship to a
// `clusterlens collect` process over SQLite; the process is killed with
// SIGKILL (no shutdown, requests in flight cut, the database left as the
// kernel had it), and started again on the same address 2 s later. The
// store must end up holding every sample the agents produced exactly once.
func TestCollectorKill9(t *testing.T) {
	if os.Getenv("CLUSTERLENS_LOADTEST") != "1" {
		t.Skip("set CLUSTERLENS_LOADTEST=1 to run the fault test with a real collector process")
	}
	dir := t.TempDir()
	bin := binary(t, dir)
	tokenFile := writeToken(t, dir, "kill9")
	dsn := "sqlite:" + filepath.Join(dir, "samples.db")
	addr := freePort(t)
	base := "http://" + addr
	start := func() (*exec.Cmd, <-chan error) {
		cmd := exec.Command(bin, "collect", "--listen", addr, "--store", dsn, "--token-file", tokenFile)
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
		waitHealthy(t, base, done, "/dev/null")
		return cmd, done
	}
	coll, done := start()

	type outcome struct {
		res *Result
		err error
	}
	ran := make(chan outcome, 1)
	go func() {
		res, err := Run(context.Background(), Config{Collector: base, Token: "kill9", Agents: 20, Duration: 7 * time.Second,
			Interval: 100 * time.Millisecond, SpoolRoot: filepath.Join(dir, "spools"), Logger: quiet()})
		ran <- outcome{res, err}
	}()
	time.Sleep(2500 * time.Millisecond)
	coll.Process.Signal(syscall.SIGKILL)
	<-done
	time.Sleep(2 * time.Second)
	coll, done = start()
	o := <-ran
	if o.err != nil {
		t.Fatal(o.err)
	}
	coll.Process.Signal(syscall.SIGTERM)
	if err := <-done; err != nil {
		t.Fatalf("collector: %v", err)
	}
	st, err := open.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	chk, err := Verify(context.Background(), st, o.res)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("KILL9 agents=20 rate=10Hz batches=%d duplicates_acknowledged=%d spooled_at_end=%d dropped=%d check=%q\n",
		o.res.Batches, o.res.Duplicates, o.res.Spooled, o.res.Dropped, chk)
	if !chk.OK() || o.res.Spooled+o.res.Dropped+o.res.Rejected != 0 {
		t.Fatalf("%v; agents: %d spooled, %d dropped, %d rejected", chk, o.res.Spooled, o.res.Dropped, o.res.Rejected)
	}
}
