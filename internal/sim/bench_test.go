package sim

import (
	"io"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/eventlog"
	"github.com/clusterlens/clusterlens/internal/mapreduce"
	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// countingWriter counts bytes written.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// benchLarge simulates the large scenario (10,000 nodes, one hour) with
// metrics every nth node (0: off), encoding logs into counters.
func benchLarge(b *testing.B, everyNth int, horizonS float64) {
	benchLargeEnc(b, everyNth, horizonS, true)
}

// benchLargeEnc is benchLarge, encoding the logs or not.
func benchLargeEnc(b *testing.B, everyNth int, horizonS float64, encode bool) {
	for b.Loop() {
		sc := mustNamed(b, "large")
		if horizonS > 0 {
			sc.HorizonS = horizonS
		}
		sc.Metrics.Off = everyNth == 0
		sc.Metrics.EveryNth = max(everyNth, 1)
		raw := &countingWriter{}
		zc := &countingWriter{}
		var metrics io.Writer
		var zw codec.Writer
		if everyNth > 0 {
			w, err := codec.NewWriter(codec.Zstd, zc)
			if err != nil {
				b.Fatal(err)
			}
			zw = w
			metrics = io.MultiWriter(raw, zw)
		}
		start, cpu0 := time.Now(), sharedtest.ProcessCPU().Seconds()
		var tasks, logBytes, busyMs int64
		var encTime time.Duration
		apps := 0
		onApp := func(app *model.App) (string, error) {
			apps++
			tasks += int64(app.NumTasks())
			for _, st := range app.Stages {
				for i := range st.Tasks {
					busyMs += st.Tasks[i].Duration()
				}
			}
			if !encode {
				return "", nil
			}
			enc := eventlog.Write
			if app.Engine == model.MapReduce {
				enc = mapreduce.WriteJhist
			}
			c := &countingWriter{}
			t0 := time.Now()
			if err := enc(c, app); err != nil {
				return "", err
			}
			encTime += time.Since(t0)
			logBytes += c.n
			return "", nil
		}
		res, err := SimulateStream(sc, 1, metrics, onApp)
		if err != nil {
			b.Fatal(err)
		}
		if zw != nil {
			zw.Close()
		}
		var cores int64
		for _, n := range res.Truth.Nodes {
			cores += int64(n.Cores)
		}
		b.ReportMetric(time.Since(start).Seconds(), "wall-s")
		b.ReportMetric(sharedtest.ProcessCPU().Seconds()-cpu0, "cpu-s")
		b.ReportMetric(float64(busyMs)/float64(cores*int64(sc.HorizonS*1000)), "utilization")
		b.ReportMetric(float64(apps), "apps")
		b.ReportMetric(encTime.Seconds(), "encode-s")
		b.ReportMetric(float64(logBytes)/float64(tasks), "log-B/attempt")
		b.ReportMetric(float64(tasks), "attempts")
		b.ReportMetric(float64(logBytes)/1e6, "log-MB")
		b.ReportMetric(float64(res.Truth.Metrics.Samples), "node-samples")
		b.ReportMetric(float64(raw.n)/1e6, "metrics-MB")
		b.ReportMetric(float64(zc.n)/1e6, "metrics-zst-MB")
		b.ReportMetric(float64(res.Truth.EndMs-res.Truth.StartMs)/1000, "cluster-s")
	}
}

// BenchmarkLargeNoMetrics is the hour on 10,000 nodes without node metrics.
func BenchmarkLargeNoMetrics(b *testing.B) { benchLarge(b, 0, 0) }

// BenchmarkLargeSimOnly is the hour on 10,000 nodes without metrics or encoding.
func BenchmarkLargeSimOnly(b *testing.B) { benchLargeEnc(b, 0, 0, false) }

// BenchmarkLargeMetrics100 samples every 100th node (and the faulty ones) at 1 s.
func BenchmarkLargeMetrics100(b *testing.B) { benchLarge(b, 100, 0) }

// BenchmarkLargeMetricsAll5min samples every node at 1 s for a 5-minute
// horizon: the cost per node-sample, to extrapolate to the full hour.
func BenchmarkLargeMetricsAll5min(b *testing.B) { benchLarge(b, 1, 300) }

// BenchmarkMetricSamples measures one node-sample (22 rows) formatted and
// compressed with zstd, on 1,000 nodes with steady resource use.
func BenchmarkMetricSamples(b *testing.B) {
	sc := mustNamed(b, "clean")
	sc.Cluster.Nodes = 1000
	if err := sc.Resolve(); err != nil {
		b.Fatal(err)
	}
	cl := newCluster(&sc.Cluster, newRNG(1, 1))
	zc := &countingWriter{}
	zw, err := codec.NewWriter(codec.Zstd, zc)
	if err != nil {
		b.Fatal(err)
	}
	raw := &countingWriter{}
	s := newMetricSink(sc, cl, io.MultiWriter(raw, zw), newRNG(1, 4))
	for _, n := range cl.nodes {
		s.add(n, chUser, sc.StartMs, sc.StartMs+1e9, 3)
		s.add(n, chDiskR, sc.StartMs, sc.StartMs+1e9, 50e6)
		s.add(n, chBusy, sc.StartMs, sc.StartMs+1e9, 0.4)
		s.add(n, chRx, sc.StartMs, sc.StartMs+1e9, 20e6)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.emit(); err != nil {
			b.Fatal(err)
		}
	}
	s.flush()
	zw.Close()
	b.StopTimer()
	samples := float64(b.N) * float64(len(cl.nodes))
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/samples, "ns/node-sample")
	b.ReportMetric(float64(raw.n)/samples, "B/node-sample")
	b.ReportMetric(float64(zc.n)/samples, "zst-B/node-sample")
}
