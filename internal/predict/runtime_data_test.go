package predict

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
	"github.com/clusterlens/clusterlens/internal/stats"
)

func readTable(t *testing.T, path string) *RunTable {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := ReadRunsCSV(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// TestErnestReproducesPredictorPy fits Ernest on the RCV1 example of
// amplab/ernest and compares the curve with the one its predictor.py
// printed (examples/mllib_rcv1.md, "Machines, Predicted Time": the first
// column is the CSV's #Cores, predicted for the whole input).
func TestErnestReproducesPredictorPy(t *testing.T) {
	dir := sharedtest.Dir(t, "labeled/runtime/ernest")
	tab := readTable(t, filepath.Join(dir, "rcv1-parsed.csv"))
	if tab.Unit != "s" || tab.MachinesColumn != "#Cores" || tab.DataColumn != "Input Fraction" {
		t.Errorf("columns %q %q unit %q", tab.MachinesColumn, tab.DataColumn, tab.Unit)
	}
	var e Ernest
	if err := e.Fit(tab.Points); err != nil {
		t.Fatal(err)
	}
	md, err := os.Open(filepath.Join(dir, "mllib_rcv1.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer md.Close()
	sc := bufio.NewScanner(md)
	in := false
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "Machines, Predicted Time") {
			in = true
			continue
		}
		f := strings.Fields(line)
		if !in || len(f) != 2 {
			if in && n > 0 {
				break
			}
			continue
		}
		m, err1 := strconv.ParseFloat(f[0], 64)
		want, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil {
			continue
		}
		got, _ := e.Predict(m, 1.0)
		if math.Abs(got-want) > 1e-6*want {
			t.Errorf("%g cores: %.10g s, predictor.py %.10g", m, got, want)
		}
		n++
	}
	if n < 5 {
		t.Fatalf("read %d predictions from mllib_rcv1.md, want the 7 it lists", n)
	}
}

// errorSummary is the median, mean and worst of relative errors.
type errorSummary struct{ median, mean, worst float64 }

func summarize(errs []float64) errorSummary {
	abs := make([]float64, len(errs))
	s := errorSummary{}
	for i, e := range errs {
		abs[i] = math.Abs(e)
		s.mean += abs[i] / float64(len(errs))
		s.worst = max(s.worst, abs[i])
	}
	s.median = stats.Quantiles(abs, []float64{0.5})[0]
	return s
}

func (s errorSummary) String() string {
	return fmt.Sprintf("%5.1f%% %5.1f%% %6.1f%%", 100*s.median, 100*s.mean, 100*s.worst)
}

// bellSplit evaluates a choice (opt) fitted on the runs at up to cut
// nodes on the runs above it: the relative errors per run and against each
// larger scale-out's median runtime, and how many runs the intervals held.
func bellSplit(t *testing.T, pts []Point, cut float64, opt ChoiceOptions) (perRun, perScale []float64, chosen string, extrapolated, held int) {
	t.Helper()
	var train []Point
	test := map[float64][]float64{}
	for _, p := range pts {
		if p.Machines <= cut {
			train = append(train, p)
		} else {
			test[p.Machines] = append(test[p.Machines], p.Runtime)
		}
	}
	ms := make([]float64, 0, len(test))
	for m := range test {
		ms = append(ms, m)
	}
	slices.Sort(ms)
	tab := &RunTable{Points: train}
	for _, m := range ms {
		est, err := FromRuns(tab, m, 1, opt)
		if err != nil {
			t.Fatal(err)
		}
		chosen = est.Model
		if est.Extrapolated {
			extrapolated++
		}
		for _, y := range test[m] {
			perRun = append(perRun, (est.Value-y)/y)
			if y >= est.Lower && y <= est.Upper {
				held++
			}
		}
		med := stats.Quantiles(test[m], []float64{0.5})[0]
		perScale = append(perScale, (est.Value-med)/med)
	}
	return perRun, perScale, chosen, extrapolated, held
}

// TestBellScaleOuts fits on Bell's smaller scale-outs (4–32 nodes) and
// predicts the larger ones (36–60), with the cross-validated choice and
// with plain Ernest on the same split; docs/PREDICT.md holds the table
// this prints. Every prediction must be labelled extrapolated; the
// intervals' share of runs held is counted with and without the rivals'
// estimates (ChoiceOptions.Rivals).
func TestBellScaleOuts(t *testing.T) {
	dir := sharedtest.Dir(t, "labeled/runtime/bell")
	files, err := filepath.Glob(filepath.Join(dir, "*.csv"))
	if err != nil || len(files) < 6 {
		t.Fatalf("bell data: %v files, %v", len(files), err)
	}
	var allChoice, allErnest, allChoiceMed, allErnestMed, allGBoostMed []float64
	var held, heldAlone int
	t.Logf("%-22s %-10s %-22s %-22s %-22s %s", "job (fit ≤32, predict 36–60)", "chosen", "choice med/mean/worst", "ernest med/mean/worst", "choice vs median runtime", "interval held (no rivals)")
	for _, f := range files {
		tab := readTable(t, f)
		choice, choiceMed, chosen, ext, h := bellSplit(t, tab.Points, 32, ChoiceOptions{})
		_, _, _, _, ha := bellSplit(t, tab.Points, 32, ChoiceOptions{Rivals: -1})
		ern, ernMed, _, _, _ := bellSplit(t, tab.Points, 32, ChoiceOptions{Models: []string{"ernest"}})
		_, gbMed, _, _, _ := bellSplit(t, tab.Points, 32, ChoiceOptions{Models: []string{"gboost"}})
		allGBoostMed = append(allGBoostMed, gbMed...)
		if ext != len(choiceMed) {
			t.Errorf("%s: %d of %d predictions beyond 32 nodes labelled extrapolated", f, ext, len(choiceMed))
		}
		t.Logf("%-22s %-10s %-22s %-22s %-22s %d/%d (%d)", filepath.Base(f), chosen, summarize(choice), summarize(ern), summarize(choiceMed), h, len(choice), ha)
		allChoice, allErnest = append(allChoice, choice...), append(allErnest, ern...)
		allChoiceMed, allErnestMed = append(allChoiceMed, choiceMed...), append(allErnestMed, ernMed...)
		held, heldAlone = held+h, heldAlone+ha
	}
	c, e := summarize(allChoice), summarize(allErnest)
	t.Logf("all runs: choice %v, ernest %v; against median runtimes: choice %v, ernest %v, C3O's gradient boosting %v; intervals held %d/%d runs (%d without the rivals)",
		c, e, summarize(allChoiceMed), summarize(allErnestMed), summarize(allGBoostMed), held, len(allChoice), heldAlone)
	if held < heldAlone {
		t.Errorf("the rivals' estimates can only widen the intervals: %d held with, %d without", held, heldAlone)
	}
	if c.median >= e.median || c.mean >= e.mean {
		t.Errorf("the choice (median %.3f, mean %.3f) should beat plain Ernest (%.3f, %.3f) on the same split", c.median, c.mean, e.median, e.mean)
	}
}

// TestBellLeaveOneScaleOut is Bell's own evaluation (InterpolationSplits):
// each interior scale-out predicted from all the others, the choice beside
// plain Ernest and C3O's gradient boosting.
func TestBellLeaveOneScaleOut(t *testing.T) {
	dir := sharedtest.Dir(t, "labeled/runtime/bell")
	files, _ := filepath.Glob(filepath.Join(dir, "*.csv"))
	var allChoice, allErnest, allGBoost []float64
	for _, f := range files {
		tab := readTable(t, f)
		ms := distinct(tab.Points, machinesOf)
		var choice, ern, gb []float64
		for _, m := range ms[1 : len(ms)-1] {
			var train []Point
			var test []float64
			for _, p := range tab.Points {
				if p.Machines == m {
					test = append(test, p.Runtime)
				} else {
					train = append(train, p)
				}
			}
			for k, models := range [][]string{nil, {"ernest"}, {"gboost"}} {
				est, err := FromRuns(&RunTable{Points: train}, m, 1, ChoiceOptions{Models: models})
				if err != nil {
					t.Fatal(err)
				}
				if est.Extrapolated {
					t.Errorf("%s at %g nodes: inside the fitted runs, labelled extrapolated", f, m)
				}
				for _, y := range test {
					switch k {
					case 0:
						choice = append(choice, (est.Value-y)/y)
					case 1:
						ern = append(ern, (est.Value-y)/y)
					default:
						gb = append(gb, (est.Value-y)/y)
					}
				}
			}
		}
		t.Logf("%-22s choice %v   ernest %v   gboost %v", filepath.Base(f), summarize(choice), summarize(ern), summarize(gb))
		allChoice, allErnest, allGBoost = append(allChoice, choice...), append(allErnest, ern...), append(allGBoost, gb...)
	}
	c, e := summarize(allChoice), summarize(allErnest)
	t.Logf("all: choice %v, ernest %v, C3O's gradient boosting %v", c, e, summarize(allGBoost))
	if c.mean > e.mean {
		t.Errorf("choice mean %.3f worse than Ernest's %.3f", c.mean, e.mean)
	}
}
