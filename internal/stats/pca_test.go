package stats

import (
	"math"
	"testing"
)

// TestPCAMatchesSklearn compares components (up to sign), variances,
// ratios, the CCR cut and projections with sklearn's PCA.
func TestPCAMatchesSklearn(t *testing.T) {
	in, out := reference(t)
	x := in.PCA.X
	for i, ccr := range in.PCA.CCR {
		want := out.PCA[i]
		p, err := FitPCA(x, ccr)
		if err != nil {
			t.Fatal(err)
		}
		if p.Components.N != want.N {
			t.Fatalf("ccr %v: kept %d components, sklearn %d", ccr, p.Components.N, want.N)
		}
		checkSlice(t, "mean", p.Mean, want.Mean, 1e-12, 1)
		checkSlice(t, "variance", p.Variance, want.Variance, 1e-9, 1e-9)
		checkSlice(t, "ratio", p.Ratio, want.Ratio, 1e-9, 1e-9)
		d := x.D
		signs := make([]float64, want.N)
		for c := range want.N {
			row := p.Components.Row(c)
			ref := want.Components[c*d : (c+1)*d]
			signs[c] = 1
			if Cosine(row, ref) < 0 {
				signs[c] = -1
			}
			for j := range row {
				if math.Abs(signs[c]*row[j]-ref[j]) > 1e-8 {
					t.Fatalf("ccr %v component %d[%d] = %.10g, sklearn %.10g (up to sign)", ccr, c, j, row[j], ref[j])
				}
			}
		}
		var buf []float64
		for r := range 10 {
			buf = p.Transform(x.Row(r), buf)
			for c, v := range buf {
				if w := want.Transform[r*want.N+c]; math.Abs(signs[c]*v-w) > 1e-8*math.Max(1, math.Abs(w)) {
					t.Fatalf("ccr %v: transform row %d[%d] = %.10g, sklearn %.10g", ccr, r, c, v, w)
				}
			}
		}
	}
}
