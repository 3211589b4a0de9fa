package sim

import (
	"math"
	"slices"
	"testing"
)

// TestCommonRandomNumbers: with common random numbers, a regression run
// whose driver pauses before a job takes exactly the pause longer than
// the same run without it (every task's noise is its own), and a run that
// shares the cluster with another application gives the job's tasks the
// noise stragglers the run alone gives them (the same attempts, their
// factors within 1%: a long attempt's factor scales with its shuffle bytes,
// which the other application moves by a fraction of a percent); from one
// shared sequence, as every other scenario draws, neither holds.
func TestCommonRandomNumbers(t *testing.T) {
	for _, crn := range []bool{true, false} {
		run := func(cause string) (*Result, RegressionTruth) {
			t.Helper()
			sc, truth, ok := RegressionRun("sort", 3, cause, 5)
			if !ok {
				t.Fatalf("no %s run", cause)
			}
			sc.CommonRandomNumbers = crn
			sc.Scheduler.SparkNoise = NoiseSpec{} // the calibrated noise: stragglers on 6% of the attempts
			res, err := Simulate(sc, 5003, nil)
			if err != nil {
				t.Fatal(err)
			}
			return res, truth
		}
		clean, _ := run("")
		paused, _ := run("driver")
		crowded, _ := run("executors")
		pause := paused.Scenario.Problems[0].PauseS * 1000
		diff := float64(paused.Apps[0].Duration() - clean.Apps[0].Duration())
		same := slices.EqualFunc(sortedStragglers(clean), sortedStragglers(crowded), func(a, b StragglerTruth) bool {
			return a.Stage == b.Stage && a.Task == b.Task && a.Attempt == b.Attempt && math.Abs(a.Factor/b.Factor-1) <= 0.01
		})
		if crn && (diff != pause || !same || len(sortedStragglers(clean)) < 3) {
			t.Errorf("common random numbers: the pause of %.0f ms made the run %.0f ms longer; the noise's %d stragglers the same beside another application: %v",
				pause, diff, len(sortedStragglers(clean)), same)
		}
		if !crn && diff == pause && same {
			t.Error("one shared sequence: the cause changed no other draw")
		}
	}
}

// sortedStragglers is the job's noise stragglers in stage and task order.
func sortedStragglers(r *Result) []StragglerTruth {
	var s []StragglerTruth
	for _, a := range r.Truth.Apps {
		if a.Job != "" {
			s = slices.Clone(a.Stragglers)
		}
	}
	slices.SortFunc(s, func(a, b StragglerTruth) int {
		if a.Stage != b.Stage {
			return int(a.Stage - b.Stage)
		}
		return int(a.Task - b.Task)
	})
	return s
}
