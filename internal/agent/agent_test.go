package agent

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/collector"
	"github.com/clusterlens/clusterlens/internal/collector/collectortest"
	"github.com/clusterlens/clusterlens/internal/wire"
)

func testAgent(t *testing.T, url, spool string, f *fakeSampler, mut func(*Config)) *Agent {
	t.Helper()
	cfg := Config{Collector: url, Token: testToken, SpoolDir: spool, Host: f.host,
		Sources:       []Source{{Name: "fake", Sampler: f, Interval: 50 * time.Millisecond}},
		BatchInterval: 100 * time.Millisecond, MinBackoff: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond,
		Logger: quiet()}
	if mut != nil {
		mut(&cfg)
	}
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func runFor(t *testing.T, a *Agent, d time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	if err := a.Run(ctx); err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// TestStoreDownSpoolsAndReplaysInOrder: while the store fails (503) the
// agent spools; once it works again the spool is replayed oldest first
// and every sample is stored exactly once.
func TestStoreDownSpoolsAndReplaysInOrder(t *testing.T) {
	st := collectortest.NewMemStore()
	var mu sync.Mutex
	var order []uint64
	srv, err := collector.New(collector.Config{Store: st, Token: testToken, Logger: quiet(), OnBatch: func(b *wire.Batch) {
		mu.Lock()
		order = append(order, b.Seq)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	f := newFake("n1", 30)
	a := testAgent(t, hs.URL, t.TempDir(), f, nil)
	st.Fail(errors.New("disk full"))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	time.Sleep(600 * time.Millisecond)
	if s := a.Stats(); s.Spooled < 3 || s.Delivered != 0 {
		t.Fatalf("while the store was down: %+v, want ≥ 3 spooled, 0 delivered", s)
	}
	st.Fail(nil)
	time.Sleep(600 * time.Millisecond)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	s := a.Stats()
	if s.Spooled != 0 || s.Dropped != 0 || s.Rejected != 0 || s.Delivered != s.Batches {
		t.Fatalf("after recovery: %+v", s)
	}
	for i := 1; i < len(order); i++ {
		if order[i] <= order[i-1] {
			t.Fatalf("batches stored out of order: %v", order)
		}
	}
	exactlyOnce(t, f.produced(), storedKeys(t, st))
}

// TestRestartContinuesSequenceAndReplaysSpool: batches spooled by one run
// (collector down) are delivered by the next run, whose batch numbers
// continue above the first run's.
func TestRestartContinuesSequenceAndReplaysSpool(t *testing.T) {
	addr := freeAddr(t)
	dir := t.TempDir()
	f := newFake("n1", 5)
	a := testAgent(t, "http://"+addr, dir, f, nil)
	runFor(t, a, 400*time.Millisecond)
	first := a.Stats()
	if first.Spooled == 0 || first.Spooled != first.Batches {
		t.Fatalf("first run against no collector: %+v", first)
	}
	id := a.ID()

	st := collectortest.NewMemStore()
	stop := collectorOn(t, addr, st)
	defer stop(false)
	a2 := testAgent(t, "http://"+addr, dir, f, nil)
	if a2.ID() != id || !strings.HasPrefix(id, "n1-") {
		t.Fatalf("agent id %q after restart, want %q (host prefix n1-)", a2.ID(), id)
	}
	runFor(t, a2, 400*time.Millisecond)
	if s := a2.Stats(); s.Spooled != 0 || s.Delivered != first.Spooled+s.Batches {
		t.Fatalf("second run: %+v, first %+v", s, first)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "batches"))
	if len(ents) != 0 {
		t.Fatalf("spool not empty: %d files", len(ents))
	}
	exactlyOnce(t, f.produced(), storedKeys(t, st))
	// The second run numbered its batches after the first run's lease.
	q, err := openSequencer(filepath.Join(dir, "seq"))
	if err != nil || q.next != 2*seqLease+1 {
		t.Fatalf("sequence after two runs: next %d, %v; want %d", q.next, err, 2*seqLease+1)
	}
}

// TestRejectedBatchesAreDropped: a batch the collector refuses (413) is
// dropped, not retried forever; a wrong token keeps batches for later.
func TestRejectedBatchesAreDropped(t *testing.T) {
	st := collectortest.NewMemStore()
	srv, _ := collector.New(collector.Config{Store: st, Token: testToken, Logger: quiet(), MaxBodyBytes: 64})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	a := testAgent(t, hs.URL, t.TempDir(), newFake("n1", 40), nil)
	runFor(t, a, 500*time.Millisecond)
	if s := a.Stats(); s.Rejected == 0 || s.Rejected != s.Batches || s.Spooled != 0 || st.Batches() != 0 {
		t.Fatalf("413: %+v", s)
	}

	srv2, _ := collector.New(collector.Config{Store: st, Token: "other", Logger: quiet()})
	hs2 := httptest.NewServer(srv2.Handler())
	defer hs2.Close()
	a = testAgent(t, hs2.URL, t.TempDir(), newFake("n1", 4), nil)
	runFor(t, a, 300*time.Millisecond)
	if s := a.Stats(); s.Rejected != 0 || s.Spooled != s.Batches || s.Batches == 0 {
		t.Fatalf("401: %+v", s)
	}
}

func TestSpoolBound(t *testing.T) {
	dir := t.TempDir()
	s, err := openSpool(dir, 1000, quiet())
	if err != nil {
		t.Fatal(err)
	}
	for seq := uint64(1); seq <= 10; seq++ {
		if err := s.add(seq, make([]byte, 300)); err != nil {
			t.Fatal(err)
		}
	}
	if s.len() != 3 || s.dropped.Load() != 7 || s.size != 900 {
		t.Fatalf("spool holds %d (%d bytes), dropped %d; want 3, 900, 7", s.len(), s.size, s.dropped.Load())
	}
	if err := s.add(11, make([]byte, 1001)); err != nil || s.dropped.Load() != 8 || s.len() != 3 {
		t.Fatalf("oversized batch: %v, dropped %d", err, s.dropped.Load())
	}
	os.WriteFile(filepath.Join(dir, "00000000000000000012.clb.tmp"), []byte("x"), 0o600)
	s2, err := openSpool(dir, 1000, quiet())
	if err != nil {
		t.Fatal(err)
	}
	seq, data, err := s2.oldest()
	if s2.len() != 3 || seq != 8 || len(data) != 300 || err != nil {
		t.Fatalf("reopened spool: %d batches, oldest %d (%d bytes), %v", s2.len(), seq, len(data), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "00000000000000000012.clb.tmp")); err == nil {
		t.Fatal("leftover temporary file kept")
	}
}

func TestNewErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{SpoolDir: "x", Collector: "http://h"}, "token"},
		{Config{Token: "t", Collector: "http://h"}, "spool"},
		{Config{Token: "t", SpoolDir: "x", Collector: "127.0.0.1:9470"}, `want an http:// or https:// URL`},
	} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): %v, want %q", c.cfg, err, c.want)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "seq"), []byte("garbage"), 0o600)
	if _, err := New(Config{Token: "t", SpoolDir: dir, Collector: "http://h", Host: "h"}); err == nil || !strings.Contains(err.Error(), `want a number, got "garbage"`) {
		t.Errorf("bad seq file: %v", err)
	}
}

// TestBatchesSplitAtMaxSamples: a tick larger than MaxBatchSamples is
// shipped in several batches, none larger than the bound.
func TestBatchesSplitAtMaxSamples(t *testing.T) {
	st := collectortest.NewMemStore()
	var mu sync.Mutex
	var sizes []int
	srv, _ := collector.New(collector.Config{Store: st, Token: testToken, Logger: quiet(), OnBatch: func(b *wire.Batch) {
		mu.Lock()
		sizes = append(sizes, len(b.Samples))
		mu.Unlock()
	}})
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()
	f := newFake("n1", 25)
	a := testAgent(t, hs.URL, t.TempDir(), f, func(c *Config) { c.MaxBatchSamples = 10 })
	runFor(t, a, 400*time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(sizes) < 6 {
		t.Fatalf("%d batches, want ≥ 6", len(sizes))
	}
	for _, n := range sizes {
		if n > 10 {
			t.Fatalf("batch of %d samples, bound 10: %v", n, sizes)
		}
	}
	exactlyOnce(t, f.produced(), storedKeys(t, st))
}
