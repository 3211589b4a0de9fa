package dataflow

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clusterlens/clusterlens/internal/decodelogs"
	"github.com/clusterlens/clusterlens/internal/sharedtest"
)

// TestSchedulerDelayMatchesHistoryServer checks the Spark phase split
// against the real History Server: for every task of Spark's own
// HistoryServerSuite task-list expectations, the reconstructed scheduler
// delay and getting-result time must equal the "schedulerDelay" and
// "gettingResultTime" the History Server returned.
func TestSchedulerDelayMatchesHistoryServer(t *testing.T) {
	root := sharedtest.Dir(t, "shs-expectations")
	f, err := os.Open(filepath.Join(root, "index.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checked := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) != 3 || !strings.Contains(cols[1], "/taskList") {
			continue
		}
		parts := strings.Split(strings.SplitN(cols[1], "?", 2)[0], "/") // applications/ID/stages/S/A/taskList
		if len(parts) != 6 {
			t.Fatalf("unexpected path %q", cols[1])
		}
		stageID, _ := strconv.Atoi(parts[3])
		stageAttempt, _ := strconv.Atoi(parts[4])
		res, err := decodelogs.Paths([]string{filepath.Join(root, "spark-events", parts[1])}, decodelogs.Options{Workers: 1})
		if err != nil || len(res.Apps) != 1 {
			t.Fatalf("%s: %v (%d apps)", parts[1], err, len(res.Apps))
		}
		r, err := Reconstruct(res.Apps[0], Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[int64][maxPhases]int32{}
		for _, a := range r.Attempts {
			st := r.App.Stages[a.Stage]
			if int(st.ID) == stageID && int(st.Attempt) == stageAttempt {
				got[st.Tasks[a.Task].ID] = a.Dur
			}
		}
		b, err := os.ReadFile(filepath.Join(root, "expected", cols[2]))
		if err != nil {
			t.Fatal(err)
		}
		var want []struct {
			TaskID            int64 `json:"taskId"`
			SchedulerDelay    int32 `json:"schedulerDelay"`
			GettingResultTime int32 `json:"gettingResultTime"`
		}
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			d, ok := got[w.TaskID]
			if !ok {
				t.Errorf("%s: task %d not reconstructed", cols[0], w.TaskID)
				continue
			}
			if d[0] != w.SchedulerDelay || d[6] != w.GettingResultTime {
				t.Errorf("%s: task %d scheduler delay %d, getting result %d; History Server %d, %d",
					cols[0], w.TaskID, d[0], d[6], w.SchedulerDelay, w.GettingResultTime)
			}
			checked++
		}
	}
	if checked < 80 {
		t.Errorf("checked %d tasks, want at least 80", checked)
	}
	t.Logf("%d tasks match the History Server", checked)
}
