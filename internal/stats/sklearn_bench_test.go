package stats

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestSklearnSideBySide times our GMM against scikit-learn's in the same
// run, both on one core: EM on 1M 14-dimensional vectors with K = 7 for a
// fixed 50 iterations from the same start, and classification throughput
// (Predict plus a label-histogram update per vector vs. sklearn predict on
// the whole batch). It is gated by CLUSTERLENS_SKLEARN_BENCH=1 (it takes
// minutes); CLUSTERLENS_SKLEARN_BENCH_N overrides the sample count.
func TestSklearnSideBySide(t *testing.T) {
	if os.Getenv("CLUSTERLENS_SKLEARN_BENCH") != "1" {
		t.Skip("set CLUSTERLENS_SKLEARN_BENCH=1 to time against scikit-learn")
	}
	py := sklearnPython(t)
	n, d, k, iters := 1_000_000, 14, 7, 50
	if s := os.Getenv("CLUSTERLENS_SKLEARN_BENCH_N"); s != "" {
		if err := json.Unmarshal([]byte(s), &n); err != nil {
			t.Fatal(err)
		}
	}
	x := mixtureData(newRand(11), n, d, k, 2)
	rows := make([]int, k)
	for i := range rows {
		rows[i] = i * 7
	}
	init := initFrom(t, x, pickRows(x, rows...), 1e-6, false)

	dir := t.TempDir()
	raw := make([]byte, 8*len(x.X))
	for i, v := range x.X {
		binary.LittleEndian.PutUint64(raw[8*i:], math.Float64bits(v))
	}
	dataPath := filepath.Join(dir, "x.f64")
	if err := os.WriteFile(dataPath, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	raw = nil
	cfg, _ := json.Marshal(map[string]any{"n": n, "d": d, "k": k, "iters": iters, "reg": 1e-6,
		"weights": init.Weights, "means": init.Means.X, "covs": flatCovs(init), "predict_reps": 3, "kmeans_iters": 20})
	cfgPath := filepath.Join(dir, "cfg.json")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(py, "testdata/bench.py", dataPath, cfgPath)
	cmd.Env = append(os.Environ(), "OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1", "MKL_NUM_THREADS=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bench.py: %v", err)
	}
	var sk struct {
		Fit        float64 `json:"fit_seconds"`
		FitCPU     float64 `json:"fit_cpu"`
		KMeansCPU  float64 `json:"kmeans_cpu"`
		KMeansIter int     `json:"kmeans_iters"`
		Inertia    float64 `json:"kmeans_inertia"`
		PredictCPU float64 `json:"predict_cpu"`
		Iters      int     `json:"iters"`
		LowerBound float64 `json:"lower_bound"`
		Predict    float64 `json:"predict_seconds"`
		Labels     []int   `json:"labels_head"`
	}
	if err := json.Unmarshal(out, &sk); err != nil {
		t.Fatal(err)
	}

	// One core, as sklearn is given one; CPU time is the whole process's
	// (the collector included), as sklearn's time.process_time() is.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	opt := GMMOptions{K: k, MaxIter: iters, Tol: -1, Reg: 1e-6}.withDefaults()
	start, cpu0 := time.Now(), sharedtest.ProcessCPU()
	g, ll, ran, err := runEM(x, init, opt)
	fit, fitCPU := time.Since(start).Seconds(), (sharedtest.ProcessCPU() - cpu0).Seconds()
	if err != nil {
		t.Fatal(err)
	}
	if ran != sk.Iters || !relClose(ll, sk.LowerBound, 1e-6, 0) {
		t.Errorf("fit differs: %d iterations, log-likelihood %.10g; sklearn %d, %.10g", ran, ll, sk.Iters, sk.LowerBound)
	}
	hist := make([]int, k)
	best, bestCPU := math.Inf(1), math.Inf(1)
	for range 3 {
		clear(hist)
		start, cpu0 = time.Now(), sharedtest.ProcessCPU()
		for i := range x.N {
			label, _ := g.Predict(x.Row(i))
			hist[label]++
		}
		best, bestCPU = min(best, time.Since(start).Seconds()), min(bestCPU, (sharedtest.ProcessCPU()-cpu0).Seconds())
	}
	for i, l := range sk.Labels {
		if l2, _ := g.Predict(x.Row(i)); l2 != l {
			t.Errorf("row %d: label %d, sklearn %d", i, l2, l)
			break
		}
	}
	cpu0 = sharedtest.ProcessCPU()
	km, err := KMeansFrom(x, init.Means, KMeansOptions{MaxIter: 20, Tol: -1})
	kmCPU := (sharedtest.ProcessCPU() - cpu0).Seconds()
	if err != nil {
		t.Fatal(err)
	}
	if km.Iter != sk.KMeansIter || !relClose(km.Inertia, sk.Inertia, 1e-9, 0) {
		t.Errorf("k-means differs: %d iterations, inertia %.10g; sklearn %d, %.10g", km.Iter, km.Inertia, sk.KMeansIter, sk.Inertia)
	}
	t.Logf("k-means (Lloyd from the same centers, %d iterations): CPU ours %.2f s, sklearn %.2f s, ratio %.2f×",
		km.Iter, kmCPU, sk.KMeansCPU, sk.KMeansCPU/kmCPU)

	ours, theirs := float64(n)/bestCPU, float64(n)/sk.PredictCPU
	t.Logf("EM fit, %d×%d, K=%d, %d iterations: CPU ours %.2f s, sklearn %.2f s, ratio %.2f× (wall %.2f s vs %.2f s)",
		n, d, k, iters, fitCPU, sk.FitCPU, sk.FitCPU/fitCPU, fit, sk.Fit)
	t.Logf("classification per CPU second: ours %.0f vectors/s (Predict + histogram), sklearn predict %.0f vectors/s, ratio %.2f× (wall %.0f/s vs %.0f/s)",
		ours, theirs, ours/theirs, float64(n)/best, float64(n)/sk.Predict)
	// CPU time, not wall time: the machine may be shared, and CPU time is
	// what each side spent on one core.
	if ours < 2*theirs {
		t.Errorf("classification throughput %.0f/s is below 2× sklearn's %.0f/s", ours, theirs)
	}
	if fitCPU > sk.FitCPU {
		t.Errorf("EM fit %.2f CPU s is slower than sklearn's %.2f s", fitCPU, sk.FitCPU)
	}
}
