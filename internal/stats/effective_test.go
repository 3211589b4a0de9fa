package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Shrout and Fleiss (1979), Table 2: six targets rated by four judges;
// Table 4 gives ICC(1,1) = .17 for it.
var shroutFleiss = [6][4]float64{
	{9, 2, 5, 8}, {6, 1, 3, 2}, {8, 4, 6, 8}, {7, 1, 2, 6}, {10, 5, 6, 9}, {6, 2, 4, 7},
}

func TestIntraclassCorrelationShroutFleiss(t *testing.T) {
	var v []float64
	var g []int
	for i, row := range shroutFleiss {
		for _, x := range row {
			v, g = append(v, x), append(g, i)
		}
	}
	// BMS = 11.24, WMS = 6.26 (their Table 3): (11.24−6.26)/(11.24+3·6.26).
	icc := IntraclassCorrelation(v, g)
	if math.Abs(icc-0.1657) > 0.0005 {
		t.Fatalf("ICC(1,1) = %.4f, Shrout and Fleiss report .17 (BMS 11.24, WMS 6.26: 0.1657)", icc)
	}
	want := 24 / (1 + 3*icc)
	if n := EffectiveSize(v, g); math.Abs(n-want) > 1e-9 {
		t.Fatalf("effective size %.3f, want %.3f", n, want)
	}
}

func TestEffectiveSizeBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var same, noise []float64
	var g []int
	for i := range 12 {
		level := r.NormFloat64()
		for range 5 {
			same = append(same, level)
			noise = append(noise, r.NormFloat64())
			g = append(g, i)
		}
	}
	if n := EffectiveSize(same, g); math.Abs(n-12) > 1e-9 {
		t.Errorf("values equal within their 12 groups count as %.2f, want 12", n)
	}
	if n := EffectiveSize(noise, g); n < 40 || n > 60 {
		t.Errorf("independent values count as %.2f of 60, want near 60", n)
	}
	if n := EffectiveSize([]float64{1, 2, 3}, []int{0, 1, 2}); n != 3 {
		t.Errorf("groups of one count as %.2f, want 3", n)
	}
	if n := EffectiveSize([]float64{1, 2, 3}, []int{0, 0, 0}); n != 3 {
		t.Errorf("one group counts as %.2f, want 3", n)
	}
	if n := EffectiveSize[int](nil, nil); n != 0 {
		t.Errorf("no values count as %.2f", n)
	}
}
