package nodediag

import (
	"bytes"
	"testing"

	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/metrics"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/peer"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// simRun is one simulated run: its ground truth, applications and samples.
type simRun struct {
	res *sim.Result
	fs  *correlate.Frames
}

// simulate runs a named scenario on nodes nodes (0: its own size) with
// every node sampled.
func simulate(tb testing.TB, name string, nodes int, seed uint64) simRun {
	tb.Helper()
	sc, err := sim.Named(name)
	if err != nil {
		tb.Fatal(err)
	}
	if nodes > 0 {
		sc = sc.WithNodes(nodes)
	}
	sc.Metrics.EveryNth = 1
	var buf bytes.Buffer
	res, err := sim.SimulateTo(sc, seed, sim.Sinks{Metrics: &buf}, nil)
	if err != nil {
		tb.Fatalf("simulate %s seed %d: %v", name, seed, err)
	}
	fs := correlate.NewFrames(0, 0)
	if err := metrics.ReadCSV(&buf, "metrics.csv", func(s *model.Sample) error { fs.Add(s); return nil }); err != nil {
		tb.Fatal(err)
	}
	fs.Finish()
	return simRun{res: res, fs: fs}
}

// diagnoseAll diagnoses every application of a run, workload-aware.
func (r simRun) diagnoseAll(tb testing.TB, opt Options) []*Result {
	tb.Helper()
	opt.Workload = peer.NewWorkload(r.res.Apps)
	var out []*Result
	for _, app := range r.res.Apps {
		c := correlate.New(app, r.fs, correlate.Options{})
		out = append(out, Diagnose(c, r.fs, opt))
	}
	return out
}
