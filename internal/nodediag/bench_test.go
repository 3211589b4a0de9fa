package nodediag

import (
	"testing"

	"github.com/clusterlens/clusterlens/internal/correlate"
	"github.com/clusterlens/clusterlens/internal/peer"
)

// benchDiagnose diagnoses every application of a CPU-hog run on nodes
// nodes per iteration; bytes are the frames' rows (22 float32 metrics).
func benchDiagnose(b *testing.B, nodes int, opt Options) {
	r := simulate(b, "cpu-hog", nodes, 1)
	opt.Workload = peer.NewWorkload(r.res.Apps)
	cs := make([]*correlate.Correlation, len(r.res.Apps))
	for i, app := range r.res.Apps {
		cs[i] = correlate.New(app, r.fs, correlate.Options{})
	}
	b.SetBytes(int64(r.fs.Rows() * correlate.NumMetrics * 4))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, c := range cs {
			Diagnose(c, r.fs, opt)
		}
	}
}

// BenchmarkDiagnose50SelfTrained is analyze --metrics's added cost on 50
// nodes (four applications) with a self-trained profile per application.
func BenchmarkDiagnose50SelfTrained(b *testing.B) { benchDiagnose(b, 50, DefaultOptions()) }

// BenchmarkDiagnose50Profile is the same with a given profile (no training).
func BenchmarkDiagnose50Profile(b *testing.B) {
	opt := DefaultOptions()
	opt.Profile, opt.ProfileName = cleanProfile(b), "clean"
	benchDiagnose(b, 50, opt)
}
