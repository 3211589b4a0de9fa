package sim

import (
	"fmt"
	"math"
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

// TestStageProfiles checks that stages wait on their class's resource:
// WordCount's map on CPU, Sort's map on disk, TeraSort's reduce on the network.
func TestStageProfiles(t *testing.T) {
	for _, seed := range seeds {
		res, err := Simulate(mustNamed(t, "clean"), seed, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][2]string{"WordCount": {"0", "cpu"}, "Sort": {"0", "disk"}, "TeraSort": {"1", "network"}}
		for _, a := range res.Truth.Apps {
			w, ok := want[a.Name]
			if !ok {
				continue
			}
			found := false
			for _, p := range a.StageProfiles {
				if fmt.Sprint(p.Stage) == w[0] {
					found = true
					if p.Dominant != w[1] || math.Abs(p.CPU+p.Disk+p.Network-1) > 0.01 {
						t.Errorf("seed %d %s stage %d: %+v, want %s", seed, a.Name, p.Stage, p, w[1])
					}
				}
			}
			if !found {
				t.Errorf("seed %d %s: no profile for stage %s", seed, a.Name, w[0])
			}
		}
	}
}
