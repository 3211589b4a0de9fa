package stats

import (
	"math"
	"testing"
)

func TestMinMaxCosineJSMatchReference(t *testing.T) {
	in, out := reference(t)
	for i, v := range in.MinMax {
		checkSlice(t, "MinMax", MinMax(v), out.MinMax[i], 1e-12, 1e-12)
	}
	for i, c := range in.Cosine {
		if got := Cosine(c[0], c[1]); !relClose(got, out.Cosine[i], 1e-12, 1e-12) {
			t.Errorf("Cosine(%v, %v) = %v, sklearn %v", c[0], c[1], got, out.Cosine[i])
		}
	}
	for i, c := range in.JS {
		want := out.JS[i]
		if got := JSDistance(c[0], c[1]); !relClose(got, want, 1e-9, 1e-9) {
			t.Errorf("JSDistance(%v, %v) = %v, scipy %v", c[0], c[1], got, want)
		}
		if got := JSDivergence(c[0], c[1]); !relClose(got, want*want, 1e-9, 1e-12) {
			t.Errorf("JSDivergence(%v, %v) = %v, scipy squared %v", c[0], c[1], got, want*want)
		}
	}
	if !math.IsNaN(JSDivergence([]float64{1}, []float64{1, 2})) || !math.IsNaN(Cosine([]float64{1}, nil)) {
		t.Error("mismatched lengths should give NaN")
	}
}
