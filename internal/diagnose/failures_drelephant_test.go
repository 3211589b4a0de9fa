package diagnose

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// stageFailureEvidence runs the Dr. Elephant stages heuristic on the log at
// path and returns its evidence by name (nil when it found nothing).
func stageFailureEvidence(t *testing.T, path string) map[string]float64 {
	t.Helper()
	app := loadApp(t, path)
	d, _ := Lookup("drelephant-spark-stages")
	fs, err := d.Detect(NewInput(app), nil) // the rule's counts, before settle
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) == 0 {
		return nil
	}
	ev := map[string]float64{}
	for _, e := range fs[0].Evidence {
		ev[e.Name] = e.Value
	}
	return ev
}

// TestDrElephantStageFailuresSHS checks the stages heuristic on a Spark log
// with a failed stage against the stage list the real Spark History Server
// returned for it (shs-expectations): Dr. Elephant's StagesHeuristic counts
// the stage attempts whose status is FAILED over COMPLETE plus FAILED, and
// grades each attempt's numFailedTasks / (numCompleteTasks + numFailedTasks).
func TestDrElephantStageFailuresSHS(t *testing.T) {
	root := sharedtest.Dir(t, "shs-expectations")
	raw, err := os.ReadFile(filepath.Join(root, "expected", "stage_list_json_expectation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var stages []struct {
		Status                           string
		NumCompleteTasks, NumFailedTasks int64
	}
	if err := json.Unmarshal(raw, &stages); err != nil {
		t.Fatal(err)
	}
	var done, failed int
	worst := 0.0
	for _, s := range stages {
		switch s.Status {
		case "COMPLETE":
			done++
		case "FAILED":
			failed++
		}
		if n := s.NumCompleteTasks + s.NumFailedTasks; n > 0 {
			worst = max(worst, float64(s.NumFailedTasks)/float64(n))
		}
	}
	if failed == 0 {
		t.Fatal("the expectation lists no failed stage")
	}
	ev := stageFailureEvidence(t, filepath.Join(root, "spark-events", "local-1422981780767"))
	want := map[string]float64{"completeStages": float64(done), "failedStages": float64(failed),
		"stageFailureRate": float64(failed) / float64(done+failed), "maxStageTaskFailureRate": worst}
	checkStageEvidence(t, ev, want)
}

// TestDrElephantStageFailuresByHand checks the hand-written retry log: of
// its four stage attempts 1.0 failed (1 of 4, 0.25), and its two tasks
// failed (rate 1.0); the killed speculative copy in 1.1 is no failure.
func TestDrElephantStageFailuresByHand(t *testing.T) {
	checkStageEvidence(t, stageFailureEvidence(t, retryLog), map[string]float64{
		"completeStages": 3, "failedStages": 1, "stageFailureRate": 0.25, "maxStageTaskFailureRate": 1,
		"stage1.0TaskFailureRate": 1,
	})
}

// TestDrElephantStageFailuresCounts checks the stage counts on the real
// failure-heavy logs against expected-counts.tsv, counted by a separate
// decoder: its stages are the StageCompleted events (complete plus failed
// attempts) and failed_stages those with a failure reason.
func TestDrElephantStageFailuresCounts(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	counts := map[string][2]int{}
	f, err := os.Open(filepath.Join(root, "expected-counts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) > 7 && c[0] == "spark-eventlog" {
			n, err1 := strconv.Atoi(c[6])
			k, err2 := strconv.Atoi(c[7])
			if err1 == nil && err2 == nil {
				counts[c[1]] = [2]int{n, k}
			}
		}
	}
	for _, rel := range failureLogs {
		c, ok := counts[rel]
		if !ok {
			t.Fatalf("expected-counts.tsv has no row for %s", rel)
		}
		ev := stageFailureEvidence(t, filepath.Join(root, rel))
		if ev == nil {
			if c[1] > 0 {
				t.Errorf("%s: no finding, but %d of %d stages failed", rel, c[1], c[0])
			}
			continue
		}
		if int(ev["completeStages"]+ev["failedStages"]) != c[0] || int(ev["failedStages"]) != c[1] {
			t.Errorf("%s: %v complete and %v failed stage attempts; expected-counts.tsv: %d stages, %d failed",
				rel, ev["completeStages"], ev["failedStages"], c[0], c[1])
		}
	}
	// The RAPIDS tools' log failed its one job by cancelling it ("Job 0
	// cancelled as part of cancellation of all jobs"): no failure to
	// report, whatever the rule counts.
	app := loadApp(t, filepath.Join(root, "spark-rapids-2021/tools/src/test/resources/spark-events-profiling/task_job_failure_eventlog_compressed.zstd"))
	if fs := Run(app, Options{Only: []string{"drelephant-spark-stages", "drelephant-spark-jobs"}}); len(fs) != 0 {
		t.Errorf("cancelled job reported as failures: %+v", fs)
	}
}

func checkStageEvidence(t *testing.T, ev, want map[string]float64) {
	t.Helper()
	if ev == nil {
		t.Fatal("no drelephant-spark-stages finding")
	}
	for k, v := range want {
		if got, ok := ev[k]; !ok || math.Abs(got-v) > 1e-9 {
			t.Errorf("%s = %v (present %v), want %v", k, got, ok, v)
		}
	}
}
