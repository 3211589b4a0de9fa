package live

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/peer"
	samplesqlite "github.com/clusterlens/clusterlens/internal/store/sqlite"
	"github.com/clusterlens/clusterlens/internal/wire"
)

// tick is one second of n nodes' Ganesha metrics at t, each value
// v(host, metric, t).
func tick(seq uint64, n int, t int64, v func(h, m int, t int64) float64) *wire.Batch {
	b := &wire.Batch{Agent: "test", Seq: seq}
	for h := range n {
		for m, name := range peer.GaneshaMetrics {
			b.Samples = append(b.Samples, model.Sample{Host: fmt.Sprintf("node%04d", h), Type: name, Time: t, Value: v(h, m, t)})
		}
	}
	return b
}

// BenchmarkNodesPoll measures one poll of the live node feed over a
// SQLite store after the collector stored one more second of 1,000
// nodes' samples (14 Ganesha metrics each), without a profile.
func BenchmarkNodesPoll(b *testing.B) {
	ctx := context.Background()
	st, err := samplesqlite.Open(filepath.Join(b.TempDir(), "s.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	const n = 1000
	t0 := time.Now().Add(-time.Hour).UnixMilli()
	now := t0
	feed, err := NewNodes(NodesOptions{Store: st, Now: func() time.Time { return time.UnixMilli(now) }})
	if err != nil {
		b.Fatal(err)
	}
	v := func(h, m int, t int64) float64 { return float64(h + m) }
	seq := uint64(0)
	for range 30 {
		seq++
		now += 1000
		if _, err := st.Append(ctx, tick(seq, n, now, v)); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := feed.Poll(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		seq++
		now += 1000
		if _, err := st.Append(ctx, tick(seq, n, now, v)); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		news, err := feed.Poll(ctx)
		if err != nil || !news {
			b.Fatalf("poll: news %v, %v", news, err)
		}
	}
	b.ReportMetric(float64(n*len(peer.GaneshaMetrics)), "samples/poll")
}
