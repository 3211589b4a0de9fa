package metrics

import (
	"bytes"
	"sync"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
	"github.com/clusterlens/clusterlens/internal/sim"
)

// simCSV is the simulator's metric CSV for the named "clean" scenario,
// seed 1 (12 nodes, 22 metrics a second), made once.
var simCSV = sync.OnceValues(func() ([]byte, error) {
	sc, err := sim.Named("clean")
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if _, err := sim.SimulateTo(sc, 1, sim.Sinks{Metrics: &buf}, func(*model.App) (string, error) { return "", nil }); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
})

func simCSVBytes(tb testing.TB) []byte {
	tb.Helper()
	b, err := simCSV()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// BenchmarkReadCSV reads the simulator's metric CSV (one sample a row).
func BenchmarkReadCSV(b *testing.B) {
	data := simCSVBytes(b)
	benchSamples(b, data, func(fn func(*model.Sample) error) error {
		return ReadCSV(bytes.NewReader(data), "metrics.csv", fn)
	})
}
