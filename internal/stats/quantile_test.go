package stats

import (
	"math"
	"testing"
)

func TestQuantilesHistoryServerIndexing(t *testing.T) {
	// n = 8: indices floor(q*8) clamped to 7 -> 0, 2, 4, 6, 7
	vals := []float64{80, 10, 70, 20, 60, 30, 50, 40}
	got := Quantiles(vals, FiveNumber)
	want := []float64{10, 30, 50, 70, 80}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v want %v", got, want)
		}
	}
	// n = 1: every quantile is the value
	if got := Quantiles([]float64{5}, FiveNumber); got[0] != 5 || got[4] != 5 {
		t.Fatalf("n=1: %v", got)
	}
	if got := Quantiles(nil, []float64{0.5}); !math.IsNaN(got[0]) {
		t.Fatalf("empty: %v", got)
	}
}

func TestQuantileIndexJavaConversion(t *testing.T) {
	for _, c := range []struct {
		q    float64
		n, w int64
	}{{0.5, 8, 4}, {0.99, 8, 7}, {1, 8, 7}, {math.NaN(), 8, 0}, {math.Inf(1), 8, 7}, {0.3, 10, 3}} {
		if got := QuantileIndex(c.q, c.n); got != c.w {
			t.Errorf("QuantileIndex(%v, %d) = %d, want %d", c.q, c.n, got, c.w)
		}
	}
}
