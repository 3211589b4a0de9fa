package loadtest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/collector"
	"github.com/clusterlens/clusterlens/internal/collector/collectortest"
)

func timeMs(ms int64) time.Time { return time.UnixMilli(ms) }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestLoadSmall runs the load harness briefly against an in-process
// collector: a few agents, a couple of seconds, nothing lost.
func TestLoadSmall(t *testing.T) {
	st := collectortest.NewMemStore()
	srv, err := collector.New(collector.Config{Store: st, Token: "t", Logger: quiet(), ShutdownTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	res, err := Run(context.Background(), Config{Collector: "http://" + ln.Addr().String(), Token: "t", Agents: 5,
		Duration: 1500 * time.Millisecond, Interval: 200 * time.Millisecond, SpoolRoot: t.TempDir(), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	chk, err := Verify(context.Background(), st, res)
	if err != nil {
		t.Fatal(err)
	}
	if !chk.OK() || res.Spooled+res.Dropped+res.Rejected != 0 || chk.Produced < 5*5*int64(SamplesPerTick) {
		t.Fatalf("%v; agents: %d spooled, %d dropped, %d rejected", chk, res.Spooled, res.Dropped, res.Rejected)
	}
	if int64(len(res.Latencies)) != res.Batches || res.Quantile(0.99) <= 0 {
		t.Fatalf("%d latencies for %d batches, p99 %v", len(res.Latencies), res.Batches, res.Quantile(0.99))
	}
}
