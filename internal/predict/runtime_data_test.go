package predict

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
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
