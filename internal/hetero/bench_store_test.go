package hetero

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/history/sqlite"
)

// BenchmarkFitStore10kRuns1kNodes is the target as stated: fitting
// 10,000 runs × 1,000 nodes of history that is in the store, reading
// included. The runs of BenchmarkFit10kRuns1kNodes (2 stages on 100 hosts
// each, 3 tasks a host: 2 M host-stage rows) with their host facts (1 M
// rows) are written once to a SQLite run history; each iteration reads
// them back (FitStore: Runs with Detail) and fits the joint model. Run it
// with -cpu 1 (GOMAXPROCS=1): docs/PERFORMANCE.md has the numbers.
func BenchmarkFitStore10kRuns1kNodes(b *testing.B) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(5, 6))
	s := newSynth(1000, rng)
	runs := s.runs(rng, 10_000, 100, 3, 0.3, 0)
	for _, r := range runs {
		for _, h := range r.Hosts[:100] {
			r.HostFacts = append(r.HostFacts, history.HostFact{Host: h.Host, Rack: "/rack-" + h.Host[len(h.Host)-2:], Executors: 1, Cores: 4, MemoryMB: 8192})
		}
	}
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "h.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for i := 0; i < len(runs); i += 500 {
		batch := runs[i:min(i+500, len(runs))]
		for _, r := range batch {
			r.Log = fmt.Sprintf("/logs/%05d", i/500)
		}
		if err := st.Put(ctx, history.Entry{State: history.LogState{Path: fmt.Sprintf("/logs/%05d", i/500), Size: 1}, Runs: batch}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m, err := FitStore(ctx, st, nil, DefaultParams)
		if err != nil {
			b.Fatal(err)
		}
		if m.runs != len(runs) {
			b.Fatalf("fitted %d runs, want %d", m.runs, len(runs))
		}
	}
}
