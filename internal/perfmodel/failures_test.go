package perfmodel

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// retryLog is the hand-written FetchFailed retry log; its timeline is in
// internal/dataflow/failures_test.go. Task durations (ms): stage 0.0: 1000,
// 1200, 900, 1400 (task 3's output is lost: a Resubmitted TaskEnd repeats
// it); stage 1.0: 500 (FetchFailed), 300 (ExecutorLostFailure); stage 0.1:
// 800, 1100; stage 1.1: 1000, 3000, 1350 (killed speculative copy).
const retryLog = "testdata/app-fetchfailed-retry"

// TestRetryWorkloadByHand checks what the workload keeps of a retried
// stage: every attempt that held a core, failed and killed ones included
// (Sparklens's task time), and not the Resubmitted record.
func TestRetryWorkloadByHand(t *testing.T) {
	w, err := FromApp(loadOne(t, retryLog))
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int64{{1000, 1200, 900, 1400, 800, 1100}, {500, 300, 1000, 3000, 1350}}
	if len(w.Stages) != 2 {
		t.Fatalf("%d stages, want 2", len(w.Stages))
	}
	for i, s := range w.Stages {
		if s.Attempts != 2 || !slices.Equal(s.Durations, want[i]) {
			t.Errorf("stage %d: %d attempts, durations %v; want 2, %v", s.ID, s.Attempts, s.Durations, want[i])
		}
	}
	if f := Sparklens(w); f.CoreMsUsed != 12550 {
		t.Errorf("core-ms used %d, want 12550", f.CoreMsUsed)
	}
}

// TestResubmittedRealLog checks, on the real log with 50 Resubmitted
// records, that the workload has one task per TaskEnd event that is not
// one: expected-counts.tsv's task count (every TaskEnd, counted by a
// separate decoder) less the Resubmitted records counted in the raw bytes.
func TestResubmittedRealLog(t *testing.T) {
	root := sharedtest.Dir(t, "logs")
	rel := "rapids-tools/core/src/test/resources/spark-events-profiling/tasks_executors_fail_compressed_eventlog.zstd"
	taskEnds := expectedTasks(t, root, rel)
	f, err := os.Open(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	raw, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	resub := bytes.Count(raw, []byte(`"Task End Reason":{"Reason":"Resubmitted"}`))
	w, err := FromApp(loadOne(t, filepath.Join(root, rel)))
	if err != nil {
		t.Fatal(err)
	}
	if resub != 50 || w.NumTasks() != taskEnds-resub {
		t.Errorf("%d task attempts, want %d TaskEnd events less %d Resubmitted records (want 50)", w.NumTasks(), taskEnds, resub)
	}
}

// expectedTasks is the tasks column of shared/data/logs/expected-counts.tsv
// for the log at rel.
func expectedTasks(t *testing.T, root, rel string) int {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "expected-counts.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) > 8 && cols[1] == rel {
			n, err := strconv.Atoi(cols[8])
			if err != nil {
				t.Fatalf("expected-counts.tsv: tasks of %s: %v", rel, err)
			}
			return n
		}
	}
	t.Fatalf("expected-counts.tsv has no row for %s", rel)
	return 0
}
