package hetero

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWindowZCalibrated judges windows of fault-free runs (14 nodes of
// three classes, two stages of two resource classes, the simulator's
// Spark noise) against models fitted on 200 earlier runs, and checks that
// the nodes' z-scores — overall and per resource — are scaled as a
// standard normal's (standard deviation 0.92–1.12 over 420 node-windows:
// about 3 standard errors):
// the node factor's error, which every cell of a node shares, is counted
// along the cells' mean loading, not as each cell's own (which made the
// innocent nodes' window z-scores 0.78 wide on the parc scenario), and no
// innocent node is degraded.
func TestWindowZCalibrated(t *testing.T) {
	var z, zr []float64
	for seed := uint64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, 77))
		s := newSynth(14, rng)
		s.tail = true
		m, err := Fit(s.runs(rng, 200, 6, 3, 0.4, 0), DefaultParams)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range m.Judge(s.runs(rng, 60, 6, 3, 0.4, 1e9)) {
			if v.Slowdown == nil {
				continue
			}
			if v.Culprit() {
				t.Errorf("seed %d: innocent %s degraded (%s)", seed, v.Host, v.Why)
			}
			z = append(z, v.Z)
			for _, r := range v.ByResource {
				zr = append(zr, r.Z)
			}
		}
	}
	for _, x := range []struct {
		name string
		z    []float64
	}{{"overall", z}, {"per resource", zr}} {
		var s, ss float64
		for _, v := range x.z {
			s += v
			ss += v * v
		}
		n := float64(len(x.z))
		sd := math.Sqrt(ss/n - s*s/n/n)
		t.Logf("%s: %d z-scores, mean %.2f, sd %.2f", x.name, len(x.z), s/n, sd)
		if sd < 0.92 || sd > 1.12 {
			t.Errorf("%s: innocent nodes' window z-scores have sd %.2f, want 0.92–1.12", x.name, sd)
		}
	}
}

// TestSharedVariance checks shift's variance against the algebra by hand:
// two cells of one node, of loadings (1, 0) and (0, 1), each of variance
// 0.05 of which 0.01 is the node factor's (Cov(u) = [[0.01, −0.008],
// [−0.008, 0.01]]) and 0.01 its job class's history mean's. Their mean
// carries the factor error along v̄ = (½, ½): ¼ (0.01 + 0.01 − 2 · 0.008)
// = 0.001, and each class's history error with weight ½: 2 · (½ · 0.1)² =
// 0.005; the cells' own parts 0.03 each, so the mean's variance is ¼ (0.03
// + 0.03) + 0.001 + 0.005 = 0.021 (counted as every cell's own, as before:
// 0.025 + 0.01 + 0.01 = 0.045).
func TestSharedVariance(t *testing.T) {
	m := &Joint{p: DefaultParams, cov: []float64{0.01, -0.008, -0.008, 0.01}, tail: gaussianTail}
	cells := []*judgedCell{
		{job: 0, load: []float64{1, 0}, e: 0.3, ve: 0.05, q: 0.01, hsd: 0.1, tasks: 3},
		{job: 1, load: []float64{0, 1}, e: 0.3, ve: 0.05, q: 0.01, hsd: 0.1, tasks: 3},
	}
	sh := m.shift(cells, false)
	sd := (sh.hi - sh.lo) / (2 * intervalZ)
	if math.Abs(sd*sd-0.021) > 1e-9 || math.Abs(sh.delta-0.3) > 1e-9 || math.Abs(sh.z-0.3/math.Sqrt(0.021)) > 1e-9 {
		t.Errorf("shift: delta %.4f, variance %.5f, z %.4f; want 0.3, 0.021, %.4f", sh.delta, sd*sd, sh.z, 0.3/math.Sqrt(0.021))
	}
}

// TestOneResourceSlowed: a host whose disk alone is slowed 1.35x (its IO
// stage 1.35x, its CPU stage, loading 0.1 on IO, 1.03x) is diluted in the
// node's slowdown over both stages; the test of its IO alone finds it more
// often. 20 seeds, windows of 60 runs after 200; measured: 15 found in io,
// 8 by the slowdown over all its stages alone at Z (the one test before),
// no innocent.
func TestOneResourceSlowed(t *testing.T) {
	found, overall, innocent := 0, 0, 0
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 78))
		s := newSynth(14, rng)
		s.tail = true
		m, err := Fit(s.runs(rng, 200, 6, 3, 0.4, 0), DefaultParams)
		if err != nil {
			t.Fatal(err)
		}
		victim := s.nodes[int(seed)%14]
		s.degrade[victim] = [2]float64{0, math.Log(1.35)}
		for _, v := range m.Judge(s.runs(rng, 60, 6, 3, 0.4, 1e9)) {
			switch {
			case v.Host != victim:
				if v.Culprit() {
					innocent++
				}
			case v.Culprit() && v.Resource == ResourceIO:
				found++
				fallthrough
			default:
				if v.Slowdown != nil && v.Z >= DefaultParams.Z && v.Slowdown.Value >= DefaultParams.MinSlowdown {
					overall++
				}
			}
		}
	}
	t.Logf("IO slowed 1.35x: found in io %d of 20, by the overall slowdown alone %d; innocents %d", found, overall, innocent)
	if found < 13 || found < overall+4 || innocent > 0 {
		t.Errorf("IO slowed 1.35x: found in io %d of 20 (want ≥ 13), overall alone %d (want ≥ 4 fewer), innocents %d (want 0)", found, overall, innocent)
	}
}
