package eventlog

import (
	"bufio"
	"io"
	"os"
	"testing"

	"github.com/valyala/fastjson"

	"github.com/clusterlens/clusterlens/internal/lines"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// The peer for the decoder's speed (docs/PERFORMANCE.md): valyala/fastjson,
// one of Go's fastest JSON parsers, parsing every line of the same log into
// its DOM and dropping it. It reads the file in reads of the decoder's size
// (lines.DefaultBlock), lines not copied (its parser copies the line
// itself); it builds no model, but cannot skip what no analysis reads
// either.

// BenchmarkDecodeFastjson is BenchmarkDecode's log through fastjson.
func BenchmarkDecodeFastjson(b *testing.B) { benchFastjson(b, benchLog(b, 256<<20)) }

// BenchmarkDecodeSQLFastjson is BenchmarkDecodeSQL's log through fastjson.
func BenchmarkDecodeSQLFastjson(b *testing.B) { benchFastjson(b, sqlBenchLog(b)) }

func benchFastjson(b *testing.B, path string) {
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	var p fastjson.Parser
	cpu := sharedtest.ProcessCPU().Seconds()
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		if n := fastjsonLines(b, &p, f); n == 0 {
			b.Fatal("no line parsed")
		}
		f.Close()
	}
	secs := sharedtest.ProcessCPU().Seconds() - cpu
	b.ReportMetric(float64(st.Size())*float64(b.N)/secs/1e6, "MB/cpu-s")
}

// fastjsonLines parses every non-blank line of r with p and returns how
// many it parsed.
func fastjsonLines(tb testing.TB, p *fastjson.Parser, r io.Reader) int {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, lines.DefaultBlock), 64<<20)
	n := 0
	for sc.Scan() {
		if line := sc.Bytes(); len(line) > 0 {
			if _, err := p.ParseBytes(line); err != nil {
				tb.Fatalf("line %d: %v", n+1, err)
			}
			n++
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return n
}
