package storetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/store"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// BenchOpener opens an empty store for a benchmark; the benchmark closes it.
type BenchOpener func(b *testing.B) store.Store

// agentBatch is what one agent ships for 10 s of 1 Hz sampling: the 22
// canonical metrics × 10 seconds = 220 samples.
func agentBatch(agent string, seq uint64) *wire.Batch {
	b := &wire.Batch{Agent: agent, Seq: seq, Samples: make([]model.Sample, 0, 10*len(model.NodeMetricNames))}
	t0 := 1767225600000 + int64(seq)*10000
	for s := range int64(10) {
		for i, name := range model.NodeMetricNames {
			b.Samples = append(b.Samples, model.Sample{Time: t0 + s*1000, Host: agent, Type: name, Value: float64(i) + float64(s)/7})
		}
	}
	return b
}

// report adds samples/s (wall clock) and samples/cpu-s (this process's
// CPU; a server's work, ClickHouse's, is not in it).
func report(b *testing.B, samples int, wall time.Duration, cpu0 float64) {
	b.ReportMetric(float64(samples)/wall.Seconds(), "samples/s")
	if cpu := sharedtest.ProcessCPU().Seconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(samples)/cpu, "samples/cpu-s")
	}
}

// Bench measures a store: Append of agent batches (220 samples) one at a
// time and from 64 concurrent agents, and Query of everything stored.
// Each reports samples/s.
func Bench(b *testing.B, open BenchOpener) {
	b.Run("Append", func(b *testing.B) {
		s := open(b)
		defer s.Close()
		b.ReportAllocs()
		b.ResetTimer()
		cpu0 := sharedtest.ProcessCPU().Seconds()
		for i := range b.N {
			if _, err := s.Append(context.Background(), agentBatch("node-1", uint64(i+1))); err != nil {
				b.Fatal(err)
			}
		}
		report(b, b.N*10*len(model.NodeMetricNames), b.Elapsed(), cpu0)
	})
	b.Run("AppendConcurrent64", func(b *testing.B) {
		s := open(b)
		defer s.Close()
		b.ReportAllocs()
		b.SetParallelism(64) // × GOMAXPROCS goroutines, each an agent
		var agents atomic.Int64
		b.ResetTimer()
		cpu0 := sharedtest.ProcessCPU().Seconds()
		b.RunParallel(func(pb *testing.PB) {
			agent := fmt.Sprintf("node-%d", agents.Add(1))
			for seq := uint64(1); pb.Next(); seq++ {
				if _, err := s.Append(context.Background(), agentBatch(agent, seq)); err != nil {
					b.Error(err)
					return
				}
			}
		})
		report(b, b.N*10*len(model.NodeMetricNames), b.Elapsed(), cpu0)
	})
	b.Run("Query", func(b *testing.B) {
		s := open(b)
		defer s.Close()
		const agents, batches = 20, 25 // 110,000 samples
		for a := range agents {
			for q := range batches {
				if _, err := s.Append(context.Background(), agentBatch(fmt.Sprintf("node-%02d", a), uint64(q+1))); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportAllocs()
		b.ResetTimer()
		n := 0
		start, cpu0 := time.Now(), sharedtest.ProcessCPU().Seconds()
		for range b.N {
			err := s.Query(context.Background(), store.Query{}, func(*model.Sample) error { n++; return nil })
			if err != nil {
				b.Fatal(err)
			}
		}
		if want := b.N * agents * batches * 10 * len(model.NodeMetricNames); n != want {
			b.Fatalf("query read %d samples, want %d", n, want)
		}
		report(b, n, time.Since(start), cpu0)
	})
}
