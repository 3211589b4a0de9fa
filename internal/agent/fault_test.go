package agent

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/collector/collectortest"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sampler"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/store/open"
)

// TestCollectorRestartExactlyOnce is the fault test: three agents sample at
// 10 Hz while the collector (a real HTTP server over the SQLite store on
// disk) is stopped for 2 s, store closed, and started again on the same
// address with the store reopened. The stop is abrupt (connections cut
// with requests in flight, as when the process is killed), so some batches
// may be stored without their agent hearing of it and are sent again. Afterwards the store holds every sample
// the agents produced exactly once, with its value.
func TestCollectorRestartExactlyOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("takes ~5 s")
	}
	addr := freeAddr(t)
	dsn := "sqlite:" + filepath.Join(t.TempDir(), "samples.db")
	openStore := func() store.Store {
		st, err := open.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := openStore()
	stop := collectorOn(t, addr, st)

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var fakes []*fakeSampler
	var agents []*Agent
	for i := 0; i < 3; i++ {
		f := newFake("node-"+string(rune('a'+i)), 25)
		a := testAgent(t, "http://"+addr, t.TempDir(), f, func(c *Config) {
			c.Sources[0].Interval = 100 * time.Millisecond
			c.BatchInterval = 200 * time.Millisecond
			c.MinBackoff, c.MaxBackoff = 50*time.Millisecond, 400*time.Millisecond
		})
		fakes, agents = append(fakes, f), append(agents, a)
		wg.Go(func() {
			if err := a.Run(ctx); err != nil {
				t.Errorf("agent %d: %v", i, err)
			}
		})
	}
	time.Sleep(time.Second)
	stop(true)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	spooled := int64(0)
	for _, a := range agents {
		spooled += a.Stats().Spooled
	}
	if spooled == 0 {
		t.Fatal("no batch was spooled while the collector was down")
	}
	st = openStore()
	stop = collectorOn(t, addr, st)
	time.Sleep(1500 * time.Millisecond)
	cancel()
	wg.Wait()
	stop(false)

	produced := map[model.SampleKey]float64{}
	for _, f := range fakes {
		for k, v := range f.produced() {
			produced[k] = v
		}
	}
	var total Stats
	for _, a := range agents {
		s := a.Stats()
		total.Batches += s.Batches
		total.Delivered += s.Delivered
		total.Spooled += s.Spooled
		total.Dropped += s.Dropped
		total.Duplicates += s.Duplicates
	}
	t.Logf("%d samples in %d batches, %d spooled during the outage, %d delivered, %d duplicates acknowledged",
		len(produced), total.Batches, spooled, total.Delivered, total.Duplicates)
	if total.Spooled != 0 || total.Dropped != 0 || total.Delivered != total.Batches {
		t.Fatalf("agents ended with %+v", total)
	}
	exactlyOnce(t, produced, storedKeys(t, st))
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRealProcSampler ships what the real proc sampler reads from this
// machine's /proc and finds the canonical node metrics in the store.
func TestRealProcSampler(t *testing.T) {
	s, err := sampler.Build("proc", sampler.Config{Host: "proc-test", Interval: 200 * time.Millisecond, Logger: quiet()})
	if errors.Is(err, sampler.ErrUnsupported) {
		t.Skipf("proc sampler: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	st := collectortest.NewMemStore()
	addr := freeAddr(t)
	stop := collectorOn(t, addr, st)
	defer stop(false)
	a, err := New(Config{Collector: "http://" + addr, Token: testToken, SpoolDir: t.TempDir(), Host: "proc-test",
		Sources: []Source{{Name: "proc", Sampler: s, Interval: 200 * time.Millisecond}}, BatchInterval: 300 * time.Millisecond, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	runFor(t, a, 1500*time.Millisecond)
	types := map[string]int{}
	for k := range storedKeys(t, st) {
		if k.Host != "proc-test" {
			t.Fatalf("sample for host %q", k.Host)
		}
		types[k.Type]++
	}
	for _, name := range []string{"cpu_usage", "mem_usage", "procs_total", "load1"} {
		if types[name] < 3 {
			t.Errorf("%s: %d samples stored, want ≥ 3 (types: %v)", name, types[name], types)
		}
	}
}
