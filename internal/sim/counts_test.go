package sim

import (
	"fmt"
	"testing"

	"github.com/clusterlens/clusterlens/internal/summary"
)

// TestCountsMatchTruth checks, for every named scenario and several seeds,
// that the summary of each simulated application counts what truth.json says.
func TestCountsMatchTruth(t *testing.T) {
	for _, name := range testScenarios() {
		for _, seed := range seeds {
			t.Run(fmt.Sprintf("%s/%d", name, seed), func(t *testing.T) {
				res, err := Simulate(mustNamed(t, name), seed, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Apps) != len(res.Truth.Apps) || len(res.Apps) == 0 {
					t.Fatalf("%d apps, %d in truth", len(res.Apps), len(res.Truth.Apps))
				}
				for i, app := range res.Apps {
					checkCounts(t, summary.Build(app), res.Truth.Apps[i])
				}
			})
		}
	}
}

func checkCounts(t *testing.T, s *summary.Summary, tr AppTruth) {
	t.Helper()
	got := [...]int{s.Totals.Jobs, s.Totals.Stages, s.Totals.Tasks, s.Totals.FailedTasks, s.Totals.KilledTasks, s.Totals.Hosts, s.Totals.RunningTasks, s.Totals.FailedJobs}
	want := [...]int{tr.Jobs, tr.Stages, tr.Attempts, tr.Failed, tr.Killed, tr.Hosts, 0, 0}
	if got != want {
		t.Errorf("%s: jobs, stages, attempts, failed, killed, hosts, running, failed jobs = %v, truth %v", tr.ID, got, want)
	}
	if s.App.ID != tr.ID || !s.App.Complete || s.App.DurationMs <= 0 {
		t.Errorf("%s: identity %+v", tr.ID, s.App)
	}
}
