package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/history"
	"github.com/clusterlens/clusterlens/internal/predict"
	"github.com/clusterlens/clusterlens/internal/sim"
	"github.com/clusterlens/clusterlens/internal/stats"
)

// recurringRuns simulates the recurring scenario and returns its runs as
// the run history keeps them, by recurring job (truth's job names).
func recurringRuns(t *testing.T, seed uint64) map[string][]*history.Run {
	t.Helper()
	sc, err := sim.Named("recurring")
	if err != nil {
		t.Fatal(err)
	}
	sc.Metrics.Off = true
	res, err := sim.Simulate(sc, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	byJob := map[string][]*history.Run{}
	for i, a := range res.Apps {
		if job := res.Truth.Apps[i].Job; job != "" {
			byJob[job] = append(byJob[job], history.FromApp(a, a.ID, false, nil))
		}
	}
	return byJob
}

// TestPredictFromHistorySimulated predicts each run of the recurring
// scenario's seed 3 from the runs of seeds 1 and 2 of its job (history
// alone: hosts, input bytes, durations), against the naive answer "the
// job's median duration". The recurring jobs keep their executors and vary
// their input ±50%, on a cluster they share with other jobs.
func TestPredictFromHistorySimulated(t *testing.T) {
	past := recurringRuns(t, 1)
	for job, runs := range recurringRuns(t, 2) {
		past[job] = append(past[job], runs...)
	}
	held := recurringRuns(t, 3)
	var jobs []string
	for j := range held {
		jobs = append(jobs, j)
	}
	sort.Strings(jobs)
	var all, naiveAll []float64
	for _, job := range jobs {
		tab, err := predict.HistoryRuns(past[job], predict.MachinesHosts)
		if err != nil {
			t.Fatal(err)
		}
		var durs []float64
		for _, p := range tab.Points {
			durs = append(durs, p.Runtime)
		}
		if len(durs) < 6 {
			continue
		}
		naive := stats.Quantiles(durs, []float64{0.5})[0]
		var errs, naiveErrs []float64
		chosen := map[string]int{}
		for _, r := range held[job] {
			if r.Status != history.StatusSucceeded || r.DurationMs <= 0 {
				continue
			}
			data := float64(r.Totals.InputBytes)
			if tab.DataColumn == "" {
				data = 1
			}
			est, err := predict.FromRuns(tab, float64(r.Cluster.Hosts), data, predict.ChoiceOptions{})
			var few *predict.TooFewError
			if errors.As(err, &few) {
				t.Logf("%-16s %2d runs fitted: %v", job, len(durs), err)
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", job, err)
			}
			chosen[est.Model]++
			m := float64(r.DurationMs)
			errs = append(errs, (est.Value-m)/m)
			naiveErrs = append(naiveErrs, (naive-m)/m)
		}
		t.Logf("%-16s %2d runs fitted, %2d predicted: %s   naive median duration: %s   models %v", job, len(durs), len(errs),
			summaryOf(errs), summaryOf(naiveErrs), chosen)
		all, naiveAll = append(all, errs...), append(naiveAll, naiveErrs...)
	}
	t.Logf("all recurring jobs: %s   naive: %s", summaryOf(all), summaryOf(naiveAll))
	if quantileAbs(all, 0.5) >= quantileAbs(naiveAll, 0.5) {
		t.Errorf("history models (median %.1f%%) should beat the job's median duration (%.1f%%)", 100*quantileAbs(all, 0.5), 100*quantileAbs(naiveAll, 0.5))
	}
}

func summaryOf(errs []float64) string {
	if len(errs) == 0 {
		return "-"
	}
	return fmt.Sprintf("median %5.1f%% mean %5.1f%% worst %6.1f%%", 100*quantileAbs(errs, 0.5), 100*meanAbs(errs), 100*quantileAbs(errs, 1))
}

// TestPredictJobCommand indexes a simulated fleet into a SQLite run
// history and predicts a recurring job from it by name and by id.
func TestPredictJobCommand(t *testing.T) {
	logs, _ := simDir(t, "recurring", 1)
	store := "sqlite:" + filepath.Join(t.TempDir(), "history.db")
	if code, _, errs := run(t, "index", "--store", store, logs); code != ExitOK {
		t.Fatalf("index: exit %d %s", code, errs)
	}
	code, doc, errs := predictJSON(t, "--store", store, "--job", "nightly_terasort_deadbeef0123", "--input", "2x")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	e := doc.Estimate
	if e.Method != "history" || e.Unit != "ms" || e.Choice == nil || e.Choice.Runs < 6 || !e.Extrapolated || !(e.Lower < e.Value && e.Value < e.Upper) {
		t.Errorf("estimate %+v", e)
	}
	if !slices.Contains(predict.Candidates, e.Model) {
		t.Errorf("model %q", e.Model)
	}
	if code, _, errs := run(t, "predict", "--store", store, "--job", "no such job"); code != ExitError || !strings.Contains(errs, "history jobs lists them") {
		t.Errorf("unknown job: exit %d %s", code, errs)
	}
	if code, _, errs := run(t, "predict", "--store", store, "--job", "nightly_terasort_deadbeef0123", "--machines-from", "racks"); code != ExitUsage || !strings.Contains(errs, "hosts, executors or cores") {
		t.Errorf("bad --machines-from: exit %d %s", code, errs)
	}
}
