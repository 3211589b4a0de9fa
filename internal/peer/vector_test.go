package peer

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/clusterlens/clusterlens/internal/model"
)

// TestTableMatchesAssembler: the samples of a simulated run, shuffled,
// give the Table exactly the vectors the Assembler builds from the file
// order (an independent path: per-host streaming against sort-then-emit).
func TestTableMatchesAssembler(t *testing.T) {
	r := simulate(t, "disk-hog", 10, 31)
	var samples []model.Sample
	r.replay(t, func(s *model.Sample) { samples = append(samples, *s) })
	type vec struct {
		host string
		t    int64
		x    []float64
	}
	var want []vec
	a := NewAssembler(GaneshaMetrics)
	for i := range samples {
		a.Add(&samples[i], func(h string, ts int64, x []float64) { want = append(want, vec{h, ts, slices.Clone(x)}) })
	}
	rng := rand.New(rand.NewPCG(1, 1))
	rng.Shuffle(len(samples), func(i, j int) { samples[i], samples[j] = samples[j], samples[i] })
	tb := NewTable(GaneshaMetrics)
	for i := range samples[:len(samples)-1] { // the last one dropped: one incomplete vector
		tb.Add(&samples[i])
	}
	var got []vec
	incomplete := tb.Each(func(h string, ts int64, x []float64) { got = append(got, vec{h, ts, slices.Clone(x)}) })
	cmpVec := func(a, b vec) int {
		if a.t != b.t {
			return int(a.t - b.t)
		}
		return cmp.Compare(a.host, b.host)
	}
	slices.SortFunc(want, cmpVec)
	dropped := samples[len(samples)-1]
	isGanesha := slices.Contains(GaneshaMetrics, dropped.Type)
	if isGanesha && (incomplete != 1 || len(got) != len(want)-1) || !isGanesha && (incomplete != 0 || len(got) != len(want)) {
		t.Fatalf("%d vectors, %d incomplete; assembler %d (dropped a %s sample)", len(got), incomplete, len(want), dropped.Type)
	}
	j := 0
	for _, w := range want {
		if isGanesha && w.host == dropped.Host && w.t == dropped.Time {
			continue
		}
		if g := got[j]; g.host != w.host || g.t != w.t || !slices.Equal(g.x, w.x) {
			t.Fatalf("vector %d: %v, want %v", j, g, w)
		}
		j++
	}
}
