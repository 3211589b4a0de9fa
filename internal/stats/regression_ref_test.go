package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// statsmodelsPython returns a python3 that imports statsmodels and scipy
// (.ci/packages-sklearn.txt); missing, the test skips locally and fails
// under CI=true.
func statsmodelsPython(t *testing.T) string {
	t.Helper()
	return pythonOrSkip(t, findPython("statsmodels, scipy, numpy"), "statsmodels, scipy and numpy")
}

type regInput struct {
	IRLS []struct {
		X    *Dense    `json:"x"`
		Y    []float64 `json:"y"`
		Norm string    `json:"norm"`
	} `json:"irls"`
	NNLS []struct {
		A *Dense    `json:"a"`
		B []float64 `json:"b"`
	} `json:"nnls"`
}

type regOutput struct {
	IRLS []struct {
		Coef    []float64 `json:"coef"`
		Weights []float64 `json:"weights"`
	} `json:"irls"`
	NNLS []struct {
		X     []float64 `json:"x"`
		RNorm float64   `json:"rnorm"`
	} `json:"nnls"`
}

// regressionCases are lines with gross outliers (small numbers, and byte
// counts against milliseconds as the platform model sees them), and NNLS
// problems whose unconstrained solution has negative parts.
func regressionCases() *regInput {
	const mib = 1 << 20
	rng := rand.New(rand.NewPCG(11, 3))
	in := &regInput{}
	addIRLS := func(x *Dense, y []float64, norm string) {
		in.IRLS = append(in.IRLS, struct {
			X    *Dense    `json:"x"`
			Y    []float64 `json:"y"`
			Norm string    `json:"norm"`
		}{x, y, norm})
	}
	for _, norm := range []string{"bisquare", "huber"} {
		x := NewDense(60, 2)
		y := make([]float64, 60)
		for i := range 60 {
			v := rng.Float64() * 10
			x.X[i*2], x.X[i*2+1] = 1, v
			y[i] = 3 + 2*v + rng.NormFloat64()*0.5
			if i%10 == 3 {
				y[i] += 25 + rng.Float64()*10
			}
		}
		addIRLS(x, y, norm)
		// Phase durations (ms) against input and output bytes.
		x = NewDense(80, 3)
		y = make([]float64, 80)
		for i := range 80 {
			in, out := (16+rng.Float64()*240)*mib, (rng.Float64()*2)*128*mib
			x.X[i*3], x.X[i*3+1], x.X[i*3+2] = 1, in, out
			y[i] = 900 + in/(80*1024) + out/(200*1024) + rng.NormFloat64()*60
			if i%13 == 5 {
				y[i] *= 3
			}
		}
		addIRLS(x, y, norm)
	}
	addNNLS := func(a *Dense, b []float64) {
		in.NNLS = append(in.NNLS, struct {
			A *Dense    `json:"a"`
			B []float64 `json:"b"`
		}{a, b})
	}
	// Ernest's features [1, s/m, log m, m] with a negative true θ3.
	a := NewDense(40, 4)
	b := make([]float64, 40)
	for i := range 40 {
		m, s := float64(2+rng.IntN(62)), 0.05+rng.Float64()
		copy(a.Row(i), []float64{1, s / m, math.Log(m), m})
		b[i] = 4 + 300*s/m + 1.5*math.Log(m) - 0.02*m + rng.NormFloat64()*0.3
	}
	addNNLS(a, b)
	// Random problems with several negative unconstrained coefficients.
	for _, shape := range [][2]int{{30, 6}, {8, 5}, {200, 3}} {
		a := NewDense(shape[0], shape[1])
		b := make([]float64, shape[0])
		for i := range a.X {
			a.X[i] = rng.NormFloat64()
		}
		for i := range b {
			b[i] = rng.NormFloat64() * 3
		}
		addNNLS(a, b)
	}
	// Two identical columns.
	a = NewDense(10, 3)
	b = make([]float64, 10)
	for i := range 10 {
		v := float64(i)
		copy(a.Row(i), []float64{1, v, v})
		b[i] = 2 + 0.5*v
	}
	addNNLS(a, b)
	return in
}

func TestRegressionAgainstStatsmodelsAndScipy(t *testing.T) {
	py := statsmodelsPython(t)
	in := regressionCases()
	dir := t.TempDir()
	path := filepath.Join(dir, "in.json")
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, filepath.Join("testdata", "regression.py"), path)
	cmd.Stderr = os.Stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("regression.py: %v", err)
	}
	var ref regOutput
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	close := func(what string, got, want []float64, tol float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
		}
		for i := range got {
			if d := math.Abs(got[i] - want[i]); d > tol*max(1, math.Abs(want[i])) {
				t.Errorf("%s[%d] = %.10g, statsmodels/scipy %.10g", what, i, got[i], want[i])
			}
		}
	}
	for k, c := range in.IRLS {
		norm := Bisquare
		if c.Norm == "huber" {
			norm = Huber
		}
		fit, err := IRLS(c.X, c.Y, RobustOptions{Norm: norm, MaxIter: 1000, Tol: 1e-13})
		if err != nil {
			t.Fatal(err)
		}
		if !fit.Converged {
			t.Errorf("IRLS case %d did not converge in %d steps", k, fit.Iterations)
		}
		close("IRLS coef", fit.Coef, ref.IRLS[k].Coef, 1e-7)
		close("IRLS weights", fit.Weights, ref.IRLS[k].Weights, 1e-6)
	}
	zeros := 0
	for k, c := range in.NNLS {
		x, rnorm, err := NNLS(c.A, c.B)
		if err != nil {
			t.Fatal(err)
		}
		close("NNLS x", x, ref.NNLS[k].X, 1e-8)
		close("NNLS residual", []float64{rnorm}, []float64{ref.NNLS[k].RNorm}, 1e-9)
		for _, v := range x {
			if v == 0 {
				zeros++
			}
		}
	}
	if zeros < len(in.NNLS) {
		t.Errorf("%d coefficients at the bound over %d NNLS problems: the cases should exercise the constraint", zeros, len(in.NNLS))
	}
}

func TestIRLSDownweightsOutliers(t *testing.T) {
	in := regressionCases()
	c := in.IRLS[0]
	fit, err := IRLS(c.X, c.Y, RobustOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ols, err := LeastSquares(c.X, c.Y, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The line is 3 + 2x; every tenth point is 25–35 too high.
	if math.Abs(fit.Coef[1]-2) > 0.1 || math.Abs(fit.Coef[0]-3) > 0.5 {
		t.Errorf("bisquare fit %v, want about [3 2]", fit.Coef)
	}
	if math.Abs(ols[0]-3) < 1 {
		t.Errorf("least squares %v should be pulled up by the outliers", ols)
	}
	for i := 3; i < 60; i += 10 {
		if fit.Weights[i] != 0 {
			t.Errorf("outlier %d has weight %.3f, want 0", i, fit.Weights[i])
		}
	}
}

func TestRegressionErrors(t *testing.T) {
	x := &Dense{N: 2, D: 2, X: []float64{1, 1, 1, 1}}
	if _, err := IRLS(x, []float64{1, 2}, RobustOptions{}); err == nil {
		t.Error("IRLS of two identical rows: want a rank error")
	}
	if _, err := IRLS(&Dense{N: 1, D: 2, X: []float64{1, 2}}, []float64{1}, RobustOptions{}); err == nil {
		t.Error("IRLS of one row for two unknowns: want an error")
	}
	if _, err := IRLS(&Dense{N: 2, D: 1, X: []float64{1, math.NaN()}}, []float64{1, 2}, RobustOptions{}); err == nil {
		t.Error("IRLS with NaN: want an error")
	}
	if _, _, err := NNLS(&Dense{N: 2, D: 1, X: []float64{1, 2}}, []float64{1}); err == nil {
		t.Error("NNLS with a short response: want an error")
	}
	if _, _, err := NNLS(&Dense{N: 2, D: 1, X: []float64{1, 2}}, []float64{1, math.Inf(1)}); err == nil {
		t.Error("NNLS with Inf: want an error")
	}
}
