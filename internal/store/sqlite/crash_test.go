package sqlite_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/store/sqlite"
)

const (
	crashChildEnv   = "CLUSTERLENS_SQLITE_CRASH_CHILD"
	crashAgents     = 6
	crashPerBatch   = 300
	crashMaxBatches = 100_000
)

// crashBatch is agent a's batch seq: host "h<a>", one metric, times
// seq*1000 + j, so that each batch's samples can be told apart.
func crashBatch(a int, seq uint64) *metrics.Batch {
	b := &metrics.Batch{Agent: fmt.Sprintf("agent-%d", a), Seq: seq, Samples: make([]model.Sample, crashPerBatch)}
	for j := range b.Samples {
		b.Samples[j] = model.Sample{Time: int64(seq)*1000 + int64(j), Host: fmt.Sprintf("h%d", a), Type: "load1", Value: float64(j)}
	}
	return b
}

// crashChild appends batches from several agents until killed, printing
// "ack AGENT SEQ" after each Append returns.
func crashChild(path string) {
	s, err := sqlite.Open(path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for a := range crashAgents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for seq := uint64(1); seq < crashMaxBatches; seq++ {
				if _, err := s.Append(context.Background(), crashBatch(a, seq)); err != nil {
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

// TestKillDuringAppend kills a process that is appending (SIGKILL, no
// chance to clean up) and checks the file it leaves: every batch it was
// told was stored is there, every batch is there whole or not at all, and
// a re-sent batch is reported a duplicate exactly when it is there.
func TestKillDuringAppend(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillDuringAppend$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
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
			t.Fatalf("child: %s", sc.Text())
		}
		acked[[2]uint64{a, seq}] = true
		if start.IsZero() {
			start = time.Now()
		}
		if !killed && time.Since(start) > 300*time.Millisecond {
			cmd.Process.Kill() //nolint:errcheck // checked by Wait below
			killed = true
		}
	}
	cmd.Wait() //nolint:errcheck // killed on purpose
	if !killed {
		t.Fatal("child ended before it was killed")
	}

	s, err := sqlite.Open(path)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	count := map[[2]uint64]int{}
	err = s.Query(context.Background(), store.Query{}, func(x *model.Sample) error {
		var a uint64
		fmt.Sscanf(x.Host, "h%d", &a)
		count[[2]uint64{a, uint64(x.Time / 1000)}]++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k := range acked {
		if count[k] != crashPerBatch {
			t.Errorf("acknowledged batch agent-%d/%d: %d samples after the kill, want %d", k[0], k[1], count[k], crashPerBatch)
		}
	}
	stored := 0
	for a := range crashAgents {
		for seq := uint64(1); ; seq++ {
			k := [2]uint64{uint64(a), seq}
			n := count[k]
			if n != 0 && n != crashPerBatch {
				t.Errorf("batch agent-%d/%d: %d samples, want all %d or none", a, seq, n, crashPerBatch)
			}
			dup, err := s.Append(context.Background(), crashBatch(a, seq))
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
	t.Logf("killed after %d acknowledged batches; %d batches in the file", len(acked), stored)
}
