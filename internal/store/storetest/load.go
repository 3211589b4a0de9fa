package storetest

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// LoadEnv names the environment variable that enables Load: a duration
// ("30s", "5m"); unset, Load skips.
const LoadEnv = "CLUSTERLENS_STORE_LOAD"

// Load plays agents agents, each shipping one batch of the 22 canonical
// metrics every second (the collector's steady load), for the duration in
// $CLUSTERLENS_STORE_LOAD. It fails if an Append fails or the store falls
// behind (an agent's appends taking longer than the run), checks that every
// sample is stored once, and logs Append latency quantiles.
func Load(t *testing.T, open Opener, agents int) {
	v := os.Getenv(LoadEnv)
	if v == "" {
		t.Skipf("%s not set (a duration such as 30s)", LoadEnv)
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s=%q: want a duration: %v", LoadEnv, v, err)
	}
	s := openT(t, open)
	ticks := int(d / time.Second)
	t0 := int64(1767225600000)
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	start := time.Now()
	errs := make(chan error, agents)
	for a := range agents {
		wg.Add(1)
		go func() {
			defer wg.Done()
			host := fmt.Sprintf("node-%03d", a)
			// Agents do not tick in step.
			next := start.Add(time.Duration(a) * time.Second / time.Duration(agents))
			for i := range ticks {
				time.Sleep(time.Until(next))
				next = next.Add(time.Second)
				b := &wire.Batch{Agent: host, Seq: uint64(i + 1), Samples: make([]model.Sample, len(model.NodeMetricNames))}
				for m, name := range model.NodeMetricNames {
					b.Samples[m] = model.Sample{Time: t0 + int64(i)*1000, Host: host, Type: name, Value: float64(i*m) / 3}
				}
				begin := time.Now()
				if _, err := s.Append(context.Background(), b); err != nil {
					errs <- err
					return
				}
				el := time.Since(begin)
				mu.Lock()
				lat = append(lat, el)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatalf("append under load: %v", err)
	}
	if elapsed > d+10*time.Second {
		t.Errorf("%d agents × %d ticks took %v: the store fell behind 1 Hz", agents, ticks, elapsed)
	}
	n := 0
	if err := s.Query(context.Background(), store.Query{}, func(*model.Sample) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	if want := agents * ticks * len(model.NodeMetricNames); n != want {
		t.Errorf("stored %d samples, want %d", n, want)
	}
	slices.Sort(lat)
	q := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))] }
	t.Logf("%d agents × %d s: %d batches, %d samples in %v; append latency p50 %v p99 %v max %v",
		agents, ticks, len(lat), n, elapsed.Round(time.Millisecond), q(0.5), q(0.99), lat[len(lat)-1])
}
