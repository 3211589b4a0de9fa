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

type boostCase struct {
	X     *Dense    `json:"x"`
	Y     []float64 `json:"y"`
	W     []float64 `json:"w"`
	Rate  float64   `json:"rate"`
	Trees int       `json:"trees"`
	Depth int       `json:"depth"`
}

// boostCases are runtimes against machines and data sizes (integers, exact
// in the float32 scikit-learn's trees split on), with and without weights
// and with repeated rows, and C3O's setting (1000 trees at 0.1). The
// predictions are compared at the rows fitted: where two features split a
// node's rows alike, scikit-learn takes the one its random feature order
// meets first and the threshold between other values, which routes new
// rows differently but fits the same.
func boostCases() []boostCase {
	rng := rand.New(rand.NewPCG(21, 5))
	var cases []boostCase
	for k, c := range []struct {
		n, trees, depth int
		rate            float64
		weighted        bool
	}{{40, 100, 3, 0.1, false}, {120, 1000, 3, 0.1, true}, {25, 300, 2, 0.5, false}, {60, 50, 4, 0.05, true}} {
		bc := boostCase{X: NewDense(c.n, 2), Y: make([]float64, c.n), Rate: c.rate, Trees: c.trees, Depth: c.depth}
		for i := range c.n {
			m, d := float64(2+rng.IntN(60)), float64(10+rng.IntN(200))
			if k == 2 && i%5 == 1 {
				m, d = bc.X.X[0], bc.X.X[1] // repeated rows
			}
			bc.X.X[2*i], bc.X.X[2*i+1] = m, d
			bc.Y[i] = 30 + 4*d/m + 2*math.Log(m) + rng.NormFloat64()
			if c.weighted {
				bc.W = append(bc.W, float64(1+rng.IntN(5)))
			}
		}
		cases = append(cases, bc)
	}
	return cases
}

func TestGradientBoostingAgainstScikitLearn(t *testing.T) {
	py := sklearnPython(t)
	cases := boostCases()
	path := filepath.Join(t.TempDir(), "in.json")
	data, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(py, filepath.Join("testdata", "gboost.py"), path)
	cmd.Stderr = os.Stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("gboost.py: %v", err)
	}
	var ref [][]float64
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	for k, c := range cases {
		b, err := GradientBoosting(c.X, c.Y, c.W, BoostOptions{LearningRate: c.Rate, Trees: c.Trees, Depth: c.Depth})
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.X.N {
			got := b.Predict(c.X.Row(i))
			if want := ref[k][i]; math.Abs(got-want) > 1e-9*max(1, math.Abs(want)) {
				t.Errorf("case %d, row %v: %.12g, scikit-learn %.12g", k, c.X.Row(i), got, want)
			}
		}
	}
}

func TestGradientBoostingRejectsBadInput(t *testing.T) {
	x := NewDense(3, 1)
	if _, err := GradientBoosting(x, []float64{1, 2}, nil, BoostOptions{}); err == nil {
		t.Error("3 rows and 2 targets: want an error")
	}
	if _, err := GradientBoosting(x, []float64{1, 2, 3}, []float64{0, 0, 0}, BoostOptions{}); err == nil {
		t.Error("zero weights: want an error")
	}
	x.X[0] = math.NaN()
	if _, err := GradientBoosting(x, []float64{1, 2, 3}, nil, BoostOptions{}); err == nil {
		t.Error("NaN row: want an error")
	}
}
