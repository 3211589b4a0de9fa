package metrics

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/codec"
	"github.com/clusterlens/clusterlens/internal/model"
)

// benchSadf builds a sadf -j document of records copies of the first
// record of testdata/sadf-12.json (real sysstat 12.6 output).
func benchSadf(tb testing.TB, records int) []byte {
	tb.Helper()
	b, err := os.ReadFile("testdata/sadf-12.json")
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		Sysstat struct {
			Hosts []struct {
				Statistics []json.RawMessage `json:"statistics"`
			} `json:"hosts"`
		} `json:"sysstat"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		tb.Fatal(err)
	}
	rec := doc.Sysstat.Hosts[0].Statistics[0]
	var buf bytes.Buffer
	buf.WriteString(`{"sysstat": {"hosts": [{"nodename": "n1", "timezone": "UTC", "statistics": [`)
	for i := range records {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(rec)
	}
	buf.WriteString("]}]}}\n")
	return buf.Bytes()
}

// BenchmarkReadSysstat reads sadf -j output (22 samples per record).
func BenchmarkReadSysstat(b *testing.B) {
	data := benchSadf(b, 2000)
	benchSamples(b, data, func(fn func(*model.Sample) error) error {
		return ReadSysstat(bytes.NewReader(data), "bench.json", fn)
	})
}

// benchProm builds a query_range answer of series series of points points.
func benchProm(series, points int) []byte {
	var b strings.Builder
	b.WriteString(`{"status":"success","data":{"resultType":"matrix","result":[`)
	for s := range series {
		if s > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"metric":{"instance":"10.0.%d.%d:9100"},"values":[`, s/256, s%256)
		for p := range points {
			if p > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `[%d.%03d,"%g"]`, 1700000000+p, p%1000, float64(p%977)*1.37)
		}
		b.WriteString("]}")
	}
	b.WriteString("]}}")
	return []byte(b.String())
}

// BenchmarkPromParse parses a range-query answer (100 series × 3,600 points).
func BenchmarkPromParse(b *testing.B) {
	data := benchProm(100, 3600)
	benchSamples(b, data, func(fn func(*model.Sample) error) error {
		var s model.Sample
		_, err := promParseMatrix(bytes.NewReader(data), func(_ string, pts []promPoint) error {
			for range pts {
				if err := fn(&s); err != nil {
					return err
				}
			}
			return nil
		})
		return err
	})
}

// BenchmarkReadCSVFileZstd reads the simulator's metrics as it writes
// them, zstd-compressed, decompression included.
func BenchmarkReadCSVFileZstd(b *testing.B) {
	data := simCSVBytes(b)
	path := filepath.Join(b.TempDir(), "metrics.csv.zst")
	writeCodec(b, path, codec.Zstd, data)
	benchSamples(b, data, func(fn func(*model.Sample) error) error { return ReadCSVFile(path, fn) })
}

// benchSamples runs read, reporting the input's (uncompressed) bytes/s,
// samples/s and samples per CPU second of the process (the machine may be
// shared: CPU time is what the reader costs).
func benchSamples(b *testing.B, data []byte, read func(func(*model.Sample) error) error) {
	n := 0
	count := func(*model.Sample) error { n++; return nil }
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := benchCPU()
	for b.Loop() {
		if err := read(count); err != nil {
			b.Fatal(err)
		}
	}
	cpu := benchCPU() - cpu0
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "samples/s")
	if cpu > 0 {
		b.ReportMetric(float64(n)/cpu, "samples/cpu-s")
	}
}

// benchCPU is the process's user and system CPU time in seconds.
func benchCPU() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
