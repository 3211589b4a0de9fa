package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// sklearnPython returns a python3 that imports scikit-learn, scipy and
// numpy (CLUSTERLENS_PYTHON, /usr/bin/python3 or python3 on PATH). Missing
// one skips the test locally and fails it under CI=true.
func sklearnPython(t testing.TB) string {
	t.Helper()
	pyOnce.Do(func() { pyPath = findPython("sklearn, scipy, numpy") })
	return pythonOrSkip(t, pyPath, "scikit-learn, scipy and numpy")
}

// findPython is the first python3 (CLUSTERLENS_PYTHON, /usr/bin/python3,
// python3 on PATH) that imports the modules, "" when none does.
func findPython(modules string) string {
	for _, c := range []string{os.Getenv("CLUSTERLENS_PYTHON"), "/usr/bin/python3", "python3"} {
		if c != "" && exec.Command(c, "-c", "import "+modules).Run() == nil {
			return c
		}
	}
	return ""
}

// pythonOrSkip returns path, or skips the test (fails it under CI=true)
// when it is empty.
func pythonOrSkip(t testing.TB, path, what string) string {
	t.Helper()
	if path != "" {
		return path
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("python3 with " + what + " is required under CI (.ci/packages-sklearn.txt)")
	}
	t.Skip("no python3 with " + what)
	return ""
}

// refInput is everything the reference script computes from; refOutput is
// what it answers. Inputs are generated deterministically here.
type refInput struct {
	GMM struct {
		X       *Dense    `json:"x"`
		K       int       `json:"k"`
		Reg     float64   `json:"reg"`
		Weights []float64 `json:"weights"`
		Means   *Dense    `json:"means"`
		Covs    []float64 `json:"covs"`
		Iters   []int     `json:"iters"`
	} `json:"gmm"`
	Fit struct {
		X       *Dense  `json:"x"`
		K       int     `json:"k"`
		Tol     float64 `json:"tol"`
		MaxIter int     `json:"max_iter"`
	} `json:"fit"`
	Equal struct {
		X     *Dense    `json:"x"`
		K     int       `json:"k"`
		Reg   float64   `json:"reg"`
		Means *Dense    `json:"means"`
		Covs  []float64 `json:"covs"`
		Iters int       `json:"iters"`
	} `json:"equal"`
	KMeans struct {
		X       *Dense `json:"x"`
		Centers *Dense `json:"centers"`
	} `json:"kmeans"`
	PCA struct {
		X   *Dense    `json:"x"`
		CCR []float64 `json:"ccr"`
	} `json:"pca"`
	FFT struct {
		Re [][]float64 `json:"re"`
		Im [][]float64 `json:"im"`
	} `json:"fft"`
	MinMax [][]float64    `json:"minmax"`
	Cosine [][2][]float64 `json:"cosine"`
	JS     [][2][]float64 `json:"js"`
}

type refGMM struct {
	Iters      int       `json:"iters"`
	LowerBound float64   `json:"lower_bound"`
	Weights    []float64 `json:"weights"`
	Means      []float64 `json:"means"`
	Covs       []float64 `json:"covs"`
	Score      float64   `json:"score"`
	Labels     []int     `json:"labels"`
	Samples    []float64 `json:"samples"`
}

type refOutput struct {
	GMM   []refGMM `json:"gmm"`
	Fit   refGMM   `json:"fit"`
	Equal refGMM   `json:"equal"`
	KM    struct {
		Inertia   float64   `json:"inertia"`
		Iters     int       `json:"iters"`
		Labels    []int     `json:"labels"`
		Centers   []float64 `json:"centers"`
		PPInertia float64   `json:"pp_inertia"`
	} `json:"kmeans"`
	PCA []struct {
		N          int       `json:"n"`
		Components []float64 `json:"components"`
		Variance   []float64 `json:"variance"`
		Ratio      []float64 `json:"ratio"`
		Mean       []float64 `json:"mean"`
		Transform  []float64 `json:"transform"`
	} `json:"pca"`
	FFT []struct {
		Re []float64 `json:"re"`
		Im []float64 `json:"im"`
	} `json:"fft"`
	MinMax [][]float64 `json:"minmax"`
	Cosine []float64   `json:"cosine"`
	JS     []float64   `json:"js"`
}

var fftLengths = []int{1, 2, 7, 64, 100, 1000, 1024, 4097}

// mixtureData draws n samples in d dimensions from k overlapping,
// anisotropic Gaussian clusters.
func mixtureData(rng *rand.Rand, n, d, k int, spread float64) *Dense {
	centers := NewDense(k, d)
	for i := range centers.X {
		centers.X[i] = rng.NormFloat64() * spread
	}
	mix := make([]float64, k*d*d)
	for i := range mix {
		mix[i] = rng.NormFloat64() * 0.6
	}
	x := NewDense(n, d)
	z := make([]float64, d)
	for i := range n {
		c := rng.IntN(k)
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		row := x.Row(i)
		for a := range d {
			v := centers.X[c*d+a]
			for b := range d {
				v += mix[(c*d+a)*d+b] * z[b]
			}
			row[a] = v + 0.3*z[a]
		}
	}
	return x
}

// initFrom returns the starting mixture FitGMM derives from means.
func initFrom(t *testing.T, x *Dense, means *Dense, reg float64, equal bool) *GMM {
	t.Helper()
	g, err := initGMM(x, GMMOptions{K: means.N, InitMeans: means, Reg: reg, EqualPriors: equal}.withDefaults(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func flatCovs(g *GMM) []float64 {
	var out []float64
	for _, c := range g.Covs {
		out = append(out, c.X...)
	}
	return out
}

func pickRows(x *Dense, rows ...int) *Dense {
	m := NewDense(len(rows), x.D)
	for i, r := range rows {
		copy(m.Row(i), x.Row(r))
	}
	return m
}

func buildRefInput(t *testing.T) *refInput {
	rng := rand.New(rand.NewPCG(42, 7))
	in := &refInput{}
	g := &in.GMM
	g.X = mixtureData(rng, 3000, 5, 3, 2.5)
	g.K, g.Reg = 4, 1e-6
	init := initFrom(t, g.X, pickRows(g.X, 0, 1, 2, 3), g.Reg, false)
	g.Weights, g.Means, g.Covs = init.Weights, init.Means, flatCovs(init)
	g.Iters = []int{1, 5, 30}

	f := &in.Fit
	f.K, f.Tol, f.MaxIter = 4, 1e-10, 500
	f.X = NewDense(2000, 5)
	for i := range f.X.N {
		c := float64(i % f.K)
		for j := range 5 {
			f.X.X[i*5+j] = 8*c*float64(j%2) - 3*c*float64(j%3) + rng.NormFloat64()*(1+0.3*c)
		}
	}

	e := &in.Equal
	e.X = mixtureData(rng, 1500, 3, 3, 2)
	e.K, e.Reg, e.Iters = 3, 1e-6, 15
	ei := initFrom(t, e.X, pickRows(e.X, 10, 20, 30), e.Reg, true)
	e.Means, e.Covs = ei.Means, flatCovs(ei)

	in.KMeans.X = mixtureData(rng, 2000, 4, 5, 3)
	in.KMeans.Centers = pickRows(in.KMeans.X, 0, 1, 2, 3, 4)

	in.PCA.X = mixtureData(rng, 500, 8, 2, 1)
	in.PCA.CCR = []float64{0.5, 0.8, 0.95, 1}

	for _, n := range fftLengths {
		re, im := make([]float64, n), make([]float64, n)
		for i := range n {
			re[i], im[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		in.FFT.Re = append(in.FFT.Re, re)
		in.FFT.Im = append(in.FFT.Im, im)
	}
	in.MinMax = [][]float64{{3, 1, 4, 1, 5, 9, 2, 6}, {7, 7, 7}, {-2.5, 1e9, 0}, {42}}
	in.Cosine = [][2][]float64{{{1, 2, 3}, {4, 5, 6}}, {{1, 0}, {0, 1}}, {{0, 0, 0}, {1, 2, 3}}, {{-1, 2.5, 1e-3}, {3, -1, 7}}}
	in.JS = [][2][]float64{{{1, 2, 3}, {3, 2, 1}}, {{1, 0, 0}, {0, 0, 1}}, {{0.2, 0, 0.8}, {0.1, 0.9, 0}}, {{5, 5}, {5, 5}}, {{0, 3, 1, 0}, {1, 1, 1, 1}}}
	return in
}

var (
	pyOnce  sync.Once
	pyPath  string
	refOnce sync.Once
	refIn   *refInput
	refOut  *refOutput
	refErr  string
)

// reference runs testdata/reference.py once per test binary and returns
// its inputs and answers.
func reference(t *testing.T) (*refInput, *refOutput) {
	t.Helper()
	py := sklearnPython(t)
	refOnce.Do(func() {
		in := buildRefInput(t)
		path := filepath.Join(os.TempDir(), "clusterlens-stats-ref-"+t.Name()+".json")
		data, err := json.Marshal(in)
		if err != nil {
			refErr = err.Error()
			return
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			refErr = err.Error()
			return
		}
		defer os.Remove(path)
		cmd := exec.Command(py, "testdata/reference.py", path)
		cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1")
		cmd.Stderr = os.Stderr
		outData, err := cmd.Output()
		if err != nil {
			refErr = "reference.py: " + err.Error()
			return
		}
		var out refOutput
		if err := json.Unmarshal(outData, &out); err != nil {
			refErr = "reference.py output: " + err.Error()
			return
		}
		refIn, refOut = in, &out
	})
	if refErr != "" {
		t.Fatal(refErr)
	}
	return refIn, refOut
}

// relClose reports whether got and want agree to rel relative to
// max(|want|, floor).
func relClose(got, want, rel, floor float64) bool {
	return math.Abs(got-want) <= rel*math.Max(math.Abs(want), floor)
}

// maxRelDiff is the largest |got−want| / max(|want|, floor).
func maxRelDiff(got, want []float64, floor float64) float64 {
	var worst float64
	for i := range min(len(got), len(want)) {
		worst = max(worst, math.Abs(got[i]-want[i])/math.Max(math.Abs(want[i]), floor))
	}
	return worst
}

func checkSlice(t *testing.T, what string, got, want []float64, rel, floor float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, reference has %d", what, len(got), len(want))
	}
	for i := range got {
		if !relClose(got[i], want[i], rel, floor) {
			t.Fatalf("%s[%d] = %.12g, reference %.12g (rel tol %g)", what, i, got[i], want[i], rel)
		}
	}
}
