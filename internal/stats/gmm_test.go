package stats

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestGMMMatchesSklearn runs EM from the same starting mixture as
// scikit-learn's GaussianMixture (weights_init, means_init,
// precisions_init) for 1, 5 and 30 iterations and compares the
// log-likelihood, parameters, labels and per-sample scores.
func TestGMMMatchesSklearn(t *testing.T) {
	in, out := reference(t)
	g := in.GMM
	for i, iters := range g.Iters {
		want := out.GMM[i]
		init := initFrom(t, g.X, pickRows(g.X, 0, 1, 2, 3), g.Reg, false)
		opt := GMMOptions{K: g.K, MaxIter: iters, Tol: -1, Reg: g.Reg}.withDefaults()
		got, ll, n, err := runEM(g.X, init, opt)
		if err != nil {
			t.Fatal(err)
		}
		if n != want.Iters {
			t.Errorf("%d iterations: ran %d, sklearn %d", iters, n, want.Iters)
		}
		if !relClose(ll, want.LowerBound, 1e-6, 0) {
			t.Errorf("%d iterations: log-likelihood %.12g, sklearn %.12g", iters, ll, want.LowerBound)
		}
		t.Logf("%d iterations: log-likelihood rel diff %.2g, means %.2g, covariances %.2g", iters,
			math.Abs(ll-want.LowerBound)/math.Abs(want.LowerBound), maxRelDiff(got.Means.X, want.Means, 1e-3),
			maxRelDiff(flatCovs(got), want.Covs, 1e-3))
		checkSlice(t, "weights", got.Weights, want.Weights, 1e-6, 1e-6)
		checkSlice(t, "means", got.Means.X, want.Means, 1e-6, 1e-3)
		checkSlice(t, "covariances", flatCovs(got), want.Covs, 1e-6, 1e-3)
		if s := got.Score(g.X); !relClose(s, want.Score, 1e-9, 0) {
			t.Errorf("%d iterations: Score %.12g, sklearn score %.12g", iters, s, want.Score)
		}
		mismatch := 0
		for r := range g.X.N {
			label, lik := got.Predict(g.X.Row(r))
			if label != want.Labels[r] {
				mismatch++
			}
			if !relClose(lik, want.Samples[r], 1e-6, 1) {
				t.Fatalf("%d iterations: sample %d log-likelihood %.12g, sklearn %.12g", iters, r, lik, want.Samples[r])
			}
		}
		if mismatch > 0 {
			t.Errorf("%d iterations: %d of %d labels differ from sklearn predict", iters, mismatch, g.X.N)
		}
	}
}

// TestFitGMMMatchesSklearnDefault fits from each side's own k-means start
// (different random seeds) on well-separated data, both to convergence,
// and compares the optimum reached: score, means and weights.
func TestFitGMMMatchesSklearnDefault(t *testing.T) {
	in, out := reference(t)
	f := in.Fit
	g, err := FitGMM(f.X, GMMOptions{K: f.K, Tol: f.Tol, MaxIter: f.MaxIter, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s := g.Score(f.X); !relClose(s, out.Fit.Score, 1e-9, 0) {
		t.Errorf("score %.12g, sklearn %.12g", s, out.Fit.Score)
	}
	order := make([]int, f.K)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(g.Means.X[a*f.X.D+1], g.Means.X[b*f.X.D+1]) })
	var means, weights []float64
	for _, q := range order {
		means = append(means, g.Means.Row(q)...)
		weights = append(weights, g.Weights[q])
	}
	checkSlice(t, "means", means, out.Fit.Means, 1e-6, 1)
	checkSlice(t, "weights", weights, out.Fit.Weights, 1e-6, 1e-3)
}

// TestGMMEqualPriorsMatchesReference checks EqualPriors against a separate
// textbook EM in numpy/scipy with the weights held at 1/K.
func TestGMMEqualPriorsMatchesReference(t *testing.T) {
	in, out := reference(t)
	e := in.Equal
	init := initFrom(t, e.X, pickRows(e.X, 10, 20, 30), e.Reg, true)
	opt := GMMOptions{K: e.K, MaxIter: e.Iters, Tol: -1, Reg: e.Reg, EqualPriors: true}.withDefaults()
	got, ll, _, err := runEM(e.X, init, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !relClose(ll, out.Equal.LowerBound, 1e-6, 0) {
		t.Errorf("log-likelihood %.12g, reference %.12g", ll, out.Equal.LowerBound)
	}
	for _, w := range got.Weights {
		if w != 1/float64(e.K) {
			t.Errorf("weight %v, want 1/%d", w, e.K)
		}
	}
	t.Logf("log-likelihood rel diff %.2g, means %.2g, covariances %.2g",
		math.Abs(ll-out.Equal.LowerBound)/math.Abs(out.Equal.LowerBound), maxRelDiff(got.Means.X, out.Equal.Means, 1e-3),
		maxRelDiff(flatCovs(got), out.Equal.Covs, 1e-3))
	checkSlice(t, "means", got.Means.X, out.Equal.Means, 1e-6, 1e-3)
	checkSlice(t, "covariances", flatCovs(got), out.Equal.Covs, 1e-6, 1e-3)
}

// TestGMMJSONRoundTrip checks a profile survives JSON and Prepare.
func TestGMMJSONRoundTrip(t *testing.T) {
	x := mixtureData(newRand(3), 600, 4, 3, 3)
	g, err := FitGMM(x, GMMOptions{K: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var back GMM
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if err := back.Prepare(); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		l1, ll1 := g.Predict(x.Row(i))
		l2, ll2 := back.Predict(x.Row(i))
		if l1 != l2 || ll1 != ll2 {
			t.Fatalf("row %d: (%d, %v) before JSON, (%d, %v) after", i, l1, ll1, l2, ll2)
		}
	}
}

func TestGMMClassifyUnknown(t *testing.T) {
	x := mixtureData(newRand(4), 600, 3, 2, 3)
	g, err := FitGMM(x, GMMOptions{K: 2, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	far := []float64{1e3, -1e3, 1e3}
	if l := g.Classify(far, -50); l != Unknown {
		t.Errorf("far vector classified %d, want Unknown", l)
	}
	label, _ := g.Predict(x.Row(0))
	if l := g.Classify(x.Row(0), math.Inf(-1)); l != label {
		t.Errorf("Classify with no threshold = %d, Predict = %d", l, label)
	}
}

func TestGMMBadInput(t *testing.T) {
	for name, tc := range map[string]struct {
		x   *Dense
		opt GMMOptions
	}{
		"nil":        {nil, GMMOptions{K: 1}},
		"short data": {&Dense{N: 2, D: 2, X: []float64{1, 2, 3}}, GMMOptions{K: 1}},
		"K too big":  {NewDense(2, 2), GMMOptions{K: 3}},
		"K zero":     {NewDense(2, 2), GMMOptions{K: 0}},
		"bad init":   {NewDense(4, 2), GMMOptions{K: 2, InitMeans: NewDense(2, 3)}},
		"NaN":        {&Dense{N: 2, D: 1, X: []float64{1, math.NaN()}}, GMMOptions{K: 1}},
	} {
		if _, err := FitGMM(tc.x, tc.opt); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	bad := &GMM{Weights: []float64{1}, Means: NewDense(1, 2), Covs: []*Dense{{N: 2, D: 2, X: []float64{1, 2, 2, 1}}}}
	if err := bad.Prepare(); err == nil {
		t.Error("indefinite covariance prepared without error")
	}
	if l, ll := bad.Predict([]float64{0, 0}); l != Unknown || !math.IsInf(ll, -1) {
		t.Errorf("invalid model predicted (%d, %v)", l, ll)
	}
}

// TestMahal8MatchesGo checks the platform kernel against the portable one
// bit for bit, on random blocks of several widths.
func TestMahal8MatchesGo(t *testing.T) {
	rng := newRand(8)
	for _, d := range []int{1, 2, 3, 14, 20} {
		packed := d * (d + 1) / 2 * lanes
		m, c, xs := make([]float64, packed), make([]float64, d*lanes), make([]float64, d)
		for i := range m {
			m[i] = rng.NormFloat64()
		}
		for i := range c {
			c[i] = rng.NormFloat64()
		}
		for i := range xs {
			xs[i] = rng.NormFloat64() * 3
		}
		var got, want [lanes]float64
		mahal8(&m[0], &c[0], &xs[0], d, &got)
		mahal8Go(m, c, xs, &want)
		if got != want {
			t.Errorf("d=%d: kernel %v, portable %v", d, got, want)
		}
	}
}

// TestFitGMMRecoversClusters fits the default way (k-means++ start) to
// well-separated clusters and checks the means against the generating
// ones, an independent ground truth.
func TestFitGMMRecoversClusters(t *testing.T) {
	rng := newRand(12)
	truth := [][]float64{{0, 0, 0}, {10, 0, 5}, {-8, 9, 0}}
	x := NewDense(3000, 3)
	for i := range x.N {
		c := truth[i%3]
		for j := range 3 {
			x.X[i*3+j] = c[j] + rng.NormFloat64()
		}
	}
	for _, equal := range []bool{false, true} {
		g, err := FitGMM(x, GMMOptions{K: 3, Seed: 5, Restarts: 2, EqualPriors: equal})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range truth {
			label, _ := g.Predict(c)
			if d := math.Sqrt(sqDist(g.Means.Row(label), c)); d > 0.15 {
				t.Errorf("equal priors %v: mean %v is %.3f from true center %v", equal, g.Means.Row(label), d, c)
			}
			if w := g.Weights[label]; math.Abs(w-1.0/3) > 0.02 {
				t.Errorf("equal priors %v: weight %.3f, want ≈ 1/3", equal, w)
			}
		}
	}
}

// FuzzGMMJSON feeds stored-profile JSON through Prepare and Predict: bad
// profiles must give an error or Unknown, never a panic.
func FuzzGMMJSON(f *testing.F) {
	f.Add([]byte(`{"Weights":[1],"Means":{"N":1,"D":2,"X":[0,0]},"Covs":[{"N":2,"D":2,"X":[1,0,0,1]}]}`))
	f.Add([]byte(`{"Weights":[0.5,0.5],"Means":{"N":2,"D":1,"X":[0,3]},"Covs":[{"N":1,"D":1,"X":[1]},{"N":1,"D":1,"X":[2]}]}`))
	f.Add([]byte(`{"Weights":[1],"Means":{"N":1,"D":2,"X":[0]},"Covs":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var g GMM
		if json.Unmarshal(data, &g) != nil {
			return
		}
		err := g.Prepare()
		x := []float64{0.5, -1, 2}
		label, ll := g.Predict(x)
		if err != nil && (label != Unknown || !math.IsInf(ll, -1)) {
			t.Fatalf("invalid model (%v) predicted %d, %v", err, label, ll)
		}
		g.Classify(x, -10)
		g.Score(&Dense{N: 1, D: 3, X: x})
	})
}

// TestLogProbsMatchGonum checks LogProbs for K = 10 (two kernel blocks,
// one partly padded) against the Gaussian density computed with gonum's
// Cholesky solve and log-determinant.
func TestLogProbsMatchGonum(t *testing.T) {
	x := mixtureData(newRand(13), 2000, 5, 10, 3)
	rows := make([]int, 10)
	for i := range rows {
		rows[i] = i * 3
	}
	g := initFrom(t, x, pickRows(x, rows...), 1e-6, false)
	chols := make([]mat.Cholesky, 10)
	for k := range chols {
		if !chols[k].Factorize(mat.NewSymDense(5, append([]float64(nil), g.Covs[k].X...))) {
			t.Fatalf("gonum rejects covariance %d", k)
		}
	}
	var lp []float64
	var sol mat.VecDense
	for i := range 200 {
		row := x.Row(i)
		lp = g.LogProbs(row, lp)
		for k := range chols {
			diff := mat.NewVecDense(5, nil)
			for j := range 5 {
				diff.SetVec(j, row[j]-g.Means.X[k*5+j])
			}
			if err := chols[k].SolveVecTo(&sol, diff); err != nil {
				t.Fatal(err)
			}
			maha := mat.Dot(diff, &sol)
			want := math.Log(g.Weights[k]) - 0.5*(5*math.Log(2*math.Pi)+chols[k].LogDet()+maha)
			if !relClose(lp[k], want, 1e-10, 1) {
				t.Fatalf("row %d component %d: %.12g, gonum %.12g", i, k, lp[k], want)
			}
		}
	}
}

// TestGMMWorkersDeterministic checks that the fit is bit-identical for any
// number of workers (fixed chunks summed in order).
func TestGMMWorkersDeterministic(t *testing.T) {
	x := mixtureData(newRand(14), 3*emChunk+100, 3, 3, 3)
	var ref *GMM
	for _, w := range []int{1, 2, 5} {
		g, err := FitGMM(x, GMMOptions{K: 3, MaxIter: 4, Tol: -1, Seed: 3, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if ref == nil {
			ref = g
			continue
		}
		if !slices.Equal(g.Means.X, ref.Means.X) || !slices.Equal(flatCovs(g), flatCovs(ref)) || !slices.Equal(g.Weights, ref.Weights) {
			t.Errorf("%d workers: fit differs from 1 worker", w)
		}
	}
}
