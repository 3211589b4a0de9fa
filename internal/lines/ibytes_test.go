package lines

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/dustin/go-humanize"
)

// TestIBytesAsHumanize: IBytes writes what go-humanize's IBytes writes,
// at the edges of every unit and on random sizes.
func TestIBytesAsHumanize(t *testing.T) {
	var ns []uint64
	for e := 0; e < 64; e++ {
		p := uint64(1) << e
		ns = append(ns, p-1, p, p+1, p/10*10, p+p/20)
	}
	for _, d := range []float64{9.94, 9.95, 9.96, 9.99, 10, 99.5, 1023.4, 1023.5} {
		for e := 0.0; e < 6; e++ {
			ns = append(ns, uint64(d*math.Pow(1024, e)))
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100_000 {
		ns = append(ns, r.Uint64()>>r.IntN(64))
	}
	for _, n := range ns {
		if got, want := IBytes(n), humanize.IBytes(n); got != want {
			t.Fatalf("IBytes(%d) = %q, humanize says %q", n, got, want)
		}
	}
}
