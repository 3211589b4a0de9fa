package stats

import (
	"math/rand/v2"
	"testing"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 99)) }

// TestKMeansMatchesSklearn compares Lloyd from fixed centers with
// KMeans(init=centers, n_init=1, algorithm="lloyd") and k-means++ with
// ten restarts against scikit-learn's n_init=10.
func TestKMeansMatchesSklearn(t *testing.T) {
	in, out := reference(t)
	got, err := KMeansFrom(in.KMeans.X, in.KMeans.Centers, KMeansOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(got.Inertia, out.KM.Inertia, 1e-9, 0) {
		t.Errorf("inertia %.12g, sklearn %.12g", got.Inertia, out.KM.Inertia)
	}
	if got.Iter != out.KM.Iters {
		t.Errorf("%d iterations, sklearn %d", got.Iter, out.KM.Iters)
	}
	checkSlice(t, "centers", got.Centers.X, out.KM.Centers, 1e-9, 1)
	for i, l := range got.Labels {
		if l != out.KM.Labels[i] {
			t.Fatalf("label %d = %d, sklearn %d", i, l, out.KM.Labels[i])
		}
	}
	pp, err := KMeans(in.KMeans.X, KMeansOptions{K: in.KMeans.Centers.N, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if pp.Inertia > out.KM.PPInertia*1.01 {
		t.Errorf("k-means++ inertia %.6g, sklearn's best of 10 %.6g (more than 1%% worse)", pp.Inertia, out.KM.PPInertia)
	}
	t.Logf("k-means++ inertia %.8g, sklearn %.8g", pp.Inertia, out.KM.PPInertia)
}
