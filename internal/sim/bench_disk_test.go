package sim

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// maxRSSMB is the process's peak resident memory so far, in MB.
func maxRSSMB() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024 // kilobytes on Linux
}

// benchDisk runs the large scenario with Run, as `clusterlens simulate`
// does, writing every log to disk with Spark event logs in zstd (Spark 4's
// default) and .jhist plain (as Hadoop writes them), and the metrics the
// scenario samples. CL_BENCH_NODES scales the cluster and the arrival rate
// down for quick runs (default 10,000 nodes); CL_BENCH_OUT keeps the output
// in that folder instead of a temporary one. After the timed run it counts
// the bytes written and decompresses the Spark logs to count their size.
func benchDisk(b *testing.B) {
	nodes := 10000
	if s := os.Getenv("CL_BENCH_NODES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 100 {
			b.Fatalf("CL_BENCH_NODES=%q: want a node count of at least 100", s)
		}
		nodes = n
	}
	for b.Loop() {
		sc := mustNamed(b, "large")
		if nodes != sc.Cluster.Nodes {
			f := float64(nodes) / float64(sc.Cluster.Nodes)
			sc.Cluster.Racks = max(1, int(float64(sc.Cluster.Racks)*f))
			sc.Arrivals.PerMinute *= f
			for i := range sc.Faults {
				sc.Faults[i].Node = sc.Faults[i].Node * nodes / sc.Cluster.Nodes
			}
			sc.Cluster.Nodes = nodes
		}
		sc.Output.SparkCodec = "zstd"
		out := os.Getenv("CL_BENCH_OUT")
		if out == "" {
			out = b.TempDir()
		}
		start, cpu0 := time.Now(), sharedtest.ProcessCPU().Seconds()
		res, err := Run(sc, 1, out, testEncoders)
		if err != nil {
			b.Fatal(err)
		}
		wall, cpu := time.Since(start), sharedtest.ProcessCPU().Seconds()-cpu0
		b.StopTimer()
		sizes, err := treeSizes(out)
		if err != nil {
			b.Fatal(err)
		}
		var attempts int64
		for _, a := range res.Truth.Apps {
			attempts += int64(a.Attempts)
		}
		b.ReportMetric(cpu, "cpu-s")
		b.ReportMetric(wall.Seconds(), "wall-s")
		b.ReportMetric(maxRSSMB(), "peak-RSS-MB")
		b.ReportMetric(float64(len(res.Truth.Apps)), "apps")
		b.ReportMetric(float64(sizes.sparkFiles), "spark-logs")
		b.ReportMetric(float64(sizes.spark)/1e6, "spark-zst-MB")
		b.ReportMetric(float64(sizes.sparkRaw)/1e6, "spark-raw-MB")
		b.ReportMetric(float64(sizes.jhist)/1e6, "jhist-MB")
		b.ReportMetric(float64(sizes.metrics)/1e6, "metrics-zst-MB")
		b.ReportMetric(float64(sizes.other)/1e6, "other-MB")
		b.ReportMetric(float64(res.Truth.Metrics.Samples), "node-samples")
		b.StartTimer()
	}
}

// outputSizes are the bytes of a Run's output folder by kind.
type outputSizes struct {
	sparkFiles                             int
	spark, sparkRaw, jhist, metrics, other int64
}

// treeSizes sums the files under dir by kind and decompresses the zstd
// Spark logs to count their bytes.
func treeSizes(dir string) (outputSizes, error) {
	var s outputSizes
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return s, err
	}
	defer dec.Close()
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case strings.HasPrefix(rel, SparkDir+string(filepath.Separator)):
			s.sparkFiles++
			s.spark += fi.Size()
			if !strings.HasSuffix(p, ".zstd") {
				s.sparkRaw += fi.Size()
				return nil
			}
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			if err := dec.Reset(f); err != nil {
				return err
			}
			n, err := io.Copy(io.Discard, dec)
			s.sparkRaw += n
			return err
		case strings.HasSuffix(rel, ".jhist"):
			s.jhist += fi.Size()
		case rel == MetricsFile:
			s.metrics += fi.Size()
		default:
			s.other += fi.Size()
		}
		return nil
	})
	return s, err
}

// BenchmarkLargeToDisk is the hour on 10,000 nodes written to disk with
// Run: Spark logs in zstd, .jhist plain, metrics as the scenario samples
// them (every 100th node and the faulty ones, at 1 s).
func BenchmarkLargeToDisk(b *testing.B) { benchDisk(b) }
