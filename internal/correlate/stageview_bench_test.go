package correlate

import "testing"

// BenchmarkStageViewsScale builds the default stage views of 500,000
// tasks over an hour of 1 s samples on 100 hosts (the same input as
// BenchmarkCorrelateScale): the work beside each (stage, host), the kept
// rows' means, the run-wide quantile scale and the served bytes.
func BenchmarkStageViewsScale(b *testing.B) {
	app, fs := syntheticApp(500_000, 100)
	c := New(app, fs, Options{})
	b.ReportAllocs()
	b.SetBytes(int64(fs.Rows() * NumMetrics * 4))
	b.ResetTimer()
	for range b.N {
		c.StageViews(DefaultStageOptions())
	}
	b.ReportMetric(float64(fs.Rows())*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkStageViewsSim builds the default stage views of every
// application of the simulator's class mix, the others given as Others.
func BenchmarkStageViewsSim(b *testing.B) {
	r := runSim(b, "", 1)
	cs := make([]*Correlation, len(r.apps))
	for i, app := range r.apps {
		cs[i] = New(app, r.frames, Options{Others: r.apps})
	}
	b.ReportAllocs()
	b.SetBytes(int64(r.frames.Rows() * NumMetrics * 4 * len(r.apps)))
	b.ResetTimer()
	for range b.N {
		for _, c := range cs {
			c.StageViews(DefaultStageOptions())
		}
	}
}
