package codec

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/klauspost/compress/snappy"
)

var (
	benchOnce  sync.Once
	benchPlain []byte
)

// benchText returns about 8 MiB of real Spark event-log text: the lines of
// real plain logs from shared/data, repeated.
func benchText(b *testing.B) []byte {
	dir := sharedtest.Dir(b, "logs")
	benchOnce.Do(func() {
		var src []byte
		for _, p := range []string{
			"sparklint/src/test/resources/spark_event_log_example",
			"apache-spark/core/src/test/resources/spark-events/application_1628109047826_1317105",
			"apache-spark/sql/core/src/test/resources/spark-events/local-1596020211915",
		} {
			data, err := os.ReadFile(filepath.Join(dir, p))
			if err != nil {
				b.Fatal(err)
			}
			src = append(src, data...)
		}
		var out bytes.Buffer
		for out.Len() < 8<<20 {
			out.Write(src)
		}
		benchPlain = out.Bytes()
	})
	if benchPlain == nil {
		b.Fatal("no benchmark text")
	}
	return benchPlain
}

// BenchmarkDecode measures decompression through Open, in MB/s of
// decompressed text, for each codec's stream as Spark's defaults frame it.
func BenchmarkDecode(b *testing.B) {
	plain := benchText(b)
	for _, c := range append([]Codec{None}, Codecs()...) {
		data, _ := compress(b, c, plain, 0)
		b.Run(c.String(), func(b *testing.B) {
			b.SetBytes(int64(len(plain)))
			b.ReportAllocs()
			rd := bytes.NewReader(data)
			for b.Loop() {
				rd.Reset(data)
				r, _, err := Open("bench"+c.Extension(), rd)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, r)
				if err != nil || n != int64(len(plain)) {
					b.Fatalf("%d bytes, %v", n, err)
				}
				r.Close()
			}
			b.ReportMetric(float64(len(data))/float64(len(plain)), "ratio")
		})
	}
}

// BenchmarkDecodePeer measures peers on the same text: the standard
// library's gzip against klauspost's (which Open uses), and klauspost's
// snappy framing reader against ours.
func BenchmarkDecodePeer(b *testing.B) {
	plain := benchText(b)
	gz, _ := compress(b, Gzip, plain, 0)
	var framed bytes.Buffer
	w := snappy.NewBufferedWriter(&framed)
	w.Write(plain)
	w.Close()
	for _, tc := range []struct {
		name string
		data []byte
		open func(io.Reader) (io.Reader, error)
	}{
		{"gzip-stdlib", gz, func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
		{"gzip-ours", gz, func(r io.Reader) (io.Reader, error) { return NewReader(Gzip, "b", r) }},
		{"snappy-framed-klauspost", framed.Bytes(), func(r io.Reader) (io.Reader, error) { return snappy.NewReader(r), nil }},
		{"snappy-framed-ours", framed.Bytes(), func(r io.Reader) (io.Reader, error) { return NewReader(Snappy, "b", r) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(plain)))
			b.ReportAllocs()
			for b.Loop() {
				r, err := tc.open(bytes.NewReader(tc.data))
				if err != nil {
					b.Fatal(err)
				}
				if n, err := io.Copy(io.Discard, r); err != nil || n != int64(len(plain)) {
					b.Fatalf("%d bytes, %v", n, err)
				}
			}
		})
	}
}
