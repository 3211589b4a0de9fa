package storetest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// KillChildEnv is set, to the store's address, in the child process Kill
// starts.
const KillChildEnv = "CLUSTERLENS_STORE_KILL_CHILD"

const (
	killAgents   = 6
	killPerBatch = 300
	killMaxSeq   = 100_000
)

// killBatch is agent a's batch seq: host "h<a>", one metric, times
// seq*1000 + j, so that each batch's samples can be told apart.
func killBatch(a int, seq uint64) *wire.Batch {
	b := &wire.Batch{Agent: fmt.Sprintf("agent-%d", a), Seq: seq, Samples: make([]model.Sample, killPerBatch)}
	for j := range b.Samples {
		b.Samples[j] = model.Sample{Time: int64(seq)*1000 + int64(j), Host: fmt.Sprintf("h%d", a), Type: "load1", Value: float64(j)}
	}
	return b
}

// Kill kills a process that is appending and checks what it leaves. The
// test named test calls Kill; Kill re-runs that test in a child process
// with KillChildEnv set to addr, where open(addr) is appended to from 6
// agents until the parent kills it with SIGKILL (no chance to clean up)
// 300 ms after the first acknowledged batch. Then, in a store opened anew:
// every batch the child was told was stored is there, every batch is
// there whole or not at all (never doubled), and a re-sent batch is a
// duplicate exactly when it is there. In the child, Kill never returns.
func Kill(t *testing.T, test, addr string, open func(addr string) (store.Store, error)) {
	if a := os.Getenv(KillChildEnv); a != "" {
		killChild(a, open)
		os.Exit(0)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), KillChildEnv+"="+addr)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[[2]uint64]bool{}
	sc := bufio.NewScanner(out)
	killed := false
	var start time.Time
	for sc.Scan() {
		var a, seq uint64
		if _, err := fmt.Sscanf(sc.Text(), "ack %d %d", &a, &seq); err != nil {
			cmd.Process.Kill() //nolint:errcheck // failing anyway
			t.Fatalf("child: %s", sc.Text())
		}
		acked[[2]uint64{a, seq}] = true
		if start.IsZero() {
			start = time.Now()
		}
		if !killed && time.Since(start) > 300*time.Millisecond {
			cmd.Process.Kill() //nolint:errcheck // Wait reports it
			killed = true
		}
	}
	cmd.Wait() //nolint:errcheck // killed on purpose
	if !killed {
		t.Fatal("child ended before it was killed")
	}

	s, err := open(addr)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	count := map[[2]uint64]int{}
	err = s.Query(context.Background(), store.Query{}, func(x *model.Sample) error {
		var a uint64
		if _, err := fmt.Sscanf(x.Host, "h%d", &a); err != nil {
			return fmt.Errorf("host %q: %w", x.Host, err)
		}
		count[[2]uint64{a, uint64(x.Time / 1000)}]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range acked {
		if count[k] != killPerBatch {
			t.Errorf("acknowledged batch agent-%d/%d: %d samples after the kill, want %d", k[0], k[1], count[k], killPerBatch)
		}
	}
	stored := 0
	for a := range killAgents {
		for seq := uint64(1); ; seq++ {
			n := count[[2]uint64{uint64(a), seq}]
			if n != 0 && n != killPerBatch {
				t.Errorf("batch agent-%d/%d: %d samples, want all %d or none", a, seq, n, killPerBatch)
			}
			dup, err := s.Append(context.Background(), killBatch(a, seq))
			if err != nil {
				t.Fatal(err)
			}
			if dup != (n > 0) {
				t.Errorf("batch agent-%d/%d re-sent: dup %v with %d samples stored", a, seq, dup, n)
			}
			if n == 0 {
				break // each agent appends in order: nothing after its first missing batch
			}
			stored++
		}
	}
	t.Logf("killed after %d acknowledged batches; %d batches stored", len(acked), stored)
}

// killChild appends batches from several agents until killed, printing
// "ack AGENT SEQ" after each Append returns.
func killChild(addr string, open func(string) (store.Store, error)) {
	s, err := open(addr)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for a := range killAgents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := uint64(1); seq < killMaxSeq; seq++ {
				if _, err := s.Append(context.Background(), killBatch(a, seq)); err != nil {
					mu.Lock()
					fmt.Println("error", err)
					os.Exit(1)
				}
				mu.Lock()
				fmt.Printf("ack %d %d\n", a, seq)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
